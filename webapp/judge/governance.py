"""Which policies govern a request (CONTRACT §6): tool globs, scope statements and the hint."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from functools import lru_cache

from webapp.judge.checks import PLACE_KEYS
from webapp.judge.compiler import SCOPE_BINDING, SCOPE_EITHER, CompiledPolicy
from webapp.judge.places import country_code, location_regions, region_name
from webapp.judge.request_view import RequestView, scalars
from webapp.judge.text import GENERIC, STOPWORDS, stem


@dataclass(frozen=True)
class Governance:
    """Governing policies in the order they are applied, and why others were left out."""

    governing: tuple[CompiledPolicy, ...]
    excluded: tuple[tuple[str, str], ...]  # (policy_id, why)
    hint_applied: bool


def select_governing(
    tool_name: str, hint: str, compiled: list[CompiledPolicy], view: RequestView
) -> Governance:
    """Every policy whose globs match and whose scope includes the request; the hint goes first."""
    governing: list[CompiledPolicy] = []
    excluded: list[tuple[str, str]] = []
    for cp in compiled:
        tools = cp.policy.tools
        if tools and not _globs_match(tool_name, tools):
            excluded.append((cp.policy.policy_id, "tool globs do not match"))
            continue
        if cp.scope and out_of_scope(cp.scope, view):
            excluded.append((cp.policy.policy_id, "request is outside the policy's stated scope"))
            continue
        governing.append(cp)
    hint_applied = False
    if hint:
        for i, cp in enumerate(governing):
            if cp.policy.policy_id == hint:
                governing.insert(0, governing.pop(i))
                hint_applied = True
                break
    return Governance(tuple(governing), tuple(excluded), hint_applied)


def _globs_match(tool_name: str, tools: tuple[str, ...]) -> bool:
    """Whether a glob of `tools` matches `tool_name`. A tenant's policies are matched against the
    same few tool names over and over: the answer is kept per tool name and globs."""
    try:
        return _globs_match_kept(tool_name, tools)
    except TypeError:  # globs not hashable (a list): matched each time, as before
        return _globs_match_now(tool_name, tools)


def _globs_match_now(tool_name: str, tools: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(tool_name, g) for g in tools)


_globs_match_kept = lru_cache(maxsize=65536)(_globs_match_now)


def _outside_binding(binding: str, view: RequestView) -> bool:
    """'reason=non_payment' (a scope's gloss, compiler.SCOPE_BINDING): the request's argument of
    that name holds another value, not one close to it ('non-payment', 'non_payment_final' stay
    in scope). Absent, or not a plain value, it shows nothing."""
    arg, _, wanted = binding[1:].partition("=")
    want = re.sub(r"[^a-z0-9]", "", wanted.lower())
    seen = False
    for leaf in view.leaves:
        if leaf.path != arg and leaf.path.rsplit(".", 1)[-1] != arg:
            continue
        for v in scalars(leaf.value):
            if not isinstance(v, str) or not v.strip():
                return False
            got = re.sub(r"[^a-z0-9]", "", v.lower())
            if not want or not got or want in got or got in want:
                return False
            seen = True
    return seen


def out_of_scope(scope_words: tuple[str, ...], view: RequestView) -> bool:
    """True only when the request shows it is outside the scope; when unsure, the policy governs."""
    bindings = [w for w in scope_words if w.startswith(SCOPE_BINDING)]
    if bindings:
        # several glosses ('refunds (type = standard) and credits (type = goodwill)') may be
        # alternatives: outside only when the request is outside every one of them
        if all(_outside_binding(b, view) for b in bindings):
            return True
        scope_words = tuple(w for w in scope_words if not w.startswith(SCOPE_BINDING))
    places = [p for p in (_place_of(w) for w in scope_words) if p]
    if places:
        locations = []
        for leaf in view.leaves:
            if not leaf.keys & PLACE_KEYS:
                continue
            for v in scalars(leaf.value):
                if isinstance(v, str):
                    loc = location_regions(v)
                    if loc:
                        locations.append(loc)
        for code, regions in locations:
            if not any(p == code or p in regions for p in places):
                return True
    # Words joined by 'and' / 'or' ('salary and allowance changes') are one group: any of them
    # shown puts the request in scope; a group is out only when every word of it is absent.
    groups: list[list[str]] = []
    join_next = False
    for w in scope_words:
        if w == SCOPE_EITHER:
            join_next = True
            continue
        if _place_of(w) or w.lower() in STOPWORDS or stem(w.lower()) in GENERIC:
            continue
        if join_next and groups:
            groups[-1].append(stem(w.lower()))
        else:
            groups.append([stem(w.lower())])
        join_next = False
    others = [t for g in groups for t in g]
    context = frozenset(t for t in others if any(t in lf.last_keys for lf in view.leaves))
    for group in groups:
        if any(view.term_matches(t) for t in group):
            continue
        if all(view.term_absent(t, context) for t in group):
            return True
    return False


def _place_of(word: str) -> str | None:
    if len(word) == 2 and word.isupper():
        # 'EU' is a region, not a country code: 'applies to sellers registered in the EU only'
        return country_code(word) or region_name(word)
    return region_name(word) or (country_code(word) if len(word) > 3 else None)
