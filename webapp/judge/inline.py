"""Prose rules with an argument condition written inline, without brackets.

Staff mix notation into prose: "No port-out while balance_due_cents > 0 unless
payment_arrangement = true", "NEVER upgrade if sanctions_screen = hit OR pending", "lock_reason
fraud -> never via agent", "2FA reset where account_balance_usd > 50k: second approver",
"id_verified must be TRUE before any swap", "kyc_tier 2+ only", "credit_type goodwill -> only if
tenure_months >= 12". `notation.py` reads a rule only when every statement is notation, and the
prose readings leave the argument and its values unaccounted, so such rules were judged as text.

A rule is read here whole or not at all, as one of the shapes `_statement` lists, and only when
neither notation nor the prose readings understood it (compiler.compile_rule). A shape is made of:
- a **condition** on named arguments, parsed by notation's own grammar (`parse_condition`) after a
  few prose spellings of it are rewritten into notation (`_as_notation`: "x is true", "x is on",
  "x = a OR b", "x is a, b or c", "x 2+", "x value"); every argument it names has an argument's
  shape (an underscore or a dot), no plain noun of prose; it is exact on the named argument as
  notation is (missing, another type or case: unknown, never satisfied);
- an **act** the rule speaks of ("port-out", "upgrade", "margin changes", "2FA reset", "Market
  orders", "close the account"): its own word and the words qualifying it, each of which holds
  only for a stated reason (`_act_word`): a word of the tool name, the value of the request's
  kind argument (`type`, `action`, `direction` …; for a qualifier, the kind of what the act
  names: `order_type` for "Market orders"), a flag of that name. The act's own word is false when
  the kind argument is one plain word of another act, or when it is a known act and the request
  surely does another one (`RequestView.other_action`); a qualifier is never false; otherwise
  unknown;
- an **effect**: a refusal ("no …", "never …", "never via agent", "DENY", "not while …"), a review
  (notation's `_effect`: "MLRO approval required", "second approver"; "Hold …"), a requirement
  ("only if …", "x must be true", "x must be a or b", "… otherwise DO NOT process"), with
  "unless …" / "without …" as the exception.
Anything else the rule says makes it no shape: it is left to the other readings (partly
understood), so a word the structure does not read is never dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from webapp.judge.checks import REVIEW, SATISFIED, UNKNOWN, VIOLATED, Check, Outcome
from webapp.judge.notation import (
    _KIND_NAMES,
    _effect,
    _eval,
    _Fail,
    _leaves_for,
    _numeric_atoms,
    _paths,
    parse_condition,
    render,
)
from webapp.judge.request_view import ACT_STEMS, RequestView, same_action
from webapp.judge.text import STOPWORDS, content_stems, stem

# an argument's name: an underscore or a dot in it ('balance_due_cents', 'beneficiary.iban')
_ARGNAME = r"[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+"
# a value written bare ('hit', 'aml_hold', 'for_cause', 'GOODWILL', '2')
_VALUE = r"[A-Za-z0-9][A-Za-z0-9_\-]*"
# words that are never a bare value: a comparison, a quantity or a sentence's glue
_NOT_VALUES = frozenset(
    """above below over under at more less greater fewer between in not no one set missing
    empty present given null none blank any a an the and or if when while unless only must
    should may can is are be than then true false yes""".split()
)
_OPERATOR_AFTER = r"(?![\w\-])(?!\s*(?:[=<>!\u2265\u2264\u2260]|\bis\b|\bin\b|\bnot\b))"


def _value_ok(v: str) -> bool:
    return v.lower() not in _NOT_VALUES and v.lower() not in STOPWORDS


def _or_list(m: re.Match) -> str:
    values = [v for v in re.split(r"\s*(?:,|\bor\b)\s*", m.group("vals"), flags=re.I) if v]
    if not all(_value_ok(v) for v in values):
        return m.group(0)
    negated = bool(m.group("neg"))
    return f"{m.group('arg')} {'not in' if negated else 'in'} {{{', '.join(values)}}}"


_ONOFF = {"on": "true", "enabled": "true", "off": "false", "disabled": "false"}


def _as_notation(text: str) -> str:
    """Prose spellings of a condition rewritten into notation, or the text unchanged."""
    t = text.strip()
    # 'liquidation_flag is true', 'is not true', 'legal_hold is on'
    t = re.sub(
        rf"\b({_ARGNAME})\s+is\s+(not\s+)?(true|false|on|off|enabled|disabled)\b(?![\w\-])",
        lambda m: (
            f"{m.group(1)} {'!=' if m.group(2) else '=='} "
            f"{_ONOFF.get(m.group(3).lower(), m.group(3).lower())}"
        ),
        t,
        flags=re.I,
    )
    # 'sanctions_screen = hit OR pending', 'account_status is suspended, collections or
    # fraud_review': one argument, several values
    t = re.sub(
        rf"\b(?P<arg>{_ARGNAME})\s*(?:==?|\bis\b(?P<neg>\s+not)?)\s*"
        rf"(?P<vals>{_VALUE}(?:\s*(?:,|\bor\b)\s*{_VALUE})+)" + _OPERATOR_AFTER,
        _or_list,
        t,
        flags=re.I,
    )
    # 'hold_reason is risk_review_cleared', 'lock_reason is not fraud'
    t = re.sub(
        rf"\b({_ARGNAME})\s+is\s+(not\s+)?({_VALUE})" + _OPERATOR_AFTER,
        lambda m: (
            m.group(0)
            if not _value_ok(m.group(3))
            else f"{m.group(1)} {'!=' if m.group(2) else '=='} {m.group(3)}"
        ),
        t,
        flags=re.I,
    )
    # 'kyc_tier 2+', 'kyc_tier 2 or more'
    t = re.sub(rf"\b({_ARGNAME})\s+(\d+)\s*\+", r"\1 >= \2", t)
    t = re.sub(rf"\b({_ARGNAME})\s+(\d+)\s+or\s+(?:more|above|higher|greater)\b", r"\1 >= \2", t)
    t = re.sub(rf"\b({_ARGNAME})\s+(\d+)\s+or\s+(?:less|below|lower|fewer)\b", r"\1 <= \2", t)
    # 'lock_reason fraud': an argument and its value, nothing else
    m = re.fullmatch(rf"({_ARGNAME})\s+({_VALUE})", t)
    if m and _value_ok(m.group(2)) and not re.fullmatch(r"[a-z]+[^su]s", m.group(2)):
        # not a plural noun: 'exec_office escalations' names the requests (escalations to the
        # exec_office queue), not a value of an argument named exec_office
        t = f"{m.group(1)} == {m.group(2)}"
    return t


def _condition(text: str) -> tuple:
    """The condition tree of a prose-spelled condition; raise _Fail unless every atom is on an
    argument-shaped name (no plain noun of prose, no bare word)."""
    tree = parse_condition(_as_notation(text))
    for atom in _numeric_atoms(tree):
        if not re.fullmatch(_ARGNAME, atom[1]):
            raise _Fail(atom[1])
        if atom[0] == "cmp" and atom[4] == "path" and not re.fullmatch(_ARGNAME, atom[3]):
            raise _Fail(atom[3])  # 'x == pending' read as another argument
    return tree


# -- acts

# 'port-out', 'upgrade', 'margin changes', '2FA reset', 'Market orders', 'limit increases'
_ACT = r"(?P<act>[A-Za-z0-9][A-Za-z0-9\-]*(?:\s+(?:the|an?|any))?(?:\s+[A-Za-z][A-Za-z\-]*){0,2})"
# words that can never be an act's: glue, comparison, quantity, obligation
_NOT_ACT = frozenset(
    stem(w)
    for w in """above below over under more less than greater fewer exceed exceeding at least
    most up to within only must may can should never not no any all every each if when while
    unless where with without via by for from of on in into before after than then otherwise
    else agent agents bot bots allowed permitted required approval review be is are true false
    kind sort type ever exceptions exception deny denied reject refuse decline block approve
    approved""".split()
)  # the last row: the judge's own effects are no act of a tool ('Never deny cancellation …')


def _act_words(phrase: str) -> tuple[str, ...] | None:
    """The words of an act ('port-out' → port, '2FA reset' → 2fa, reset), or None when a word
    of it cannot be an act's ('upgrade to premium': a destination, not an act)."""
    tokens = phrase.split()
    verb_first = len(tokens) > 2 and tokens[1].lower() in ("the", "a", "an", "any")
    if verb_first:
        # 'close the account', 'unlock an account': the verb is the act, its object qualifies it
        # (kept last, where the act's own word stands)
        tokens = [*tokens[2:], tokens[0]]
    out = []
    for token in tokens:
        parts = [p.lower() for p in token.split("-") if p]
        if len(parts) > 1:
            parts = [p for p in parts if p not in STOPWORDS]  # 'port-out': the particle
        for low in parts:
            if (
                low in STOPWORDS
                or stem(low) in _NOT_ACT
                or not re.fullmatch(r"[a-z0-9]+", low)
                or low.isdigit()
            ):
                return None
            out.append(low)
    return tuple(out) if out else None


