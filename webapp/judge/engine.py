"""The policy judge: deterministic rules first, retrieval for evidence, an optional language model.

Failure policy: any internal error is caught at the top of `evaluate` and answered with
decision "deny", reason_code "judge_unavailable" and confidence 0. The caller maps it to review
when the tenant's `judge_failure_mode` is "review" (CONTRACT §3). Nothing here can fail open.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Any

import numpy as np

from webapp.judge import agentrules
from webapp.judge.actions import rule_actions
from webapp.judge.checks import (
    NOT_APPLICABLE,
    PERMITTED,
    REVIEW,
    SATISFIED,
    UNBOUND,
    UNKNOWN,
    VIOLATED,
    Check,
    NumericLimit,
    Outcome,
)
from webapp.judge.compiler import (
    HOLDS_NONE,
    CompiledPolicy,
    CompiledRule,
    compile_policy,
    ownership_note,
)
from webapp.judge.gates import obligations_met, out_of_reach, text_readings
from webapp.judge.governance import select_governing
from webapp.judge.netranges import network_shown, speaks_of_network
from webapp.judge.places import find_places, location_regions
from webapp.judge.request_view import HistoryUnavailable, RequestView, scalars
from webapp.judge.retrieval import BM25Index, Chunk, HybridIndex
from webapp.judge.text import GENERIC, content_stems, stem, words
from webapp.judge.types import (
    APPROVED_BY_POLICY,
    BELOW_CONFIDENCE_THRESHOLD,
    JUDGE_UNAVAILABLE,
    NO_MATCHING_POLICY,
    REVIEW_REQUIRED_BY_RULE,
    RULE_VIOLATED,
    Citation,
    ClearanceQuery,
    Evaluator,
    EvaluatorUnavailable,
    History,
    JudgeUnavailable,
    ModelJudgement,
    PolicyVersion,
    RuleText,
    Verdict,
)
from webapp.judge.vocabulary import Glossary
from webapp.judge.wrongreads import OWNER_LABEL

log = logging.getLogger(__name__)

CONFIDENCE_RULE_DENY = 0.97
CONFIDENCE_NO_POLICY = 0.99
CONFIDENCE_RULE_REVIEW = 0.9
CONFIDENCE_UNVERIFIED = 0.5
CONFIDENCE_FULL_COVERAGE = 0.97
CONFIDENCE_PERMISSION_ONLY = 0.93
# A governing policy exists but none of its rules speaks to the request. Under the 'medium'
# bucket's cut-off (0.60, CONTRACT §3): "nothing I read speaks to this" is no medium-confidence
# approval, so only a tenant that accepts low confidence gets it without a reviewer. (At 0.6, a
# tenant on 'medium' auto-approved requests whose forbidding rule the engine had not seen.)
CONFIDENCE_NO_COVERAGE = 0.55
PENALTY_PER_IRRELEVANT_TEXT_RULE = 0.01
MAX_TEXT_RULE_PENALTY = 0.05
EVIDENCE_LIMIT = 8
CITATION_LIMIT = 8

_cache_lock = threading.Lock()
_compiled_cache: OrderedDict[str, CompiledPolicy] = OrderedDict()
_index_cache: OrderedDict[tuple[str, ...], tuple[BM25Index, dict[str, int]]] = OrderedDict()
_CACHE_SIZE = 4096


def compiled_for(policy: PolicyVersion, glossary: Glossary | None = None) -> CompiledPolicy:
    """The compiled form of `policy`, compiled once per version and glossary and then reused."""
    key = (
        policy.policy_version_id + "|" + glossary.fingerprint
        if glossary is not None and glossary.terms
        else policy.policy_version_id
    )
    with _cache_lock:
        hit = _compiled_cache.get(key)
        if hit is not None and hit.policy.content_hash == policy.content_hash:
            _compiled_cache.move_to_end(key)
            return hit
    cp = compile_policy(policy, glossary if glossary is not None and glossary.terms else None)
    with _cache_lock:
        _compiled_cache[key] = cp
        if len(_compiled_cache) > _CACHE_SIZE:
            _compiled_cache.popitem(last=False)
    return cp


# What makes a rule judged as text speak to a request that shares none of its words: one probe
# per kind, each asked only of the rules its rule-side half can hold for (kept in the plan, so a
# tenant's 200 rules do not pay for every probe on every request).
_Probe = Callable[[CompiledRule, RequestView], bool]
_RulePlan = tuple[
    CompiledRule,
    tuple[Check, ...],
    bool,
    frozenset[str],
    frozenset[str] | None,
    "tuple[_Probe, ...] | None",  # None: relevant to every request (a fallback, an owner's duty)
    tuple[bool, bool, bool],  # gates.text_readings: what out_of_reach / obligations_met can read
]
_plans: dict[int, tuple[CompiledPolicy, tuple[_RulePlan, ...]]] = {}


def _plan(cp: CompiledPolicy) -> tuple[_RulePlan, ...]:
    """Per rule of `cp`: the rule, the checks that decide for it, whether it is judged as text
    whatever the request (kept as text, or partly understood), and what judging it as text reads
    of its words alone (its content stems, its action words: `_rule_stems`, `rule_actions`; the
    probes that may make it relevant; which gates its words hold: `gates.text_readings`), kept as
    long as `cp` is cached."""
    hit = _plans.get(id(cp))
    if hit is not None and hit[0] is cp:
        return hit[1]
    plan = tuple(
        (
            rule,
            # The understanding invariant: a partly understood rule never decides on its own; it
            # is judged as text (review, or the language model when one is configured).
            rule.checks if rule.decides else (),
            rule.uncompiled or bool(rule.checks and not rule.decides),
            # also for compiled rules: one whose check nothing binds to is judged as text
            _rule_stems(rule.text),
            rule_actions(rule.text),
            _relevance_probes(rule),
            text_readings(rule.text),
        )
        for rule in cp.rules
    )
    with _cache_lock:
        _plans[id(cp)] = (cp, plan)  # the entry keeps `cp` alive, so its id is not reused
        if len(_plans) > _CACHE_SIZE:
            del _plans[next(iter(_plans))]
    return plan


# Outcomes are immutable, so the one every text rule gets is shared rather than built per rule.
_KEPT_AS_TEXT = Outcome(UNKNOWN, "rule kept as text")

# The decision precedence, highest first: the first kind of finding present decides the verdict.
# violated (a compiled rule forbids: deny) > model deny (the language model, on text rules, denies)
# > review (a rule asks for review) > unknown (a relevant rule that cannot be verified, a partly
# understood or a text rule: review) > satisfied (allow). Nothing lower can override a higher one.
PRECEDENCE: tuple[str, ...] = ("violated", "model_deny", "review", "unknown", "satisfied")


@dataclass(slots=True)
class _Finding:
    policy: CompiledPolicy
    rule: CompiledRule
    check: Check | None
    outcome: Outcome


def evaluate(
    query: ClearanceQuery,
    policies: Sequence[PolicyVersion],
    history: History,
    evaluator: Evaluator | None = None,
    *,
    documents: HybridIndex | None = None,
    glossary: Mapping[str, list[str]] | Glossary | None = None,
    raise_unavailable: bool = False,
) -> Verdict:
    """Judge one tool call against the tenant's active policy versions; never raises, never fails open.

    `documents` optionally holds ingested chunks (metadata with policy_version_id) for evidence;
    `glossary` the tenant's terms (CONTRACT §6a), which decide membership of named categories.
    With `raise_unavailable`, an internal failure (history unavailable, a database error, a bug)
    raises JudgeUnavailable instead of answering a `judge_unavailable` deny, so that a job can
    retry it exactly like a remote judge's failure.
    """
    try:
        return _evaluate(query, policies, history, evaluator, documents, Glossary.of(glossary))
    except Exception as exc:  # noqa: BLE001 - fail closed on anything unexpected
        log.exception("judge failed; answering judge_unavailable")
        if raise_unavailable:
            # The caller retries this like a remote judge's failure: never a deny verdict.
            raise JudgeUnavailable(f"the policy judge failed: {type(exc).__name__}") from exc
        return Verdict(
            decision="deny",
            confidence=0.0,
            reason="The policy judge could not evaluate this request.",
            reason_code=JUDGE_UNAVAILABLE,
            layer="rules",
            details={"error": type(exc).__name__, "layer": "rules"},
        )


def render_request(query: ClearanceQuery) -> str:
    """Text of a request for lexical retrieval: tool name, argument names and short string values."""
    parts = [query.tool_name]

    def walk(value: Any, key: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                parts.append(str(k))
                walk(v, str(k))
        elif isinstance(value, (list, tuple)):
            for v in value[:50]:
                walk(v, key)
        elif isinstance(value, str):
            parts.append(value[:200])
        elif isinstance(value, bool) and value:
            parts.append(key)

    walk(query.tool_args, "")
    return " ".join(parts)


# ---------------------------------------------------------------------------------------------
def _evaluate(
    query: ClearanceQuery,
    policies: Sequence[PolicyVersion],
    history: History,
    evaluator: Evaluator | None,
    documents: HybridIndex | None,
    glossary: Glossary | None = None,
) -> Verdict:
    if not isinstance(query.tool_args, dict):
        raise TypeError("tool_args must be an object")
    view = RequestView(query.tool_name, query.tool_args, query.agent_id, history)
    compiled = [compiled_for(p, glossary) for p in policies]
    gov = select_governing(query.tool_name, query.policy_hint, compiled, view)
    details: dict[str, Any] = {
        "governing_policies": [cp.policy.policy_id for cp in gov.governing],
        "excluded_policies": [{"policy_id": p, "why": why} for p, why in gov.excluded],
        "hint_applied": gov.hint_applied,
    }
    if not gov.governing:
        return Verdict(
            decision="deny",
            confidence=CONFIDENCE_NO_POLICY,
            reason=f"No active policy governs the tool '{query.tool_name}'.",
            reason_code=NO_MATCHING_POLICY,
            layer="rules",
            details=details,
        )

    request_text = render_request(query)
    scores = _rule_scores(gov.governing, request_text)
    request_terms = (
        view.tool_stems | view.key_stems | view.value_stems | view.related_stems
    ) - GENERIC
    findings: list[_Finding] = []
    relevant_text: list[_Finding] = []
    # Rules not fully read whose gate is read and false for the request (gates.py): they do not
    # govern it, are cited nowhere, and count as having spoken (like a condition that is not met).
    reached_out: list[_Finding] = []
    irrelevant_text = 0
    out_of_action: list[dict[str, Any]] = []  # text rules about another act than the request's
    violated: list[_Finding] = []
    reviews: list[_Finding] = []
    unknown: list[_Finding] = []
    covering: list[_Finding] = []  # satisfied and permitted, in rule order
    by_status = {
        VIOLATED: violated,
        REVIEW: reviews,
        UNKNOWN: unknown,
        SATISFIED: covering,
        PERMITTED: covering,
    }
    bucketed = 0  # findings of a status in `by_status` (all of them, unless a check misbehaves)
    satisfied_ids: list[str] = []  # for the details: the satisfied rules, the other findings
    unsatisfied: list[_Finding] = []
    # The current rule's findings other than satisfied: one list for the whole walk, emptied
    # after each rule that filled it (most rules fill none), not a new list per rule.
    held: list[_Finding] = []
    for cp in gov.governing:
        # (rule, the checks that decide, judged as text from the start, its stems and acts) per
        # rule, derived once per compiled policy: a tenant's 200 rules are walked for every request.
        for rule, checks, as_text, rule_stems, rule_acts, probes, readings in _plan(cp):
            for check in checks:
                try:
                    outcome = check.evaluate(view)
                except HistoryUnavailable:
                    raise  # infrastructure failure: the whole judge is unavailable
                except Exception as exc:  # noqa: BLE001 - a check that breaks cannot approve
                    log.warning("check of %s failed: %s", rule.chunk_id, type(exc).__name__)
                    outcome = Outcome(UNKNOWN, "this rule could not be evaluated")
                status = outcome.status
                if status == NOT_APPLICABLE:
                    continue
                if status == SATISFIED and check.effect == "allow":
                    # A permission grants only where it is shown to cover the request
                    # (PERMITTED); one whose scope the request does not show ('… for gold
                    # members' and no tier, or a silver one) grants nothing.
                    continue
                if status == PERMITTED and view.named_only_by_other_value(
                    check.terms, _unrestricted(check.source), _source_stems(check.source)
                ):
                    # 'Priority refunds up to 500 EUR are allowed' and refund_priority='low':
                    # the argument's name says 'priority', its value says another one.
                    continue
                if status == UNBOUND:
                    as_text = True  # compiled, but nothing binds to it here: judge its words
                    continue
                finding = _Finding(cp, rule, check, outcome)
                if status == SATISFIED:  # the commonest finding
                    findings.append(finding)
                    covering.append(finding)
                    bucketed += 1
                    satisfied_ids.append(rule.chunk_id)
                    continue
                held.append(finding)
            if held:
                # A compiled rule that asks for review while its gate is read in full and
                # definitely false for the request (gates.py: 'Involuntary separations need
                # sign-off' and separation_type 'voluntary'): the rule does not reach the request,
                # as when it is judged as text. Only a review is set aside, never a violation nor
                # a check that could not verify the request (it saw something the gate does not
                # read: 'via: vpn' beside session_type 'onsite'), and only by a gate without an
                # amount (the check read the amounts itself, every one of them).
                why = (
                    out_of_reach(rule.text, view, glossary, compiled=True)
                    if all(f.outcome.status == REVIEW for f in held)
                    else None
                )
                if why is not None:
                    reached_out.append(_Finding(cp, rule, None, Outcome(SATISFIED, why)))
                    held.clear()
                    continue
                for finding in held:
                    findings.append(finding)
                    unsatisfied.append(finding)
                    bucket = by_status.get(finding.outcome.status)
                    if bucket is not None:
                        bucket.append(finding)
                        bucketed += 1
                held.clear()
            if as_text:
                if request_terms.isdisjoint(rule_stems) and probes is not None:
                    # (a plain loop: no generator per text rule and request)
                    for probe in probes:
                        if probe(rule, view):
                            break
                    else:
                        irrelevant_text += 1
                        continue
                # A rule about another act than the request's (a tools glob covers several):
                # not relevant, recorded with both acts (actions.py, RequestView.other_action).
                other = view.other_action(rule_acts) if rule_acts else None
                if other:
                    irrelevant_text += 1
                    out_of_action.append(
                        {
                            "chunk_id": rule.chunk_id,
                            "rule_actions": sorted(rule_acts or ()),
                            "request_actions": sorted(other),
                        }
                    )
                    continue
                # A rule whose gate is read and false for the request (gates.py): it does not
                # reach the request, and speaks for it like an understood rule whose condition
                # is not met.
                holds, glossed, obliged = readings  # (`held` is the rule's findings, above)
                why = out_of_reach(rule.text, view, glossary, held=holds, glossed=glossed) or (
                    obligations_met(rule.text, view) if obliged else None
                )
                if why is not None:
                    reached_out.append(_Finding(cp, rule, None, Outcome(SATISFIED, why)))
                    continue
                relevant_text.append(_Finding(cp, rule, None, _KEPT_AS_TEXT))

    fired = findings  # not-applicable and unbound outcomes were left out above
    details.update(
        compiled_rules=sum(cp.compiled_count for cp in gov.governing),
        uncompiled_rules=sum(cp.uncompiled_count for cp in gov.governing),
        checks_applicable=len(fired),
        fired=[_finding_detail(f) for f in unsatisfied],
        satisfied=satisfied_ids,
        relevant_text_rules=[f.rule.chunk_id for f in relevant_text],
        irrelevant_text_rules=irrelevant_text,
    )
    if out_of_action:
        details["out_of_action"] = out_of_action
    if reached_out:
        details["out_of_reach"] = [
            f"{f.rule.chunk_id} out of reach: {f.outcome.message}" for f in reached_out
        ]
    if bucketed == len(findings) and _distinct_versions(gov.governing):
        evidence = _evidence_by_level(
            gov.governing,
            (violated, reviews, unknown + relevant_text, covering),
            scores,
            documents,
            request_text,
        )
    else:  # a status outside the precedence table, or a version twice: the general pass
        evidence = _evidence(
            gov.governing, findings, relevant_text, scores, documents, request_text
        )

    def verdict(
        decision: str,
        confidence: float,
        reason: str,
        code: str,
        basis: list[_Finding],
        layer: str = "rules",
    ) -> Verdict:
        primary = basis[0].policy if basis else gov.governing[0]
        details["layer"] = layer
        if decision == "review":
            # A rule asking for several approvers ('approval from two reviewers') raises the
            # tenant's count of distinct approvals (services/settings.required_approvals_for).
            quorum = max((f.rule.required_approvals for f in basis), default=0)
            if quorum >= 2:
                details["required_approvals"] = quorum
                # the rule that asked for it, so a reviewer sees why ('set by rule …')
                details["required_approvals_rule"] = next(
                    f.rule.text for f in basis if f.rule.required_approvals == quorum
                )
        return Verdict(
            decision=decision,  # type: ignore[arg-type]
            confidence=round(max(0.0, min(1.0, confidence)), 4),
            reason=reason,
            reason_code=code,
            citations=_citations(basis, scores),
            evidence_chunks=evidence,
            policy_id=primary.policy.policy_id,
            policy_version_id=primary.policy.policy_version_id,
            policy_content_hash=primary.policy.content_hash,
            layer=layer,  # type: ignore[arg-type]
            details=details,
        )

    # One step per row of PRECEDENCE, tried in its order; the first that answers decides.
    # Deterministic rules first: nothing below a violated rule can turn it into an approval.
    state: dict[str, Any] = {"model": None}

    def violated_step() -> Verdict | None:
        if violated:
            return verdict(
                "deny", CONFIDENCE_RULE_DENY, _reason("Denied", violated), RULE_VIOLATED, violated
            )
        return None

    def model_deny_step() -> Verdict | None:
        if not (relevant_text and evaluator is not None):
            return None
        try:
            model = evaluator.judge(
                query,
                [
                    RuleText(f.rule.chunk_id, f.policy.policy.policy_id, f.rule.text)
                    for f in relevant_text
                ],
                list(evidence),
            )
        except EvaluatorUnavailable as exc:
            details["model_error"] = str(exc)[:200]
            return verdict(
                "deny",
                0.0,
                "The language-model evaluator is unavailable.",
                JUDGE_UNAVAILABLE,
                relevant_text,
                "model",
            )
        state["model"] = model
        details["model"] = {
            "decision": model.decision,
            "confidence": model.confidence,
            "rule_refs": list(model.rule_refs),
            "malformed": model.malformed,
        }
        if model.malformed:
            return verdict(
                "review",
                0.0,
                "The language model answered in an unusable form; a human must decide.",
                BELOW_CONFIDENCE_THRESHOLD,
                relevant_text,
                "model",
            )
        if model.decision == "deny":
            basis = _refs(relevant_text, model.rule_refs)
            return verdict(
                "deny",
                model.confidence,
                f"Denied by the evaluation of policy text: {model.reason}"[:1000],
                RULE_VIOLATED,
                basis,
                "model",
            )
        return None

    # A reviewer must see every rule that may forbid the request, not only the one that asked for
    # review: the relevant rules the engine could not decide are cited after it.
    def pending_text() -> list[_Finding]:
        return relevant_text if state["model"] is None else []

    def review_step() -> Verdict | None:
        if reviews:
            return verdict(
                "review",
                CONFIDENCE_RULE_REVIEW,
                _reason("Review required", reviews) + _also(pending_text()),
                REVIEW_REQUIRED_BY_RULE,
                reviews + pending_text(),
            )
        return None

    def unknown_step() -> Verdict | None:
        model: ModelJudgement | None = state["model"]
        if unknown:
            return verdict(
                "review",
                CONFIDENCE_UNVERIFIED,
                _reason("Cannot be verified automatically", unknown) + _also(pending_text()),
                BELOW_CONFIDENCE_THRESHOLD,
                unknown + pending_text(),
            )
        if model is not None and model.decision == "review":
            basis = _refs(relevant_text, model.rule_refs)
            return verdict(
                "review",
                model.confidence,
                f"The evaluation of policy text asks for review: {model.reason}"[:1000],
                REVIEW_REQUIRED_BY_RULE,
                basis,
                "model",
            )
        if model is None and relevant_text:
            names = "; ".join(f"'{f.rule.text}'" for f in relevant_text[:3])
            return verdict(
                "review",
                CONFIDENCE_UNVERIFIED,
                f"Policy text that the rule engine cannot check applies: {names}",
                BELOW_CONFIDENCE_THRESHOLD,
                relevant_text,
            )
        return None

    def satisfied_step() -> Verdict | None:
        model: ModelJudgement | None = state["model"]
        if model is not None:
            coverage = _coverage_confidence(covering, irrelevant_text)
            confidence = min(
                model.confidence,
                max(coverage, CONFIDENCE_PERMISSION_ONLY) if covering else model.confidence,
            )
            return verdict(
                "allow",
                confidence,
                "Allowed: compiled rules hold and the policy text was judged satisfied "
                f"({model.reason})"[:1000],
                APPROVED_BY_POLICY,
                covering + relevant_text,
                "model",
            )
        if not covering and not reached_out:
            return verdict(
                "allow",
                CONFIDENCE_NO_COVERAGE,
                "No rule of the governing policies speaks to this request.",
                APPROVED_BY_POLICY,
                [],
            )
        # A rule out of the request's reach has spoken (its gate is read and false), like an
        # understood rule whose condition is not met; it is cited nowhere.
        allowed = _reason("Allowed", covering) if covering else _out_of_reach_reason(reached_out)
        silent = _silent_policies(gov.governing, covering + reached_out)
        if silent:
            # Each governing policy must speak: one whose rules all pass the request by says
            # nothing about it, and another policy's approval does not answer for it.
            return verdict(
                "allow",
                CONFIDENCE_NO_COVERAGE,
                allowed
                + "; but no rule of policy "
                + ", ".join(f"'{p}'" for p in silent)
                + " speaks to this request",
                APPROVED_BY_POLICY,
                covering,
            )
        return verdict(
            "allow",
            _coverage_confidence(covering + reached_out, irrelevant_text),
            allowed,
            APPROVED_BY_POLICY,
            covering,
        )

    steps = {
        "violated": violated_step,
        "model_deny": model_deny_step,
        "review": review_step,
        "unknown": unknown_step,
        "satisfied": satisfied_step,
    }
    for kind in PRECEDENCE:
        decided = steps[kind]()
        if decided is not None:
            return decided
    raise AssertionError("the satisfied step always answers")  # pragma: no cover


def _silent_policies(governing: Sequence[CompiledPolicy], covering: list[_Finding]) -> list[str]:
    """Governing policies none of whose rules gave a finding (they do not speak to the request)."""
    spoke = {id(f.policy) for f in covering}
    if len(governing) < 2:
        return []
    return [cp.policy.policy_id for cp in governing if id(cp) not in spoke]


_ANY_OF = re.compile(r"\b(?:any|every|all|each)\s+([A-Za-z][\w\-]*)", re.I)


@lru_cache(maxsize=65536)
def _unrestricted(source: str) -> frozenset[str]:
    """Stems of the words a rule leaves open ('in any environment', 'for all regions')."""
    return frozenset(stem(m.group(1).lower()) for m in _ANY_OF.finditer(source))


@lru_cache(maxsize=65536)
def _source_stems(source: str) -> frozenset[str]:
    """Stems of every word of a rule, function words included ('annual' is 'year')."""
    return frozenset(stem(w) for w in words(source.lower()))


@lru_cache(maxsize=65536)
def _rule_places(text: str) -> frozenset[str]:
    return frozenset(canonical for _, canonical in find_places(text))


@lru_cache(maxsize=65536)
def _restricts_content(text: str) -> bool:
    return HOLDS_NONE.search(text) is not None


def _content_restricted(text: str, view: RequestView) -> bool:
    """'Include no customer PII.' and a message whose body holds an SSN: a rule on what content
    may hold speaks to every request carrying free text, whatever words they share (it had been
    left out as irrelevant, and the message approved by the policy's other rules)."""
    if not _restricts_content(text):
        return False
    return _free_text_shown(view)


def _free_text_shown(view: RequestView) -> bool:
    """Whether the request carries free text (a string of more than 12 characters and a space)."""
    return any(
        isinstance(v, str) and len(v) > 12 and " " in v.strip()
        for leaf in view.leaves
        for v in scalars(leaf.value)
    )


_IDENTIFIER_IN_TEXT = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
# 'okta has to be in the systems list' and `systems: [...]`: a plain word that is an argument's
# whole name ('systems' is a generic stem, so the rule had shared no word with the request)
_ARGUMENT_WORD = re.compile(r"\b[a-z][a-z0-9]{3,}\b")


def _argument_named(text: str, view: RequestView) -> bool:
    """'Only the policyholder or their agent of record may request; requested_by anything else ->
    review' and `requested_by: "spouse"`: a text rule naming one of the request's arguments by
    its exact name (an identifier, or a plain word that is the argument's whole name) speaks to
    it, whatever other words they share (its stems were all generic, so it had been left out as
    irrelevant and the request approved)."""
    named = _names_in(text)
    if not named:
        return False
    return _names_shown(named, view)


def _names_shown(named: frozenset[str], view: RequestView) -> bool:
    """Whether one of `named` is the whole name of an argument of the request."""
    shown = view.applicability_memo.get(_ARGUMENT_NAMES_KEY)
    if shown is None:  # the request's argument names, once per request
        shown = view.applicability_memo[_ARGUMENT_NAMES_KEY] = frozenset(
            re.sub(r"\[\d*\]", "", leaf.path.lower()).rsplit(".", 1)[-1] for leaf in view.leaves
        )
    return not named.isdisjoint(shown)


_ARGUMENT_NAMES_KEY = ("__argument_names__",)

_NUMBERS_KEY = ("__numbers_shown__",)


def _relevance_probes(rule: CompiledRule) -> tuple[_Probe, ...] | None:
    """The probes that may make `rule`, judged as text, speak to a request sharing none of its
    words (None: it speaks to every request of its policy)."""
    text = rule.text
    # jred22: a fallback covering every value its list leaves out ('USD or EUR only. Others need
    # Treasury review'), or an owner's line carrying a duty: its subject is the policy's
    if _covers_the_rest(rule):
        return None
    # Each probe's rule-side half (read from the words alone) is bound here, once per rule.
    probes: list[_Probe] = []
    places = _rule_places(text)
    if places:
        only = _PLACES_ONLY.search(text) is not None
        probes.append(lambda r, v: _places_shown(places, only, v))
    if _restricts_content(text):
        probes.append(lambda r, v: _free_text_shown(v))
    named = _names_in(text)
    if named:
        probes.append(lambda r, v: _names_shown(named, v))
    if speaks_of_network(text):
        # a rule on ports or prefixes and a request carrying one (netranges.py)
        probes.append(lambda r, v: network_shown(r.text, v))
    numbers = _rule_numbers(text)
    if numbers:
        probes.append(lambda r, v: _numbers_shown(numbers, v))
    if not rule.decides and any(
        c.effect != "allow" and isinstance(c, NumericLimit) for c in rule.checks
    ):
        # jred22: a partly understood rule whose own bound fires on the request ('Requests above
        # 5k are refused if no PO' and an amount of 6,000)
        probes.append(_own_reading_fires)
    if rule.understanding != "understood":
        # not read, but about the requesting agent (agentrules.reaches_agent)
        probes.append(lambda r, v: agentrules.reaches_agent(r.text, v.agent_id))
    return tuple(probes)


def _own_reading_fires(rule: CompiledRule, view: RequestView) -> bool:
    """Whether a rule judged as text holds a check of its own that would deny or send the
    request to review: 'Requests above 5k are refused if no PO' is partly understood (the PO is
    unread), yet its bound speaks to an amount of 6,000 whatever its subject words say."""
    if rule.decides or not rule.checks:
        return False
    for check in rule.checks:
        # only a bound: a partly understood rule's other readings may be the very misreading
        # that left it partly understood ('Reinstatement only after appeal_status = granted'
        # read as a list of one value, which every request breaks)
        if check.effect == "allow" or not isinstance(check, NumericLimit):
            continue
        try:
            outcome = check.evaluate(view)
        except HistoryUnavailable:
            raise
        except Exception:  # noqa: BLE001 - a check that breaks cannot set a rule aside
            return True
        status = outcome.status
        if status in (VIOLATED, REVIEW) or (status == UNKNOWN and outcome.args):
            # UNKNOWN on an argument it read ('the rule names no currency and amount is in
            # USD'): the check reached the request and could not clear it
            return True
    return False


# 'Others need Treasury review', 'the rest -> Tax team', 'all other currencies': a fallback
# speaks to every value the rule's list leaves out, so no request is outside such a rule
_FALLBACK = re.compile(
    r"\b(?:others|the\s+rest|anything\s+else|everything\s+else|all\s+other|any\s+other|"
    r"otherwise)\b",
    re.I,
)


def _covers_the_rest(rule: CompiledRule) -> bool:
    """Whether a rule not fully read has a fallback ('others -> review') it could not read, or is
    an owner's or a contact's line that carries a duty ('Policy owner: Legal (sign-off
    required)', 'Contact: Treasury for wires above 10k'): its subject, if any, is the policy's."""
    if rule.understanding not in ("partly_understood", "not_understood"):
        return False
    return _fallback_in(rule.text) or _owner_duty(rule.text)


@lru_cache(maxsize=65536)
def _fallback_in(text: str) -> bool:
    """A fallback after the list of codes it completes, in the same rule ('USD or EUR only.
    Others need Treasury review'): 'Anything else has to be escalated' alone completes another
    rule's list, which that rule reads; 'requested_by anything else -> review' completes an
    argument the request may not carry (engine._argument_named decides that one)."""
    m = _FALLBACK.search(text)
    return m is not None and re.search(r"\b[A-Z]{2,4}\b", text[: m.start()]) is not None


@lru_cache(maxsize=65536)
def _owner_duty(text: str) -> bool:
    return OWNER_LABEL.match(text) is not None and not ownership_note(text)


# 'Inbound from anywhere to 22 or 3389 is forbidden' and `dest_port: 3389`: a number the rule
# names and the request carries (two digits or more: a '1' or a '5' is everywhere)
_RULE_NUMBER = re.compile(r"(?<![\w.,/])\d{2,}(?![\w,/]|\.\d)")


@lru_cache(maxsize=65536)
def _rule_numbers(text: str) -> frozenset[str]:
    return frozenset(m.lstrip("0") or "0" for m in _RULE_NUMBER.findall(text))


def _number_shown(text: str, view: RequestView) -> bool:
    """Whether a rule names a whole number (of two digits or more) the request carries as a value."""
    named = _rule_numbers(text)
    if not named:
        return False
    return _numbers_shown(named, view)


def _numbers_shown(named: frozenset[str], view: RequestView) -> bool:
    """Whether the request carries one of the whole numbers `named` as a value."""
    shown = view.applicability_memo.get(_NUMBERS_KEY)
    if shown is None:
        found: set[str] = set()
        for leaf in view.leaves:
            for v in scalars(leaf.value):
                if isinstance(v, bool):
                    continue
                if isinstance(v, int) or (isinstance(v, float) and v.is_integer()):
                    found.add(str(int(v)))
                elif isinstance(v, str) and v.strip().isdigit():
                    found.add(v.strip().lstrip("0") or "0")
        shown = view.applicability_memo[_NUMBERS_KEY] = frozenset(found)
    return not named.isdisjoint(shown)


@lru_cache(maxsize=65536)
def _names_in(text: str) -> frozenset[str]:
    """The words of a rule that may be an argument's whole name, once per rule text."""
    return frozenset(m.group(0).lower() for m in _IDENTIFIER_IN_TEXT.finditer(text)) | frozenset(
        _ARGUMENT_WORD.findall(text.lower())
    )


def _place_shown(text: str, view: RequestView) -> bool:
    """'Anything pulling data on EU residents goes through the DPO first' and a query filtered on
    `country: "FR"`: a text rule naming a place the request shows a place inside speaks to it,
    whatever words they share (it had been left out as irrelevant, and the request approved)."""
    places = _rule_places(text)
    if not places:
        return False
    return _places_shown(places, _PLACES_ONLY.search(text) is not None, view)


def _places_shown(places: frozenset[str], only: bool, view: RequestView) -> bool:
    """`_place_shown` of a rule naming `places`; `only`: its words list the places allowed."""
    shown = view.applicability_memo.get(_PLACES_KEY)
    if shown is None:
        shown = set()
        for leaf in view.leaves:
            for v in scalars(leaf.value):
                if isinstance(v, str) and 2 <= len(v) <= 40:
                    loc = location_regions(v)
                    if loc is not None:
                        shown |= loc[1] | ({loc[0]} if loc[0] else set())
        view.applicability_memo[_PLACES_KEY] = shown = frozenset(shown)
    if shown and only:
        # 'Payouts only to US, UK or EU member states' and `bank_country: "BR"`: a list of the
        # places allowed speaks to a request in any place, above all one it does not list (left
        # out as sharing no word with a withdrawal, the request to Brazil was approved)
        return True
    return not places.isdisjoint(shown)


_PLACES_ONLY = re.compile(
    r"\bonly\b|\bmust\s+(?:be|stay|remain|go)\b|\boutside\b|\bother\s+than\b|\bexcept\b|"
    r"\bnon-|\bnot\s+in\b|\belsewhere\b|\bothers?\b",
    re.I,
)


_PLACES_KEY = ("__places_shown__",)


def _rule_stems(text: str) -> frozenset[str]:
    stems = frozenset(content_stems(text)) - GENERIC
    # 'Waivers over $100 - supervisor' on billing_waive_fee: the act named by its '-er' noun (as
    # RequestView.term_matches reads it); left out as irrelevant, a waiver of 150 was approved
    # 'Write-offs up to £250 …' on overpayments.writeoff: a hyphenated word is also the one word
    # a tool or an argument writes it as (left out as irrelevant, a write-off of 640 was approved)
    joined = frozenset(stem(m.group(1) + m.group(2)) for m in _HYPHENATED.finditer(text.lower()))
    return stems | joined | frozenset(s[:-2] for s in stems if len(s) >= 6 and s.endswith("er"))


_HYPHENATED = re.compile(r"\b([a-z]{2,})-([a-z]{2,})\b")


def _coverage_confidence(covering: list[_Finding], irrelevant_text: int) -> float:
    if not covering:
        return CONFIDENCE_NO_COVERAGE
    constraints = [f for f in covering if f.outcome.status == SATISFIED]
    base = CONFIDENCE_FULL_COVERAGE if constraints else CONFIDENCE_PERMISSION_ONLY
    return base - min(MAX_TEXT_RULE_PENALTY, PENALTY_PER_IRRELEVANT_TEXT_RULE * irrelevant_text)


def _reason(prefix: str, basis: list[_Finding]) -> str:
    parts = []
    for f in basis[:3]:
        why = f": {f.outcome.message}" if f.outcome.message else ""
        parts.append(f"policy '{f.policy.policy.policy_id}' rule \"{f.rule.text}\"{why}")
    more = f" (and {len(basis) - 3} more)" if len(basis) > 3 else ""
    return f"{prefix} by " + "; ".join(parts) + more


def _out_of_reach_reason(reached_out: list[_Finding]) -> str:
    parts = [
        f"policy '{f.policy.policy.policy_id}' rule \"{f.rule.text}\" does not reach this request "
        f"({f.outcome.message})"
        for f in reached_out[:3]
    ]
    more = f" (and {len(reached_out) - 3} more)" if len(reached_out) > 3 else ""
    return "Allowed: " + "; ".join(parts) + more


def _also(text_rules: list[_Finding]) -> str:
    if not text_rules:
        return ""
    names = "; ".join(f"'{f.rule.text}'" for f in text_rules[:3])
    return f"; policy text the engine could not decide also applies: {names}"


def _refs(findings: list[_Finding], refs: tuple[str, ...]) -> list[_Finding]:
    chosen = [f for f in findings if f.rule.chunk_id in refs]
    return chosen or findings


class _Scores:
    """Retrieval scores of the governing rules, normalised to [0, 1], looked up only when needed."""

    __slots__ = ("_raw", "_values", "_position", "_top")

    def __init__(self, raw: np.ndarray, position: dict[str, int]) -> None:
        self._raw = raw
        # Evidence reads a score for most governing rules; one tolist() is far cheaper than a
        # NumPy scalar conversion per read.
        self._values: list[float] = raw.tolist()
        self._position = position
        self._top = max(self._values, default=0.0)

    def top(self, k: int) -> list[str]:
        """Chunk ids of the `k` best-scoring rules with a score above 0."""
        if not self._values or self._top <= 0:
            return []
        ids = list(self._position)
        order = np.argsort(-self._raw, kind="stable")[:k]
        return [ids[i] for i in order.tolist() if self._values[i] > 0]

    def get(self, chunk_id: str, default: float = 0.0) -> float:
        i = self._position.get(chunk_id)
        if i is None or self._top <= 0:
            return default
        return self._values[i] / self._top


def _rule_scores(governing: tuple[CompiledPolicy, ...], request_text: str) -> _Scores:
    key = tuple(cp.policy.policy_version_id for cp in governing)
    with _cache_lock:
        cached = _index_cache.get(key)
    if cached is None:
        # One chunk per rule: a version passed twice scores its rules once, so that the scores
        # and the chunk ids stay aligned (before, `_Scores.top` indexed past the ids).
        distinct = {cp.policy.policy_version_id: cp for cp in governing}.values()
        chunks = [Chunk(r.chunk_id, r.text) for cp in distinct for r in cp.rules]
        cached = (BM25Index(chunks), {c.chunk_id: i for i, c in enumerate(chunks)})
        with _cache_lock:
            _index_cache[key] = cached
            if len(_index_cache) > _CACHE_SIZE:
                _index_cache.popitem(last=False)
    index, position = cached
    return _Scores(index.scores(request_text), position)


def _citations(basis: list[_Finding], scores: _Scores) -> tuple[Citation, ...]:
    seen: set[str] = set()
    out = []
    if len(basis) > CITATION_LIMIT:  # many satisfied rules: cite the most relevant ones
        basis = sorted(basis, key=lambda f: -scores.get(f.rule.chunk_id, 0.0))
    for f in basis:
        if len(out) >= CITATION_LIMIT:
            break
        cid = f.rule.chunk_id
        if cid in seen:
            continue
        seen.add(cid)
        out.append(
            Citation(
                f.policy.policy.policy_id,
                f.policy.policy.policy_version_id,
                cid,
                f.rule.text,
                round(scores.get(cid, 0.0), 4),
            )
        )
    return tuple(out)


def _finding_detail(f: _Finding) -> dict[str, Any]:
    return {
        "chunk_id": f.rule.chunk_id,
        "policy_id": f.policy.policy.policy_id,
        "check": f.check.kind if f.check else "text",
        "effect": f.check.effect if f.check else "",
        "outcome": f.outcome.status,
        "message": f.outcome.message,
        "args": list(f.outcome.args),
    }


def _unfound_top(
    governing: tuple[CompiledPolicy, ...],
    scores: _Scores,
    where: dict[str, tuple[CompiledPolicy, CompiledRule]],
) -> list[str]:
    """Ids of the best-scoring rules that gave no finding; `where` learns their rules."""
    top = [cid for cid in scores.top(EVIDENCE_LIMIT) if cid not in where]
    if top:
        wanted = set(top)
        for cp in governing:
            for r in cp.rules:
                if r.chunk_id in wanted and r.chunk_id not in where:
                    where[r.chunk_id] = (cp, r)
    return top


_EVIDENCE_RANK = {
    NOT_APPLICABLE: 0,
    UNBOUND: 0,
    SATISFIED: 1,
    PERMITTED: 1,
    UNKNOWN: 2,
    REVIEW: 3,
    VIOLATED: 4,
}


def _evidence(
    governing: tuple[CompiledPolicy, ...],
    findings: list[_Finding],
    relevant_text: list[_Finding],
    scores: _Scores,
    documents: HybridIndex | None,
    request_text: str,
) -> tuple[dict, ...]:
    rank = _EVIDENCE_RANK
    outcome_of: dict[str, str] = {}
    where: dict[str, tuple[CompiledPolicy, CompiledRule]] = {}
    for f in findings + relevant_text:
        cid = f.rule.chunk_id
        prev = outcome_of.get(cid)
        if prev is None or rank[f.outcome.status] > rank[prev]:
            outcome_of[cid] = f.outcome.status
        where[cid] = (f.policy, f.rule)
    # Evidence is ordered by outcome first, then score, so scores are read only for the outcome
    # levels that fill the EVIDENCE_LIMIT places, not for every rule that gave a finding.
    levels: list[list[str]] = [[] for _ in range(max(rank.values()) + 1)]
    for cid, status in outcome_of.items():
        levels[rank[status]].append(cid)
    chosen: list[dict] = []
    for level in range(len(levels) - 1, -1, -1):
        if len(chosen) >= EVIDENCE_LIMIT:
            break
        cids = levels[level]
        if level == 0:
            # Well-scoring rules that gave no finding rank lowest: look them up only when there
            # is room left for them.
            cids = cids + _unfound_top(governing, scores, where)
        ranked = []
        for cid in cids:
            score = scores.get(cid, 0.0)
            outcome = outcome_of.get(cid)
            if outcome is None:
                if score <= 0:
                    continue
                outcome = "text" if where[cid][1].uncompiled else NOT_APPLICABLE
            ranked.append((-score, cid, outcome, score))
        ranked.sort(key=itemgetter(0, 1))  # chunk ids are unique: a complete order
        for _, cid, outcome, score in ranked[: EVIDENCE_LIMIT - len(chosen)]:
            cp, r = where[cid]
            chosen.append(
                {
                    "policy_id": cp.policy.policy_id,
                    "policy_version_id": cp.policy.policy_version_id,
                    "chunk_id": r.chunk_id,
                    "text": r.text,
                    "score": round(score, 4),
                    "compiled": bool(r.checks) and not r.uncompiled,
                    "outcome": outcome,
                }
            )
    if documents is not None:
        chosen += _document_evidence(governing, documents, request_text)
    return tuple(chosen)


def _document_evidence(
    governing: tuple[CompiledPolicy, ...], documents: HybridIndex, request_text: str
) -> list[dict]:
    """Ingested document chunks of the governing versions that match the request."""
    chosen: list[dict] = []
    if documents is not None:
        allowed = {cp.policy.policy_version_id for cp in governing}
        for hit in documents.search(request_text, k=5):
            meta = hit.chunk.metadata
            if meta.get("policy_version_id") not in allowed:
                continue
            chosen.append(
                {
                    "policy_id": str(meta.get("policy_id", "")),
                    "policy_version_id": str(meta.get("policy_version_id", "")),
                    "chunk_id": hit.chunk.chunk_id,
                    "text": hit.chunk.text[:2000],
                    "score": round(hit.score, 6),
                    "compiled": False,
                    "outcome": "document",
                }
            )
    return chosen


def _distinct_versions(governing: tuple[CompiledPolicy, ...]) -> bool:
    """Whether no policy version governs twice (then every chunk id names one rule)."""
    versions = {cp.policy.policy_version_id for cp in governing}
    return len(versions) == len(governing)


def _evidence_by_level(
    governing: tuple[CompiledPolicy, ...],
    levels: tuple[list[_Finding], ...],
    scores: _Scores,
    documents: HybridIndex | None,
    request_text: str,
) -> tuple[dict, ...]:
    """The evidence `_evidence` gives, from the findings already sorted by outcome.

    `levels` holds the findings by their rank in `_EVIDENCE_RANK`, highest first (violated;
    review; unknown and relevant text; satisfied and permitted). A rule counts at the highest
    level of its findings, with the first outcome it gave there; the levels are filled in turn,
    each by score, until EVIDENCE_LIMIT places are taken, so the findings of the lower levels
    (often a hundred satisfied checks) are not looked at once the places are full. Only for
    distinct policy versions, where a chunk id names one rule.
    """
    where: dict[str, tuple[CompiledPolicy, CompiledRule]] = {}
    chosen: list[dict] = []
    for level in levels:
        if len(chosen) >= EVIDENCE_LIMIT:
            break
        fresh: dict[str, str] = {}
        for f in level:
            cid = f.rule.chunk_id
            if cid not in where:
                where[cid] = (f.policy, f.rule)
                fresh[cid] = f.outcome.status
        chosen += _ranked_evidence(fresh, where, scores, EVIDENCE_LIMIT - len(chosen))
    if len(chosen) < EVIDENCE_LIMIT:
        # Well-scoring rules that gave no finding rank lowest: looked up only when there is room.
        unfound: dict[str, str] = {}
        for cid in _unfound_top(governing, scores, where):
            if scores.get(cid, 0.0) > 0:
                unfound[cid] = "text" if where[cid][1].uncompiled else NOT_APPLICABLE
        chosen += _ranked_evidence(unfound, where, scores, EVIDENCE_LIMIT - len(chosen))
    if documents is not None:
        chosen += _document_evidence(governing, documents, request_text)
    return tuple(chosen)


def _ranked_evidence(
    outcome_of: dict[str, str],
    where: dict[str, tuple[CompiledPolicy, CompiledRule]],
    scores: _Scores,
    room: int,
) -> list[dict]:
    """The `room` best-scoring of `outcome_of`'s rules as evidence entries (ties by chunk id)."""
    ranked = sorted((-scores.get(cid, 0.0), cid) for cid in outcome_of)
    out = []
    for neg, cid in ranked[:room]:
        cp, r = where[cid]
        out.append(
            {
                "policy_id": cp.policy.policy_id,
                "policy_version_id": cp.policy.policy_version_id,
                "chunk_id": r.chunk_id,
                "text": r.text,
                "score": round(-neg, 4),
                "compiled": bool(r.checks) and not r.uncompiled,
                "outcome": outcome_of[cid],
            }
        )
    return out
