"""Rules that name the argument they speak of by its identifier inside prose (jident).

'No shipment without a customs broker - broker_id must be filled in', 'Signed NDA required
(nda_ref)', '`dry_run` must be true', 'Payouts only after KYC (kyc_passed = true)', 'Not allowed
unless restriction_met = true', 'Building permits need a licensed contractor
(contractor_license); owner-builder permits (owner_builder = true) are exempt from the licence
requirement'. The prose readings took the identifier for a value some argument holds ("Deny when
an argument is broker_id") and left the prose around it unread, so the rule never decided and
showed staff a wrong reading.

Each shape is read whole by its own grammar, or not at all (None: the other readings go on). Every
word is accounted for by the shape: the subject (read as the rule's subject, bound at evaluation),
the identifier and its condition (given, true, false, zero), the effect words, and a noun phrase
glossing the identifier, which is read only when it plausibly names it: it shares a word with the
identifier's name or is its acronym ('Qualified Person' for `qp_id`, 'Certificate of
Appropriateness' for `coa_number`), and adds no condition of its own (no preposition, number,
'only', 'for EU customers', 'over 10k'). What the identifier holds decides the test: a reference
(`_id`, `_ref`, `_number`, a ticket, a licence) must be given and no stand-in ('TBD', 'n/a'); a
flag (`is_…`, `…_passed`, `…_on_file`, `…_done`) must be true.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from webapp.judge.checks import (
    UNKNOWN,
    Binding,
    Check,
    Outcome,
    Unless,
    no_reference,
    outcome_stated,
    placeholder,
)
from webapp.judge.request_view import RequestView
from webapp.judge.text import STOPWORDS, stem, words

# an identifier: in backticks (a dotted path or a single word), or bare snake_case
_IDENT = re.compile(
    r"`(?P<q>[A-Za-z_][A-Za-z0-9_.]*)`|(?<![\w.`-])(?P<b>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w`-])"
)
_SLOT = r"§(?P<{}>\d)"

# the words saying a reference must be given
_GIVEN = (
    r"(?:is\s+|are\s+)?(?:mandatory|required|compulsory|"
    r"must\s+be\s+(?:filled\s+in|filled|provided|given|present|set|supplied|populated|included|"
    r"attached|referenced|cited|recorded|entered|completed|non-empty|not\s+empty))"
)
_SEP = r"(?:\s+-|\s+—|\s+–|:|;|,)"
_NO = r"(?:no|never)"
_REFUSED = (
    r"(?:no|never|not\s+allowed|not\s+permitted|deny|denied|refused?|blocked|forbidden|"
    r"prohibited)"
)
_PART = r"[A-Za-z0-9][A-Za-z0-9'’\- ]*?"  # a phrase: words, no bracket, no punctuation

# an argument name's words that say it holds a reference to a record: it must be given
_REFERENCE_WORDS = frozenset(
    "id ids ref refs reference number no num code ticket key url uri link memo licence license "
    "permit certificate cert doc document file path hash sha token".split()
)
# an argument name's words that say it holds a yes/no state: it must be true
_FLAG_HEADS = frozenset("is has was did".split())
_FLAG_TAILS = frozenset(
    "passed done met ok okay approved signed verified voided completed complete confirmed "
    "cleared accepted granted obtained received filed enabled valid attested acknowledged".split()
)

# words of a gloss that never name the identifier and never add a condition
_GLOSS_FILLER = frozenset("a an the its their this that".split())
# words of a gloss that may add a condition: refused
_GLOSS_REFUSED = re.compile(
    r"\b(?:for|to|in|at|by|from|via|with|without|over|under|above|below|than|per|each|every|all|"
    r"any|only|unless|except|if|when|while|where|who|which|whose|not|no|non|or|and|but|"
    r"outside|inside|within|before|after|during|other|new|first|high|low|large|small|eu|us|uk)\b",
    re.I,
)
# words that narrow a subject to some of its members ('Large wires', 'high-risk payouts')
_SUBJECT_QUALIFIERS = re.compile(
    r"\b(?:large|small|big|high|low|new|first|eu|eea|us|uk|foreign|international|domestic|"
    r"external|internal|sensitive|critical|risky|vip|minor|major|urgent|expedited|bulk|"
    r"flagged|suspicious|personal|sanctioned|restricted)\b",
    re.I,
)
# a bracketed aside after 'must be false' that only says what the flag's falseness does
_OMIT_ASIDE = re.compile(
    r"^(?:strip|remove|mask|redact|drop|exclude|omit|hide|anonymi[sz]e)\s+[a-z ]{2,30}$", re.I
)


def _name_words(name: str) -> list[str]:
    return [w for w in re.split(r"[_.]+", name.lower()) if w]


def _what_it_holds(name: str) -> str | None:
    """'present' for a reference, 'true' for a flag, None when the name does not say."""
    parts = _name_words(name)
    if not parts:
        return None
    if parts[-2:] == ["on", "file"]:
        return "true"  # 'W-9 on file' (`w9_on_file`): a state, no file's reference
    if parts[-1] in _REFERENCE_WORDS:
        return "present"
    if parts[0] in _FLAG_HEADS or parts[-1] in _FLAG_TAILS:
        return "true"
    if parts[-2:] == ["on", "file"]:
        return "true"
    return None


def _implied_true(name: str) -> bool:
    """Whether a flag's name says the state the rule wants when the rule writes no value:
    `kyc_passed`, `w9_on_file`, `is_verified`; not `is_blocked` or `has_disputes`, whose truth
    may be what the rule refuses ('`is_blocked` mandatory' read as "must be true" approved a
    blocked account, jred20)."""
    parts = _name_words(name)
    return bool(parts) and (parts[-1] in _FLAG_TAILS or parts[-2:] == ["on", "file"])


def flag_of_unsaid_state(name: str) -> bool:
    """A yes/no name whose truth the rule may refuse as well as want (`is_blocked`,
    `has_disputes`): 'is_blocked required' says neither, so it is never read as present."""
    return _what_it_holds(name) == "true" and not _implied_true(name)


def _norm(word: str) -> str:
    w = word.lower().replace("-", "").replace("’", "'")
    w = re.sub(r"'s$", "", w)
    return stem(w.replace("licence", "license"))


def _names(gloss: str, name: str) -> bool:
    """Whether a noun phrase plausibly names the identifier: it shares a word with the name, or
    its words' initials spell one of the name's words, and it adds no condition of its own."""
    g = gloss.strip()
    if not g:
        return True
    if _GLOSS_REFUSED.search(g):
        return False
    toks = [t for t in re.findall(r"[A-Za-z0-9][A-Za-z0-9'’-]*", g)]
    if not toks or len(toks) > 7:
        return False
    from webapp.judge.coverage import category_phrases, condition_spans

    if condition_spans(g) or category_phrases(g):
        return False
    parts = _name_words(name)
    own = {_norm(p) for p in parts}
    if any(re.search(r"\d", t) and _norm(t) not in own for t in toks):
        return False  # a number is a condition ('over 10k', 'Tier 2'); 'W-9' names `w9_on_file`
    said = {_norm(t) for t in toks if t.lower() not in _GLOSS_FILLER}
    content = [t for t in toks if t.lower() not in _GLOSS_FILLER and t.lower() != "no."]
    if said & own:
        # the phrase's head noun must be the name's: 'the customer's export licence' shares
        # 'customer' with `customer_id` but names a licence, 'the manager's approval' an
        # approval, not `manager_id` (jred20: read as "`customer_id` is given", approved)
        return bool(content) and _norm(content[-1]) in own
    # an acronym ending at the head: 'Qualified Person' = qp, 'Certificate of Appropriateness'
    # = coa; not 'the QP's release' (the acronym a possessor of another noun)
    for lo in range(len(content) - 1):
        if "".join(t[0].lower() for t in content[lo:]) in parts:
            return True
    # a short code whose last letter is the head noun's ('a signed agreement' for `dsa_id`)
    head = content[-1].lower() if content else ""
    codes = [p for p in parts if p not in _REFERENCE_WORDS | _FLAG_HEADS | _FLAG_TAILS]
    return any(2 < len(p) <= 4 and p.isalpha() and p[-1] == head[:1] for p in codes if p != head)


def _subject(phrase: str | None) -> tuple[str, ...] | None:
    """The subject's stems, or None when it may carry a condition (namedargs' plain subject)."""
    from webapp.judge.namedargs import _plain_subject

    s = (phrase or "").strip()
    s = re.sub(r"^(?:every|each|all|any)\s+", "", s, flags=re.I)
    if not s:
        return ()
    if _SUBJECT_QUALIFIERS.search(s):
        return None  # 'Large wires', 'New vendors', 'EU exports': a condition not read here
    if not _plain_subject(s):
        return None
    return tuple(dict.fromkeys(stem(w.lower()) for w in words(s) if w.lower() not in STOPWORDS))


def _value(word: str) -> Any:
    w = word.lower()
    return {"true": True, "false": False, "zero": 0.0, "0": 0.0}[w]


@dataclass(frozen=True)
class NamedByIdentifier(Binding):
    """A binding on the argument the rule names by its identifier in prose. The named argument
    in the request shows the rule speaks of it: where the subject words match no part of the
    request, a value the rule does not accept goes to review rather than passing as 'not about
    this request' ('Trade orders require pre_trade_check_passed to be true' and
    `oms.place_order` with the flag false had been approved). A stand-in for a reference the rule
    demands ('TBD', 'n/a', '-') never satisfies it; as for every required reference
    (checks.RequiredArgument), a human decides, since 'n/a' may say the rule does not apply."""

    kind: str = field(default="identified", init=False)

    def evaluate(self, view: RequestView) -> Outcome:
        leaves = self._leaves(view)
        if not leaves:
            return super().evaluate(view)
        applies, _ = self.applicability(view)
        if self.op == "present" and len(leaves) == 1 and placeholder(leaves[0].value):
            leaf = leaves[0]
            message = (
                f"{leaf.path} = {leaf.value!r} stands in for `{self.path}` rather than giving it"
            )
            return Outcome(UNKNOWN, message, (leaf.path,))
        if self.op == "present":
            for lf in leaves:
                if _names_no_record(lf.value, lf.last_keys, view.agent_id):
                    message = f"{lf.path} = {lf.value!r} names no record for `{self.path}`"
                    return Outcome(UNKNOWN, message, (lf.path,))
        witness = _contrary_state(self.path, view, {lf.path for lf in leaves})
        if witness is not None:
            return Outcome(UNKNOWN, witness, (leaves[0].path,))
        if self.op == "present" and any(_blank_member(lf.value) for lf in leaves):
            # ['A-1', ''] or ['A-1', 'TBD']: one member given, another not; the list 'is given'
            # but does not give every reference it lists (jred20)
            leaf = next(lf for lf in leaves if _blank_member(lf.value))
            message = f"{leaf.path} = {leaf.value!r} lists a member that is blank or a stand-in"
            return Outcome(UNKNOWN, message, (leaf.path,))
        outcome = super().evaluate(view)
        if applies == "absent" and any(self._holds(lf.value) is not True for lf in leaves):
            return Outcome(
                UNKNOWN,
                f"{leaves[0].path} = {leaves[0].value!r} is not what the rule requires of "
                f"`{self.path}`, and the request may not be what the rule speaks of; a human "
                "should decide",
                tuple(lf.path for lf in leaves),
            )
        return outcome


# words a reference is sometimes sent as that give none: a yes, a code's 'unset', oneself
_NOT_A_RECORD = frozenset("yes y true ok okay done undefined nan self me myself".split())


def _names_no_record(value: Any, keys: frozenset[str], agent: str | None) -> bool:
    """Whether a value sent for a reference the rule demands names no record: a flag (`true`),
    a yes ('yes', 'ok'), words with no digit ('verbal ok', checks.no_reference), a negative
    number ('-1', a system's 'unset'), or the requesting agent / 'self' for a person. Each was
    taken as "`change_ticket` is given" and approved (jred20); a human decides."""
    if isinstance(value, bool):
        return True
    if not isinstance(value, str):
        return False
    v = value.strip().lower()
    if v in _NOT_A_RECORD or re.fullmatch(r"-\d+(?:\.\d+)?", v):
        return True
    if agent and v == agent.strip().lower():
        return True
    return no_reference(value, keys | {"id"})


# a state that says the thing the identifier stands for is not good (beside `outcome_stated`)
_BAD_STATES = frozenset(
    "expired revoked suspended lapsed invalid blocked cancelled canceled withdrawn not_met "
    "unmet void voided terminated inactive".split()
)
_STATE_WORDS = frozenset("status state result outcome".split())


def _contrary_state(name: str, view: RequestView, own: set[str]) -> str | None:
    """Another argument stating the state of what the identifier stands for, when it says that
    state is bad: `kyc_status: "failed"` beside `kyc_passed: true`, `w9_status: "expired"`
    beside `w9_on_file`, `broker_status: "revoked"` beside `broker_id`. Each was approved on the
    identifier alone (jred20); a human weighs the two."""
    parts = _name_words(name.rsplit(".", 1)[-1])
    if parts[-2:] == ["on", "file"]:
        base = parts[:-2]
    elif parts and (parts[-1] in _REFERENCE_WORDS or parts[-1] in _FLAG_TAILS):
        base = parts[:-1]
    else:
        base = parts[:-1]
    if parts and parts[0] in _FLAG_HEADS:
        base = base[1:]
    if not base:
        return None
    flag_state = parts[-1] if parts[-1] in _FLAG_TAILS else ""
    for lf in view.leaves:
        if lf.path in own:
            continue
        words_ = _name_words(lf.path.rsplit(".", 1)[-1])
        if len(words_) < 2 or words_[-1] not in _STATE_WORDS:
            continue
        exact = words_[:-1] == base
        # `cab_status` beside `approved_by_cab`: the state of what the flag names
        named = set(words_[:-1]) - _FLAG_HEADS - _FLAG_TAILS - {"by"}
        if not exact and not (named and named <= set(parts)):
            continue
        v = lf.value
        code = re.sub(r"[\s\-]+", "_", v.strip().lower()) if isinstance(v, str) else ""
        if outcome_stated(v) is False or code in _BAD_STATES or code.startswith("not_"):
            return f"{lf.path} = {v!r} says `{name}` may not hold"
        if exact and flag_state and code and code != flag_state and outcome_stated(v) is not True:
            # `receipt_status: "active"` beside `receipt_voided: true`: another state
            return f"{lf.path} = {v!r} is not the state `{name}` says"
    return None


def _blank_member(value: Any) -> bool:
    """Whether a list holds a member that gives nothing: blank, null, or a stand-in."""
    if not isinstance(value, (list, tuple)) or not value:
        return False
    return any(
        v is None or (isinstance(v, str) and (not v.strip() or placeholder(v))) for v in value
    )


@dataclass(frozen=True)
class _ExceptionFlag(Binding):
    """The flag of an exception ('unless approved_by_cab = true'): as a Binding, but another
    argument stating the flag's thing is bad (`cab_status: "rejected"`) leaves it unknown, so
    the exception never relieves on the flag alone (jred20)."""

    def evaluate(self, view: RequestView) -> Outcome:
        contrary = _contrary_state(self.path, view, {self.path})
        if contrary is not None:
            return Outcome(UNKNOWN, contrary, (self.path,))
        return super().evaluate(view)


# the exception's flag, for the compiler's 'unless `flag` is true' after a prohibition (jappr)
ExceptionFlag = _ExceptionFlag


def _binding(
    index: int, source: str, terms: tuple[str, ...], name: str, test: Any, gloss: str
) -> Binding:
    if test == "present":
        return NamedByIdentifier(
            index, source, "deny", terms, path=name, op="present", gloss=gloss.strip()
        )
    return NamedByIdentifier(
        index, source, "deny", terms, path=name, op="eq", value=test, gloss=gloss.strip()
    )


def _slots(text: str) -> tuple[str, list[str]] | None:
    """The rule with each identifier replaced by §n, and the identifiers in order."""
    names: list[str] = []

    def put(m: re.Match[str]) -> str:
        names.append(m.group("q") or m.group("b"))
        return f"§{len(names) - 1}"

    slotted = _IDENT.sub(put, text)
    if not names or len(names) > 2 or "`" in slotted:
        return None
    return slotted, names


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(r"^" + pattern + r"$", re.I)


_A = _SLOT.format("a")
_B = _SLOT.format("b")
_SUBJ = rf"(?P<subj>{_PART})"
_GLOSS = rf"(?P<gloss>{_PART})"
_BOOL = r"(?P<v>true|false)"
_NEEDS = r"(?:requires?|needs?|must\s+(?:have|cite|reference|include))"
_EQ = r"(?:=|==|is|must\s+be|to\s+be|set\s+to)"

# a reference that must be given
_REQUIRED = (
    # '`change_ticket` mandatory', 'approver_id must be provided'
    _c(rf"{_A}\s+{_GIVEN}"),
    # 'Signed NDA required (nda_ref)'
    _c(rf"{_GLOSS}\s+{_GIVEN}\s+\({_A}\)"),
    # 'Batch release requires a Qualified Person - qp_id', 'IAM role grants need an approver;
    # approver_id must be provided', 'Lab results release -> physician sign-off required:
    # physician_signoff_id'
    _c(rf"{_SUBJ}\s+{_NEEDS}\s+{_GLOSS}\s+\({_A}\)"),
    _c(rf"{_SUBJ}\s+{_NEEDS}\s+{_GLOSS}{_SEP}\s+{_A}(?:\s+{_GIVEN})?"),
    _c(rf"{_SUBJ}\s*(?:->|→|=>)\s*{_GLOSS}\s+(?:required|mandatory)\s+\({_A}\)"),
    _c(rf"{_SUBJ}\s*(?:->|→|=>)\s*{_GLOSS}\s+(?:required|mandatory){_SEP}\s+{_A}"),
    # 'No shipment without a customs broker - broker_id must be filled in'
    _c(rf"{_NO}\s+{_SUBJ}\s+without\s+{_GLOSS}\s+\({_A}\)"),
    _c(rf"{_NO}\s+{_SUBJ}\s+without\s+{_GLOSS}{_SEP}\s+{_A}\s+{_GIVEN}"),
)
# a flag that must be true (or false)
_FLAGGED = (
    # '`dry_run` must be true', 'include_pii must be false (strip names)'
    _c(
        rf"{_A}\s+(?:must|shall|should|has\s+to|needs\s+to)\s+be\s+{_BOOL}(?:\s+\((?P<aside>[^()]*)\))?"
    ),
    # 'Trade orders require pre_trade_check_passed to be true', 'Wire payouts need `kyc_passed` = true'
    _c(rf"{_SUBJ}\s+(?:requires?|needs?)\s+{_A}\s+(?:to\s+be|=|==|be|set\s+to)\s+{_BOOL}"),
    # 'Payouts only after KYC (kyc_passed = true)'
    _c(
        rf"{_SUBJ}\s+only\s+(?:after|once|if|when|with)\s+{_GLOSS}\s+\({_A}\s*(?:=|==|is)\s*{_BOOL}\)"
    ),
    # 'W-9 on file (`w9_on_file`) before any contractor payment'
    _c(rf"{_GLOSS}\s+\({_A}\)\s+(?:before|for)\s+(?:any|every|each|all)\s+{_SUBJ}"),
)
# a refusal unless the identifier's condition holds
_UNLESS = (
    # 'Not allowed unless restriction_met = true'
    _c(rf"{_REFUSED}(?:\s+{_SUBJ})?\s+unless\s+{_A}\s*(?:=|==|is)\s*(?P<v>true|false|zero|0)"),
    # 'No licence issued unless the applicant's outstanding balance is zero (`outstanding_balance`)',
    # 'Deny unless a signed agreement is referenced (`dsa_id`)'
    _c(
        rf"{_REFUSED}(?:\s+{_SUBJ})?\s+unless\s+{_GLOSS}\s+(?:is|are|has\s+been|have\s+been|was)\s+"
        rf"(?P<pred>zero|0|referenced|given|provided|attached|on\s+file|cited|recorded|[a-z]+ed)"
        rf"\s+\({_A}\)"
    ),
)
_EXCEPT_FLAG = re.compile(
    r"\s*,?\s*\b(?:unless|except\s+when|except\s+if|except\s+where)\s+§(?P<b>\d)\s*(?:=|==|is)\s*"
    r"(?P<v>true|false)$",
    re.I,
)
# 'Building permits need a licensed contractor (contractor_license); owner-builder permits
# (owner_builder = true) are exempt from the licence requirement'
_EXEMPT = _c(
    rf"{_SUBJ}\s+(?:requires?|needs?)\s+{_GLOSS}\s+\({_A}\)\s*[;,.]\s*(?P<subj2>{_PART})\s+"
    rf"\({_B}\s*(?:=|==)\s*true\)\s+(?:are|is)\s+exempt(?:\s+from\s+(?:the|this|that)\s+"
    rf"(?P<what>[A-Za-z' -]+?)\s+requirement)?"
)


def identified_checks(index: int, text: str) -> list[Check] | None:
    """The checks of a rule that names its argument by its identifier in prose, read whole; None
    when the rule is none of these shapes."""
    return _cached(index, text)


@lru_cache(maxsize=4096)
def _read(text: str) -> tuple[Any, ...] | None:
    t = re.sub(r"\s+", " ", text.strip()).rstrip(".").strip()
    slotted = _slots(t)
    if slotted is None:
        return None
    s, names = slotted
    # '`dry_run` must be true unless approved_by_cab = true': the exception bound to its own
    # flag, the rest read as any other shape naming one identifier
    tail = _EXCEPT_FLAG.search(s)
    if (
        tail is not None
        and len(names) == 2
        and tail.group("b") == "1"
        and "§1" not in s[: tail.start()]
    ):
        head = _read_slotted(s[: tail.start()].rstrip(" ,;"), names[:1])
        if head is None or len(head) != 1 or head[0][0] != "one":
            return None
        _, name, test, gloss, terms = head[0]
        return (("except", name, test, gloss, terms, names[1], _value(tail.group("v"))),)
    return _read_slotted(s, names)


def _one(name: str, test: Any, groups: dict[str, Any]) -> tuple[Any, ...] | None:
    """One identifier read with its test, when the subject is readable and the phrase before the
    identifier names it (the tail every shape of `_read_slotted` ends with)."""
    gloss = groups.get("gloss") or ""
    terms = _subject(groups.get("subj"))
    if terms is None or not _names(gloss, name):
        return None
    return (("one", name, test, gloss, terms),)


def _read_slotted(s: str, names: list[str]) -> tuple[Any, ...] | None:
    for rx in _REQUIRED:
        m = rx.match(s)
        if m is None:
            continue
        name = names[int(m.group("a"))]
        holds = _what_it_holds(name)
        if len(names) != 1 or holds is None:
            return None
        if holds == "true" and not _implied_true(name):
            return None
        test = "present" if holds == "present" else True
        return _one(name, test, m.groupdict())
    for rx in _FLAGGED:
        m = rx.match(s)
        if m is None:
            continue
        name = names[int(m.group("a"))]
        if len(names) != 1:
            return None
        gd = m.groupdict()
        if gd.get("v"):
            test: Any = _value(gd["v"])
        elif _what_it_holds(name) == "true" and _implied_true(name):
            test = True
        elif _what_it_holds(name) == "present":
            test = "present"
        else:
            return None
        aside = gd.get("aside")
        if aside is not None and not (
            test is False and _OMIT_ASIDE.match(aside.strip()) and not _GLOSS_REFUSED.search(aside)
        ):
            return None  # '(strip names unless HR asks)', '(EU only)': a condition
        if isinstance(test, bool) and _what_it_holds(name) == "present":
            return None  # 'Deploys need change_ticket to be true': a reference is no flag
        return _one(name, test, gd)
    for rx in _UNLESS:
        m = rx.match(s)
        if m is None:
            continue
        name = names[int(m.group("a"))]
        if len(names) != 1:
            return None
        gd = m.groupdict()
        holds = _what_it_holds(name)
        if gd.get("v"):
            test = _value(gd["v"])
        else:
            pred = re.sub(r"\s+", " ", gd["pred"].lower())
            if pred in ("zero", "0"):
                test = 0.0
            elif pred in ("referenced", "given", "provided", "attached", "cited", "recorded"):
                if holds != "present":
                    return None
                test = "present"
            elif holds == "true" and (
                pred == "on file" or _norm(pred) in {_norm(p) for p in _name_words(name)}
            ):
                # 'the receipt has been voided (`receipt_voided`)': the flag names the state
                test = True
            else:
                return None
        if isinstance(test, float) and holds == "present":
            return None
        return _one(name, test, gd)
    m = _EXEMPT.match(s)
    if m is not None and len(names) == 2:
        name, flag = names[int(m.group("a"))], names[int(m.group("b"))]
        if _what_it_holds(name) != "present":
            return None
        gloss, subj, subj2 = m.group("gloss"), m.group("subj"), m.group("subj2")
        terms, terms2 = _subject(subj), _subject(subj2)
        if terms is None or not terms2 or not _names(gloss, name):
            return None
        # the exempt ones are a kind of the subject ('owner-builder permits' of 'building
        # permits') named by the flag ('owner_builder')
        if not set(terms2) & set(terms):
            return None
        flag_words = {_norm(p) for p in _name_words(flag)}
        kind = {_norm(w) for w in re.findall(r"[A-Za-z]+", subj2)} - {_norm(w) for w in terms}
        if not kind or not kind <= flag_words | set(terms):
            return None
        what = m.group("what")
        if (
            what is not None
            and not _names(what, name)
            and not _names(what, gloss.replace(" ", "_"))
        ):
            return None
        return (("exempt", name, flag, gloss, terms),)
    return None


def _cached(index: int, text: str) -> list[Check] | None:
    read = _read(text)
    if read is None:
        return None
    out: list[Check] = []
    for kind, name, test, gloss, terms, *exception in read:
        if kind == "one":
            out.append(_binding(index, text, terms, name, test, gloss))
        elif kind == "except":
            flag, value = exception
            cond = _ExceptionFlag(index, text, "deny", (), path=flag, op="eq", value=value)
            out.append(
                Unless(
                    index,
                    text,
                    "deny",
                    terms,
                    base=_binding(index, text, terms, name, test, gloss),
                    marker="unless",
                    test="binding",
                    phrase=f"`{flag}` is {str(value).lower()}",
                    condition=cond,
                )
            )
        else:
            base = _binding(index, text, terms, name, "present", gloss)
            # the exemption holds or not whatever the subject: its flag alone says
            cond = Binding(index, text, "deny", (), path=test, op="eq", value=True)
            out.append(
                Unless(
                    index,
                    text,
                    "deny",
                    terms,
                    base=base,
                    marker="unless",
                    test="binding",
                    phrase=f"`{test}` is true",
                    condition=cond,
                )
            )
    return out


# 'Wire payouts need `kyc_passed` = true and must stay under 5,000 USD': two obligations on one
# subject, the first naming its identifier. Read as two rules on the same subject; the rule is
# understood only when both are (compiler.py joins them), so the cap is never read alone.
_TWO_OBLIGATIONS = re.compile(
    r"^(?P<subj>[A-Za-z][A-Za-z0-9'’\- ]*?)\s+(?P<verb>needs?|requires?)\s+(?P<first>[^;]*?(?:`[^`]+`|"
    r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b)[^;]*?)\s+and\s+(?P<mod>must\s+not|must|may\s+not|cannot|"
    r"shall\s+not|should\s+not)\s+(?P<rest>[^;]+?)\.?$",
    re.I,
)


def two_obligations(text: str) -> tuple[str, str] | None:
    """The rule split into its identifier's obligation and the other one, both on its subject
    ('Wire payouts need `kyc_passed` = true', 'Wire payouts must stay under 5,000 USD'), or None."""
    m = _TWO_OBLIGATIONS.match(re.sub(r"\s+", " ", text.strip()))
    if m is None or _subject(m.group("subj")) is None:
        return None
    subj = m.group("subj")
    return (
        f"{subj} {m.group('verb')} {m.group('first')}",
        f"{subj} {m.group('mod')} {m.group('rest')}.",
    )


# an argument name's last word that says it takes one of a closed list of values
_ENUMERATED = frozenset("code codes type kind status category class".split())


def identifiers_unread(text: str, every: list[Any]) -> list[str]:
    """The identifiers the rule writes whose name says they hold a reference or a flag
    (`change_ticket`, `grn_number`, `kyc_passed`) and that no check holds at all.

    '`change_ticket` mandatory (prod only)' read as "Deny unless an argument is prod" and 'Orders
    require a PO (po_number) and a GRN (grn_number)' as the PO alone: only the name's words were
    matched as the rule's subject or as another argument's, and the rule was labelled understood
    with its argument unread. A name a check holds anywhere (a path, a required name, a
    condition, a listed value: 'Exports must not include: ssn, card_number' lists field names as
    values) is left to that check's own reading."""
    out: list[str] = []
    held: set[str] | None = None
    if every and all(getattr(c, "effect", "") == "review" for c in every):
        # 'POs of $25,000 or more need a Finance approval reference (finance_approval_id)' read
        # as a review from 25,000: a human sees every request the reference is asked of
        return out
    for m in _IDENT.finditer(text):
        name = m.group("q") or m.group("b")
        if name in out or _what_it_holds(name.rsplit(".", 1)[-1]) is None:
            continue
        if _name_words(name)[-1] in _ENUMERATED:
            # 'reason_code must be one of DAMAGED / LOST': a code takes the rule's listed values,
            # read by the list's own check (jlist's readings), not a reference to give
            continue
        if held is None:
            held = set()
            for c in every:
                _strings(c, held, set())
        if name not in held:
            out.append(name)
    return out


def _strings(obj: Any, into: set[str], seen: set[int]) -> None:
    """Every string a check holds, and each dotted string's last segment, into `into`."""
    if isinstance(obj, str):
        into.add(obj)
        into.add(obj.rsplit(".", 1)[-1])
        return
    if isinstance(obj, (int, float, bool)) or obj is None or id(obj) in seen or len(seen) > 500:
        return
    seen.add(id(obj))
    if isinstance(obj, dict):
        for k, v in obj.items():
            _strings(k, into, seen)
            _strings(v, into, seen)
    elif isinstance(obj, (tuple, list, set, frozenset)):
        for v in obj:
            _strings(v, into, seen)
    elif hasattr(obj, "__dict__"):
        for k, v in vars(obj).items():
            if k not in ("source", "terms", "alternatives") and not k.startswith("_"):
                _strings(v, into, seen)