def _kind_leaf(path: str) -> bool:
    """An argument naming the kind of the request itself (`type`, `action`, `direction`,
    `change_type` …; notation's `_KIND_NAMES`)."""
    return bool(_KIND_NAMES.fullmatch(path.rsplit(".", 1)[-1]))


def _names_kind_of(path: str, noun: str) -> bool:
    """`order_type` for 'orders': an argument naming the kind of the thing `noun` names."""
    m = re.fullmatch(r"([a-z]+)_(?:type|kind)", path.rsplit(".", 1)[-1])
    return bool(m) and stem(m.group(1)) == stem(noun)


def _abbreviates(word: str, value: str) -> bool:
    """'mkt' for 'market': the word's letters in order in the value, from its first letter."""
    value = value.lower()
    if not value or value[0] != word[0]:
        return False
    pos = 0
    for ch in word:
        pos = value.find(ch, pos)
        if pos < 0:
            return False
        pos += 1
    return True


def _act_word(word: str, view: RequestView, notes: list[str], head: str = "") -> bool | None:
    """Whether the request is what `word` names: True, False, or None (nobody says).

    `head` is empty for the act's own word (the last word: 'orders', 'reset', 'upgrade') and
    the act's word for a qualifier of it ('Market' orders, '2FA' reset, 'margin' changes): a
    qualifier holds by the tool name or the kind of what the act names (`order_type`), and is
    never false (unknown otherwise)."""
    s = stem(word)
    if s in view.tool_stems or word in view.tool_stems:
        notes.append(f"the tool {view.tool_name} names {word}")
        return True
    # the kind of the request (`direction`, `change_type` …) or, for a qualifier, the kind of
    # what the act names (`order_type` for 'Market orders')
    kinds = [
        lf
        for lf in view.leaves
        if isinstance(lf.value, str)
        and (_names_kind_of(lf.path, head) if head else _kind_leaf(lf.path))
    ]
    for lf in kinds:
        value = lf.value.strip()
        if value.lower() == word or s in content_stems(value[:200]):
            if value != value.lower():
                notes.append(f"{lf.path} = {lf.value!r} is not written as {word!r}")
                return None  # 'Upgrade', 'MARKET': another case, a human says
            notes.append(f"{lf.path} = {lf.value!r}")
            return True
    if not head:
        flags = _leaves_for(view, word)
        if len(flags) == 1 and isinstance(flags[0].value, bool):
            notes.append(f"{flags[0].path} = {flags[0].value!r}")
            return flags[0].value
    # Another kind rules the act out ('upgrade' against `direction: "downgrade"`); never a
    # qualifier: 'Large orders' against `order_type: "limit"` (a size is no order type) would
    # have passed a large limit order by, so a qualifier is true or unknown, never false.
    # One plain word ('downgrade'), never a compound that may name the act another way
    # ('tier_increase' for an upgrade), nor a word of the same act.
    if (
        not head
        and len(kinds) == 1
        and re.fullmatch(r"[a-z]+", kinds[0].value)
        and not same_action(s, stem(kinds[0].value))
    ):
        value = kinds[0].value
        if not (_abbreviates(word, value) or _abbreviates(value, word)) and not any(
            isinstance(o.value, str) and word in o.value.lower() for o in view.leaves
        ):
            notes.append(f"{kinds[0].path} = {value!r}, not {word!r}")
            return False
    if not head and s in ACT_STEMS:
        other = view.other_action(frozenset({s}))
        if other:
            notes.append(f"the request is a {', '.join(sorted(other))}, not a {word}")
            return False
    if head:
        notes.append(f"no argument says whether the {head} is {word}")
    else:
        notes.append(f"no argument says whether the request is a {word}")
    return None


def _act(words: tuple[str, ...], view: RequestView, notes: list[str]) -> list[bool | None]:
    """Each word of the act: the last is the act's own, the others qualify it."""
    head = words[-1] if words else ""
    return [
        _act_word(w, view, notes, "" if i == len(words) - 1 else head) for i, w in enumerate(words)
    ]


def _all(results: list[bool | None]) -> bool | None:
    if any(r is False for r in results):
        return False
    return None if any(r is None for r in results) else True


# -- the check

_VERBS = {"deny": "Deny", "review": "Send to review"}


@dataclass(frozen=True)
class InlineRule(Check):
    """A prose rule with its condition written inline: it fires when the request is the act
    (`acts`, every word) and `when` holds and `unless` does not."""

    act: str = ""  # the rule's words for the act, as written
    acts: tuple[str, ...] = ()
    when: tuple = ()
    unless: tuple = ()
    kind: str = field(default="inline", init=False)

    @property
    def _flag_like(self) -> tuple[str, ...]:
        return tuple(
            v
            for c in (self.when, self.unless)
            if c
            for a in _numeric_atoms(c)
            if a[0] == "in"
            for v in a[3]
            if "_" in v
        )

    def describe(self) -> dict:
        d = super().describe()
        d.update(act=self.act, when=render(self.when) if self.when else "")
        d.update(unless=render(self.unless) if self.unless else "")
        return d

    def reading(self) -> str:
        parts = []
        if self.acts:
            parts.append(
                f"the request is \u201c{self.act}\u201d (its tool name or kind argument says so)"
            )
        if self.when:
            parts.append(render(self.when))
        text = _VERBS[self.effect]
        if parts:
            text += " when " + " and ".join(parts)
        if self.unless:
            text += f"{',' if parts else ''} unless {render(self.unless)}"
        return text

    def evaluate(self, view: RequestView) -> Outcome:
        notes: list[str] = []
        for value in self._flag_like:
            if _leaves_for(view, value):
                # 'sanctions_screen = hit or pep_match' beside a `pep_match` argument: a value
                # of the list, or a flag of its own? A human says.
                return Outcome(UNKNOWN, f"`{value}` is both a listed value and an argument")
        results: list[bool | None] = _act(self.acts, view, notes)
        if self.when:
            results.append(_eval(self.when, view, notes))
        if self.unless and _all(results) is not False:
            held = _eval(self.unless, view, notes)
            results.append(None if held is None else not held)
        fires = _all(results)
        args = tuple(
            p for c in (self.when, self.unless) if c for p in _paths(c) if _leaves_for(view, p)
        )
        message = "; ".join(notes)
        if fires is None:
            return Outcome(UNKNOWN, message, args)
        if not fires:
            from webapp.judge.pairs import contrary_status

            for p in args:
                other = contrary_status(p, view)
                if other is not None:
                    return Outcome(UNKNOWN, other, args)
            return Outcome(SATISFIED, message, args)
        return Outcome(VIOLATED if self.effect == "deny" else REVIEW, message, args)


# -- shapes

_NEG = r"(?:no|never|do\s+not|don't|not)"
_ARROW = r"\s*(?:->|=>|\u2192|:)\s*"
# what only widens an act: 'at all', 'of any kind'
_WIDE = r"(?:\s+at\s+all)?(?:\s*,?\s*of\s+any\s+(?:kind|sort|type))?"
_VACUOUS_AGENT = re.compile(
    rf"^{_NEG}\s+(?:via|by|through|for)\s+(?:an?\s+|the\s+)?(?:ai\s+)?(?:agents?|bots?)$", re.I
)
_ONE = rf"(?:{_VALUE}|'[^']+'|\"[^\"]+\")"
_MUST_BE = re.compile(
    rf"^(?P<arg>{_ARGNAME}|[a-z]+)\s+must\s+be\s+(?:(?P<one_of>one\s+of)\s*:?\s*)?"
    rf"(?P<val>{_ONE}(?:\s*(?:,|\bor\b)\s*{_ONE})*)"
    r"(?:\s*,?\s*otherwise\s+(?:do\s+not\s+(?:process|proceed|approve)|deny|block|reject))?$",
    re.I,
)


@dataclass
class _Reading:
    effect: str
    act: str = ""
    acts: tuple[str, ...] = ()
    when: tuple = ()
    unless: tuple = ()


def _requirement(text: str) -> tuple | None:
    """'x must be true', 'offer_status must be extended or accepted', 'x must be one of a, b'
    → the condition that must hold; None when not that shape."""
    m = _MUST_BE.fullmatch(text.strip())
    if not m:
        return None
    arg, val = m.group("arg"), m.group("val")
    values = [v for v in re.split(r"\s*(?:,|\bor\b)\s*", val, flags=re.I) if v]
    flag = len(values) == 1 and val.lower() in ("true", "false")
    if not flag and not all(v[0] in "'\"" or _value_ok(v) for v in values):
        return None
    if m.group("one_of") and len(values) < 2:
        return None
    if "_" not in arg and "." not in arg and (not flag or arg.lower() != arg or arg in _NOT_VALUES):
        return None  # 'Payment must be approved': a plain noun, no argument
    try:
        if len(values) > 1:
            return _condition(f"{arg} = {' or '.join(values)}")
        return parse_condition(f"{arg} == {val}")
    except _Fail:
        return None


def _effect_reading(text: str) -> _Reading | None:
    """The effect after an arrow or a colon."""
    text = text.strip().rstrip(".!").strip()
    if _VACUOUS_AGENT.fullmatch(text):
        return _Reading("deny")
    m = re.fullmatch(rf"{_NEG}\s+{_ACT}{_WIDE}", text, re.I)
    if m:
        acts = _act_words(m.group("act"))
        if acts:
            return _Reading("deny", m.group("act"), acts)
        return None
    # 'deletes: not while legal_hold is on'
    m = re.fullmatch(rf"{_NEG}\s+(?:if|when|while|whilst)\s+(?P<c>.+)", text, re.I)
    if m:
        try:
            return _Reading("deny", when=_condition(m.group("c")))
        except _Fail:
            return None
    m = re.fullmatch(r"only\s+(?:if|when)\s+(?P<c>.+)", text, re.I)
    if m:
        try:
            return _Reading("deny", unless=_condition(m.group("c")))
        except _Fail:
            return None
    req = _requirement(text)
    if req is not None:
        return _Reading("deny", unless=req)
    eff = _effect(text)
    if eff is not None and eff[0] in ("deny", "review"):
        return _Reading(eff[0])
    return None


def _and(*trees: tuple) -> tuple:
    parts = [t for t in trees if t]
    if not parts:
        return ()
    return parts[0] if len(parts) == 1 else ("and", *parts)


def _statement(text: str) -> _Reading | None:
    t = text.strip().rstrip(".!").strip()
    try:
        # 'No port-out while balance_due_cents > 0 unless payment_arrangement = true'
        m = re.fullmatch(
            rf"{_NEG}\s+{_ACT}{_WIDE}\s+(?:if|when|while|where|whilst)\s+(?P<c>.+?)"
            r"(?:\s+unless\s+(?P<u>.+))?",
            t,
            re.I,
        )
        if m and _act_words(m.group("act")):
            return _Reading(
                "deny",
                m.group("act"),
                _act_words(m.group("act")) or (),
                _condition(m.group("c")),
                _condition(m.group("u")) if m.group("u") else (),
            )
        # 'No refunds unless refund_approved = true', 'no erasure without identity_verified=true'
        m = re.fullmatch(rf"{_NEG}\s+{_ACT}\s+(?:unless|without)\s+(?P<u>.+)", t, re.I)
        if m and _act_words(m.group("act")):
            acts = _act_words(m.group("act")) or ()
            return _Reading("deny", m.group("act"), acts, unless=_condition(m.group("u")))
        # 'SIM swap blocked if account_status is suspended, collections or fraud_review'
        m = re.fullmatch(
            rf"{_ACT}\s+(?:is\s+|are\s+)?(?:blocked|denied|forbidden|prohibited|not\s+allowed|"
            r"not\s+permitted)\s+(?:if|when|while|whilst)\s+(?P<c>.+)",
            t,
            re.I,
        )
        if m and _act_words(m.group("act")):
            acts = _act_words(m.group("act")) or ()
            return _Reading("deny", m.group("act"), acts, _condition(m.group("c")))
        # 'Deny refunds if chargeback_open = true', 'Hold payouts while kyc_status = pending'
        m = re.fullmatch(
            rf"(?P<e>deny|block|reject|refuse|decline|hold)\s+{_ACT}\s+(?:if|when|while|whilst|where)"
            r"\s+(?P<c>.+)",
            t,
            re.I,
        )
        if m and _act_words(m.group("act")):
            acts = _act_words(m.group("act")) or ()
            effect = "review" if m.group("e").lower() == "hold" else "deny"
            return _Reading(effect, m.group("act"), acts, _condition(m.group("c")))
        # 'Refunds need manager approval if refund_amount > 500'
        m = re.fullmatch(
            rf"{_ACT}\s+(?:need|needs|require|requires)\s+(?P<e>.+?)\s+(?:if|when|where|while)"
            r"\s+(?P<c>.+)",
            t,
            re.I,
        )
        if m and _act_words(m.group("act")):
            eff = _effect(m.group("e"))
            if eff is not None and eff[0] == "review":
                acts = _act_words(m.group("act")) or ()
                return _Reading("review", m.group("act"), acts, _condition(m.group("c")))
        # 'Early release only if hold_reason is risk_review_cleared or …'
        m = re.fullmatch(rf"{_ACT}\s+only\s+(?:if|when)\s+(?P<c>.+)", t, re.I)
        if m and _act_words(m.group("act")):
            acts = _act_words(m.group("act")) or ()
            return _Reading("deny", m.group("act"), acts, unless=_condition(m.group("c")))
        # 'if legal_hold = true, no closure'
        m = re.fullmatch(r"(?:if|when)\s+(?P<c>[^,]+),\s*(?:then\s+)?(?P<e>.+)", t, re.I)
        if m:
            eff = _effect_reading(m.group("e"))
            if eff is not None:
                cond = _condition(m.group("c"))
                return _Reading(eff.effect, eff.act, eff.acts, _and(cond, eff.when), eff.unless)
        # 'id_verified must be TRUE before any swap', '… on every separation'
        m = re.fullmatch(
            rf"(?P<r>.+?\bmust\s+be\s+.+?)\s+(?:before|on|for|with)\s+(?:any|every|each|all)\s+"
            rf"{_ACT}",
            t,
            re.I,
        )
        if m and _act_words(m.group("act")) and _requirement(m.group("r")) is not None:
            acts = _act_words(m.group("act")) or ()
            return _Reading("deny", m.group("act"), acts, unless=_requirement(m.group("r")))
        # 'rehire_eligible must be false when termination_type = for_cause'
        m = re.fullmatch(
            r"(?P<r>.+?\bmust\s+be\s+.+?)\s+(?:if|when|where|while)\s+(?P<c>.+)", t, re.I
        )
        if m and _requirement(m.group("r")) is not None:
            return _Reading(
                "deny", when=_condition(m.group("c")), unless=_requirement(m.group("r"))
            )
        # 'restock must be false'
        req = _requirement(t)
        if req is not None:
            return _Reading("deny", unless=req)
        # 'kyc_tier 2+ only'
        m = re.fullmatch(r"(?P<c>.+?)\s+only", t, re.I)
        if m:
            return _Reading("deny", unless=_condition(m.group("c")))
    except _Fail:
        return None
    # an arrow or a colon: '<cond> -> <effect>', '<act> where <cond>: <effect>'
    for arrow in re.finditer(_ARROW, t):
        head, tail = t[: arrow.start()], t[arrow.end() :]
        eff = _effect_reading(tail)
        if eff is None:
            continue
        reading = _gate(head)
        if reading is None:
            continue
        acts, act, when = reading
        if eff.acts and acts:
            continue  # two acts: the gate's and the effect's
        return _Reading(
            eff.effect,
            act or eff.act,
            acts or eff.acts,
            _and(when, eff.when),
            eff.unless,
        )
    return None


def _gate(head: str) -> tuple[tuple[str, ...], str, tuple] | None:
    """(act words, act as written, condition) of what comes before the arrow."""
    head = head.strip()
    try:
        return (), "", _condition(re.sub(r"^\s*(?:if|when|where)\s+", "", head, flags=re.I))
    except _Fail:
        pass
    # '2FA reset where account_balance_usd > 50k', 'Market orders where notional_usd > 500k'
    m = re.fullmatch(rf"{_ACT}\s+(?:where|when|if|with)\s+(?P<c>.+)", head, re.I)
    if m and _act_words(m.group("act")):
        try:
            return _act_words(m.group("act")) or (), m.group("act"), _condition(m.group("c"))
        except _Fail:
            return None
    # 'Downgrade mid-contract (contract_months_left > 0)': the bracket defines the hyphenated
    # qualifier before it; a word before that is the act
    m = re.fullmatch(
        r"(?:(?P<act>[A-Za-z][A-Za-z0-9]*)\s+)?[A-Za-z]+-[A-Za-z]+\s*\((?P<c>[^()]+)\)", head
    )
    if m:
        acts = _act_words(m.group("act")) if m.group("act") else ()
        if acts is None:
            return None
        try:
            return acts, m.group("act") or "", _condition(m.group("c"))
        except _Fail:
            return None
    # 'GOODWILL -> only if …': an act alone
    acts = _act_words(head)
    if acts and len(acts) <= 2:
        return acts, head, ()
    return None


def inline_checks(index: int, source: str) -> list[Check] | None:
    """The checks of a rule written in prose with its condition inline, read whole, or None."""
    if "_" not in source and "." not in source and "must be" not in source:
        return None
    parts = [p for p in re.split(r"\s*;\s*|\.\s+(?=[A-Za-z])", source.strip()) if p.strip()]
    if len(parts) != 1:
        return None
    reading = _statement(parts[0])
    if reading is None or not (reading.when or reading.unless):
        return None
    return [
        InlineRule(
            index,
            source,
            reading.effect,
            act=reading.act,
            acts=reading.acts,
            when=reading.when,
            unless=reading.unless,
        )
    ]
