"""Two arguments compared, and status values on a named argument (helper jpair).

Staff write a relation between two arguments and a state an argument must (not) hold as terse
statements, each read here whole or not at all:

- "refund_method must match original_method", "preparer_id must differ from approver_id (SoD)",
  "author_id != reviewer_id (no self-review)", "JE must balance (total_debits ==
  total_credits); unbalanced = reject", "An approver can't sign off their own claim -
  approver_id must not equal submitter_id", "requester and approver must not be the same
  person" (`PairRecogniser`; checks `wrongreads.ArgumentPair`, `RolesDistinct`);
- "No payments to grantees whose grantee_status is suspended or under_investigation", "Only
  vendors with vendor_status = approved (not pending, not blocked)", "Never adjust accounts in
  collections or shutoff_pending status", "consent_status must be granted" (`StatusRecogniser`,
  check `NamedStatus`).

Before, these were read as "Deny when an argument is grantee_status" or "Deny unless
`author_id` is not \"reviewer_id\"" (an argument's name compared as a value), or "Send to review
requests about requester" labelled understood. A rule with any other word ('unless …', a
qualifier on the subject, a second clause) is no shape of this module: it falls through to the
prose readings, which leave it partly understood.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any

from webapp.judge.checks import (
    NOT_APPLICABLE,
    SATISFIED,
    UNKNOWN,
    Check,
    Outcome,
    outcome_stated,
)
from webapp.judge.request_view import RequestView
from webapp.judge.text import stem
from webapp.judge.wrongreads import ArgumentPair, _acted_by, compare_values

_ID = r"[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+"
_END = r"\s*\.?\s*$"
# a closing restatement of the effect: '; unbalanced = reject', ' - otherwise deny', '-> review'
_EFFECT_TAIL = (
    r"(?:\s*(?:[;,\-\u2013\u2014]|->|\u2192)\s*(?:(?:unbalanced|mismatch(?:ed|es)?|otherwise|"
    r"else|if\s+not|violations?|same|self)\s*(?:=|->|\u2192|:|=>)?\s*)?"
    r"(?P<eff>reject(?:ed)?|deny|denied|block(?:ed)?|refused?|review|escalate))?"
)


def _effect(word: str | None) -> str:
    return "review" if word in ("review", "escalate") else "deny"


# -- two arguments -----------------------------------------------------------------------------

_MUST_SAME = (
    r"(?:must|should|shall)\s+(?:match|equal|be\s+equal\s+to|be\s+the\s+same\s+as|"
    r"be\s+identical\s+to)|==|="
)
_MUST_DIFFER = (
    r"(?:must|should|shall)\s+(?:differ\s+from|be\s+different\s+(?:from|than|to)|"
    r"not\s+(?:equal|match|be\s+equal\s+to|be\s+the\s+same\s+as))|"
    r"(?:can'?t|cannot|can\s+not|may\s+not|must\s+never|mustn'?t)\s+(?:equal|match|"
    r"be\s+the\s+same\s+as|be\s+equal\s+to)|!=|<>|\u2260"
)
# a bracket restating separation of duties: '(SoD)', '(no self-review)', '(four eyes)'
_DUTIES = (
    r"\(\s*(?:sod|segregation\s+of\s+duties|separation\s+of\s+duties|four[\s\-]eyes|4[\s\-]eyes|"
    r"maker[\s\-/]checker|no\s+self[\s\-](?:approvals?|reviews?|sign[\s\-]?offs?))\s*\)"
)
# a tail restating that two sums must be equal: '- no partials, no overpaying'
_EXACT = (
    r"\s*(?:[;,\-\u2013\u2014]|\()\s*no\s+(?:partials?|partial\s+payments?|under\s*payments?|"
    r"under\s*paying)\s*(?:,|and|or|/)?\s*(?:no\s+)?(?:over\s*pay(?:ing|ments?)?)\s*\)?"
)
_PAIR = re.compile(
    rf"^(?P<a>{_ID})\s+(?:(?P<same>{_MUST_SAME})|(?P<differ>{_MUST_DIFFER}))\s+(?:the\s+)?"
    rf"(?P<b>{_ID})(?P<duties>\s*{_DUTIES})?(?P<exact>{_EXACT})?{_EFFECT_TAIL}{_END}",
    re.I,
)
# 'An approver can't sign off their own claim - approver_id must not equal submitter_id': the
# head restates the pair that follows, when its person is one of the two arguments
_SELF_HEAD = re.compile(
    r"^(?:an?\s+|the\s+|no\s+)?(?P<who>[a-z]+)\s+(?:can'?t|cannot|can\s+not|may\s+not|must\s+not|"
    r"mustn'?t|must\s+never|may\s+never|shall\s+not)\s+(?:approves?|sign(?:s)?\s+off(?:\s+on)?|"
    r"reviews?|authori[sz]es?)\s+(?:their|his\s+or\s+her|his|her|its)\s+own\s+"
    r"[a-z]+(?:\s+[a-z]+)?\s*(?:[\-\u2013\u2014:;,]|->)\s*(?P<rest>.+)$",
    re.I,
)
# 'JE must balance (total_debits == total_credits); unbalanced = reject': a record that must
# balance or agree, restated by the bracket; the record's noun from a closed list, so that a
# qualifier ('Foreign JEs must balance') is never dropped
_RECORDS = r"(?:je|jes|journal(?:\s+entr(?:y|ies))?|journals|entr(?:y|ies)|postings?|vouchers?|batch(?:es)?)"
_BALANCE = re.compile(
    rf"^(?:(?:the|each|every|all|a|an)\s+)?{_RECORDS}\s+(?:must|should|shall)\s+"
    rf"(?:balance|tie\s+out|net\s+to\s+zero)\s*\(\s*(?P<a>{_ID})\s*(?:==|=)\s*(?P<b>{_ID})\s*\)"
    rf"{_EFFECT_TAIL}{_END}",
    re.I,
)
# 'requester and approver must not be the same person': two people by their role nouns
_ROLE = r"[a-z]+(?:er|or|ee|ant|ent)"
_ROLES = re.compile(
    rf"^(?:the\s+)?(?P<a>{_ROLE})\s+and\s+(?:the\s+)?(?P<b>{_ROLE})\s+(?:(?:must\s+not|cannot|"
    r"can'?t|may\s+not|should\s+not|must\s+never|shall\s+not)\s+be\s+the\s+same(?:\s+(?:person|"
    r"user|individual|employee|people))?|(?:must|should|shall)\s+be\s+(?:different|distinct)"
    rf"(?:\s+(?:people|persons|users|individuals|employees))?)(?P<duties>\s*{_DUTIES})?"
    rf"{_EFFECT_TAIL}{_END}",
    re.I,
)
# what an argument's name adds to a role noun without naming another thing
_PERSON_SUFFIXES = frozenset("id email user username name uid login".split())


@dataclass(frozen=True)
class RolesDistinct(Check):
    """'requester and approver must not be the same person': the one argument named for each
    role (`requester_id`, `approver_email`: the role noun and at most a person suffix) must not
    hold the same value. No argument for a role, or two (`approver_id` beside `approver_email`),
    is review when the request names the other; neither role named is not this rule's request."""

    left: str = ""  # role nouns as written
    right: str = ""
    kind: str = field(default="roles_distinct", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(left=self.left, right=self.right)
        return d

    def reading(self) -> str:
        verb = "Send to review" if self.effect == "review" else "Deny"
        return (
            f"{verb} when the {self.left} and the {self.right} (the one argument named for each, "
            f"such as `{self.left}_id` and `{self.right}_id`) hold the same value (when either "
            "is not sent, review)"
        )

    def _named(self, view: RequestView, role: str) -> list[str]:
        out = []
        for lf in view.leaves:
            parts = [p for p in re.split(r"[_\-]", lf.path.rsplit(".", 1)[-1].lower()) if p]
            if parts and parts[0] == role and set(parts[1:]) <= _PERSON_SUFFIXES:
                out.append(lf.path)
        return out

    def evaluate(self, view: RequestView) -> Outcome:
        a, b = self._named(view, self.left.lower()), self._named(view, self.right.lower())
        if not a and not b:
            return Outcome(NOT_APPLICABLE)
        if len(a) != 1 or len(b) != 1:
            return Outcome(
                UNKNOWN, f"no one argument each names the {self.left} and the {self.right}"
            )
        values = {lf.path: lf.value for lf in view.leaves}
        same = compare_values(values[a[0]], values[b[0]])
        names = (a[0], b[0])
        if same is None:
            return Outcome(UNKNOWN, f"{a[0]} and {b[0]} cannot be compared as sent", names)
        if same:
            return self.fire("matched", f"{a[0]} and {b[0]} are both {values[a[0]]!r}", names)
        roles = {self.left.lower(), self.right.lower()}
        for lf in view.leaves:
            # another argument for one of the roles ('approvers': ['jsmith'] beside
            # 'approver_id'): the one compared may not be the only approver (jred20)
            first = re.split(r"[_.\-]", lf.path.lower())[0]
            if lf.path not in names and (first in roles or first.rstrip("s") in roles):
                return Outcome(UNKNOWN, f"{lf.path} also names the {first}", (lf.path, *names))
        by = _acted_by(view, names)
        if by is not None:
            # 'approved_by' beside 'approver_id': who approved, named another way (jred20)
            return Outcome(UNKNOWN, f"{by} also names the {self.left} or the {self.right}", names)
        return Outcome(SATISFIED, f"{a[0]} and {b[0]} differ", names)


# two names that are two sides of one thing, though their last words differ
_COUNTERPARTS = frozenset({frozenset({"debits", "credits"}), frozenset({"debit", "credit"})})


def _same_kind(a: str, b: str) -> bool:
    """Whether `b` is another argument of `a`'s kind rather than a value written with an
    underscore: 'preparer_id' and 'approver_id', 'refund_method' and 'original_method',
    'total_debits' and 'total_credits'; not 'user_status' and 'on_hold' ('user_status !=
    on_hold' is a state the argument must not hold, StatusRecogniser) nor 'payment_method' and
    'bank_transfer'."""
    x, y = re.split(r"[_.]", a.lower()), re.split(r"[_.]", b.lower())
    return x[-1] == y[-1] or frozenset({x[-1], y[-1]}) in _COUNTERPARTS


@dataclass(frozen=True)
class ArgumentsMatch(ArgumentPair):
    """'refund_method must match original_method': the two arguments must hold the same value;
    neither sent while an argument is named like one of them ('method') is review."""

    kind: str = field(default="arguments_match", init=False)
    _FIRES_ON_SAME = False

    def _speaks_to(self, view: RequestView) -> bool:
        named = {stem(w) for w in re.split(r"[_.]", f"{self.left}_{self.right}".lower())} - {"id"}
        return any(lf.keys & named for lf in view.leaves)


class PairRecogniser:
    """Two arguments a rule names, which must hold the same value or different ones."""

    kind = "argument_pair"

    def read(self, index: int, text: str) -> list[Check] | None:
        from webapp.judge.misreadings import DistinctArguments

        t = re.sub(r"\s+", " ", text.strip())
        head = _SELF_HEAD.match(t)
        if head is not None:
            m = _PAIR.match(head.group("rest"))
            if m is None or not m.group("differ"):
                return None
            who = stem(head.group("who").lower())
            named = {stem(w) for w in re.split(r"[_.]", f"{m.group('a')}_{m.group('b')}")}
            if who not in named:
                return None
        else:
            m = _PAIR.match(t)
        if m is not None:
            a, b = m.group("a"), m.group("b")
            if a.lower() == b.lower() or not _same_kind(a, b):
                return None
            differ = bool(m.group("differ"))
            if (m.group("duties") and not differ) or (m.group("exact") and differ):
                return None  # '(SoD)' beside a rule that wants them equal: not a restatement
            cls = DistinctArguments if differ else ArgumentsMatch
            return [cls(index, text, _effect(m.group("eff")), left=a, right=b)]
        m = _BALANCE.match(t)
        if m is not None and _same_kind(m.group("a"), m.group("b")) and m["a"] != m["b"]:
            return [ArgumentsMatch(index, text, _effect(m.group("eff")), left=m["a"], right=m["b"])]
        m = _ROLES.match(t)
        if m is not None and m.group("a").lower() != m.group("b").lower():
            return [RolesDistinct(index, text, _effect(m.group("eff")), left=m["a"], right=m["b"])]
        return None


# -- status values on a named argument ---------------------------------------------------------

# an argument named for a thing's status ('grantee_status', 'vendor.status'); a bare 'status'
# says not whose it is ('status must be active or pending' stays unread, test_judge_jinline)
_STATUS_ARG = r"(?:[a-z][a-z0-9]*[_.])+(?:status|state)"
_VALUE = r"[a-z][a-z0-9]*(?:[_\-][a-z0-9]+)*"
_LIST = rf"{_VALUE}(?:\s*(?:,\s*or|,|/|\bor\b)\s*{_VALUE})*"
_IS = r"(?:is|=|==|in|is\s+one\s+of|in\s+status)"
_DENY_LIST = re.compile(
    rf"^(?:no|never)\s+(?P<act>[a-z]+(?:\s+[a-z]+)?)\s+(?:to|for|on|of)\s+(?P<party>[a-z]+)\s+"
    rf"(?:whose|where|with|when)\s+(?:the\s+)?(?P<arg>{_STATUS_ARG})\s+{_IS}\s+(?P<vals>{_LIST})"
    rf"{_END}",
    re.I,
)
_NAMED_MUST = re.compile(
    rf"^(?P<arg>{_STATUS_ARG})\s+(?:(?P<allow>(?:must|should|shall)\s+(?:be|equal)(?:\s+one\s+of)?"
    rf"|==|=)|(?P<deny>(?:must\s+not|must\s+never|cannot|can'?t|may\s+not|shall\s+not)\s+be(?:\s+one"
    rf"\s+of)?|!=))\s+(?P<vals>{_LIST}){_END}",
    re.I,
)
_ONLY_WITH = re.compile(
    rf"^only\s+(?P<party>[a-z]+)\s+(?:with|whose|where)\s+(?:the\s+)?(?P<arg>{_STATUS_ARG})\s*"
    rf"(?:=|==|is)\s*(?P<vals>{_VALUE})(?:\s*\((?P<restate>not\s+{_VALUE}(?:\s*(?:,|or|nor)\s*"
    rf"(?:not\s+)?{_VALUE})*)\))?{_END}",
    re.I,
)
_REQUIRES = re.compile(
    rf"^(?P<act>[a-z]+(?:\s+[a-z]+)?)\s+requires?\s+(?P<arg>{_STATUS_ARG})\s*(?:==|=|to\s+be|is)"
    rf"\s*(?P<vals>{_VALUE})(?:\s*;\s*(?P<restate>{_LIST})\s+(?P<party>[a-z]+)\s*(?:->|\u2192|=)"
    rf"\s*(?:deny|denied|reject(?:ed)?|block(?:ed)?)){_END}",
    re.I,
)
# 'Never adjust accounts in collections or shutoff_pending status': the status argument is not
# named; it is sought at evaluation (`status`, `<party>_status`)
_IN_STATUS = re.compile(
    rf"^(?:never|do\s+not|don'?t|no)\s+(?P<act>[a-z]+)\s+(?:(?:on|to|for|of)\s+)?(?P<party>[a-z]+)"
    rf"\s+(?:in|with)\s+"
    rf"(?P<vals>{_LIST})\s+status(?:es)?{_END}",
    re.I,
)


# 'Payments must not be issued to cases in Closed status', 'Credits to accounts in collections
# status are prohibited': the act, then the party whose status is sought at evaluation
_ACT_TO_IN_STATUS = re.compile(
    rf"^(?P<act>[a-z]+)\s+(?:(?:must\s+not|may\s+not|cannot|can'?t|shall\s+not|must\s+never)\s+be\s+"
    rf"(?:issued|made|sent|paid|given|posted|applied|granted)\s+)?(?:to|on|for)\s+(?P<party>[a-z]+)\s+"
    rf"(?:in|with)\s+(?P<vals>{_LIST})\s+status(?:es)?(?P<banned>\s+(?:are|is)\s+(?:prohibited|"
    rf"forbidden|not\s+allowed|not\s+permitted|blocked))?{_END}",
    re.I,
)


def _listed(vals: str) -> tuple[str, ...]:
    return tuple(
        v.strip()
        for v in re.split(r"\s*(?:,\s*or\b|,|/|\bor\b|\bnor\b|\bnot\b)\s*", vals)
        if v.strip()
    )


def _code(value: str) -> str:
    """A state as a code: 'Under Investigation', 'under-investigation' are 'under_investigation'
    (a status is a closed code, not an identifier: its separators carry no meaning)."""
    return re.sub(r"[\s_\-]+", "_", value.strip().casefold()).strip("_")


def _party_named(party: str, arg: str) -> bool:
    return stem(party.lower()) in {stem(w) for w in re.split(r"[_.]", arg.lower())}


# states that refuse a party whatever its status says
_REFUSED_STATES = frozenset(
    "blocked suspended sanctioned frozen on_hold under_investigation debarred terminated "
    "revoked blacklisted".split()
)
_PAST = re.compile(r"(?:^|[_.])(?:previous|prior|old|former|original|last)(?:[_.]|$)")


@dataclass(frozen=True)
class NamedStatus(Check):
    """A state argument that must (`mode="allow"`) or must not (`mode="deny"`) hold one of the
    listed states. `path` is the argument as the rule names it; with none, the request's one
    status argument of the party (`status`, `account_status`). Values compare as codes, in any
    case; a value that only shares a word with a listed state (`suspended_pending`,
    `pre_collections`) is review, as is the argument missing, empty or not text."""

    path: str = ""
    party: str = ""  # the noun whose status it is, when the rule names no argument
    values: tuple[str, ...] = ()
    mode: str = "deny"
    kind: str = field(default="named_status", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(path=self.path, party=self.party, values=list(self.values), mode=self.mode)
        return d

    def _where(self) -> str:
        if self.path:
            return f"`{self.path}`"
        return f"the {self.party}'s status (an argument named `status` or `{self.party}_status`)"

    def reading(self) -> str:
        verb = "Send to review" if self.effect == "review" else "Deny"
        listed = " or ".join(self.values)
        if self.mode == "allow":
            head = f"{verb} unless {self._where()} is {listed}"
        else:
            head = f"{verb} when {self._where()} is {listed}"
        return (
            f"{head} (not sent, or a value sharing a word with one of them: review){self._about()}"
        )

    def _candidates(self, view: RequestView) -> list[Any]:
        if self.path:
            # the same state under a longer name ('payee_vendor_status' beside 'vendor_status')
            # is a second witness: when they disagree a human decides. A past one is not.
            last = self.path.rsplit(".", 1)[-1]
            return [
                lf
                for lf in view.leaves
                if lf.path == self.path
                or (lf.path.rsplit(".", 1)[-1].endswith("_" + last) and not _PAST.search(lf.path))
            ]
        party = stem(self.party.lower())
        out = []
        for lf in view.leaves:
            parts = [p for p in re.split(r"[_\-]", lf.path.rsplit(".", 1)[-1].lower()) if p]
            if parts in (["status"], ["state"]) or (
                len(parts) == 2 and stem(parts[0]) == party and parts[1] in ("status", "state")
            ):
                out.append(lf)
        return out

    def _other_witness(
        self, view: RequestView, found: list[Any], listed: set[str], state: str
    ) -> str | None:
        """Another argument that may hold the same thing's state and says otherwise, before an
        approval: with a named argument, the party's status nested or bare ('grantee.status',
        'status', 'user_state' beside 'grantee_status'/'user_status'); with none named, any
        status argument holding a listed state ('service_status': 'shutoff_pending' beside
        'account_status': 'active'). Each had been approved (jred20)."""
        seen = {lf.path for lf in found}
        if self.path:
            last = self.path.rsplit(".", 1)[-1].lower()
            party = re.sub(r"[_.](?:status|state)$", "", last)
            same = {f"{party}_status", f"{party}_state", "status", "state"}
        for lf in view.leaves:
            if lf.path in seen or _PAST.search(lf.path.lower()):
                continue
            flat = lf.path.lower().replace(".", "_")
            values = lf.value if isinstance(lf.value, list) else [lf.value]
            codes = {_code(v) for v in values if isinstance(v, str)}
            if (
                self.path
                and self.mode == "deny"
                and flat.startswith(party + "_")
                and codes & listed
            ):
                # `grantee_flags: ["under_investigation"]` beside `grantee_status: "active"`
                return f"{lf.path} = {lf.value!r} shows a listed state"
            if (
                self.path
                and self.mode == "allow"
                and flat.startswith(party + "_")
                and not re.search(r"(?:^|_)(?:status|state)$", flat)
                and any(c in _REFUSED_STATES or outcome_stated(c) is False for c in codes)
            ):
                # `vendor_flags: ["blocked"]` beside `vendor_status: "approved"`
                return f"{lf.path} = {lf.value!r} shows a state the rule may refuse"
            if not re.search(r"(?:^|_)(?:status|state)$", flat):
                continue
            if self.path:
                if (flat in same or flat.endswith("_" + party + "_status")) and codes != {state}:
                    return f"{lf.path} = {lf.value!r} may be the same state, and differs"
            elif codes & listed or any(
                set(c.split("_")) & set(v.split("_")) for c in codes for v in listed
            ):
                return f"{lf.path} = {lf.value!r} may be the {self.party}'s status"
        return None

    def evaluate(self, view: RequestView) -> Outcome:
        if self.terms and self.unrelated(view):
            return Outcome(UNKNOWN, f"the request may be no act of the rule ({self.subject()})")
        found = self._candidates(view)
        listed = {_code(v) for v in self.values}
        if not found:
            if not self.path and self.mode == "deny":
                values_of = {lf.path: lf.value for lf in view.leaves}
                shown = [
                    lf.path
                    for lf in view.leaves
                    if isinstance(lf.value, str) and _code(lf.value) in listed
                ]
                if shown:
                    said = f"{shown[0]} is {values_of[shown[0]]!r}"
                    return self.fire("matched", said, tuple(shown))
            return Outcome(UNKNOWN, f"{self._where()} is not sent")
        states = set()
        for lf in found:
            if not isinstance(lf.value, str) or not _code(lf.value):
                return Outcome(UNKNOWN, f"{lf.path} is not a state", (lf.path,))
            states.add(_code(lf.value))
        if len(states) != 1:
            return Outcome(UNKNOWN, "the status arguments disagree", tuple(lf.path for lf in found))
        state = states.pop()
        args = tuple(lf.path for lf in found)
        said = f"{found[0].path} is {found[0].value!r}"
        if state in listed:
            inside = True
        else:
            words = set(state.split("_"))
            # a listed state negated by a prefix ('inactive' beside 'must be active') is
            # plainly another state for a rule that wants the listed one; for a rule that
            # refuses the listed one, an odd negation ('not_suspended') is still a human's to
            # read. Any other shared word or part is close to one ('suspended_pending').
            negated = {p + v for v in listed for p in ("in", "un", "non", "non_", "not_")}
            if state in negated and self.mode == "allow":
                return self.fire("matched", said, args)
            if any(words & set(v.split("_")) or v in state for v in listed):
                return Outcome(UNKNOWN, f"{said}, close to a listed state", args)
            inside = False
        if inside == (self.mode == "deny"):
            return self.fire("matched", said, args)
        other = self._other_witness(view, found, listed, state)
        if other is not None:
            return Outcome(UNKNOWN, other, args)
        if not self.path and found[0].path.rsplit(".", 1)[-1].lower() in ("status", "state"):
            if stem(self.party) not in view.tool_stems:
                # a bare status on a tool named for another thing may be that thing's: it shows
                # a listed state, it rules none out
                return Outcome(UNKNOWN, f"{said}, which may not be the {self.party}'s", args)
        return Outcome(SATISFIED, said, args)


class StatusRecogniser:
    """States a named status argument must or must not hold."""

    kind = "named_status"

    def read(self, index: int, text: str) -> list[Check] | None:
        from webapp.judge.inline import inline_checks

        t = re.sub(r"\s+", " ", text.strip())
        if inline_checks(index, text) is not None:
            # 'offer_status must be extended or accepted' is inline.py's already (it compares
            # the value as written; a value in another case is review there)
            return None
        m = _NAMED_MUST.match(t)
        if m is not None:
            mode = "allow" if m.group("allow") else "deny"
            return self._check(index, text, m.group("arg"), "", m.group("vals"), mode, "")
        m = _DENY_LIST.match(t)
        if m is not None and _party_named(m.group("party"), m.group("arg")):
            return self._check(index, text, m["arg"], "", m["vals"], "deny", m["act"])
        m = _ONLY_WITH.match(t)
        if m is not None and _party_named(m.group("party"), m.group("arg")):
            if not self._restates(m.group("vals"), m.group("restate")):
                return None
            return self._check(index, text, m["arg"], "", m["vals"], "allow", "")
        m = _REQUIRES.match(t)
        if m is not None:
            if m.group("restate") and not (
                _party_named(m.group("party"), m.group("arg"))
                and self._restates(m.group("vals"), m.group("restate"))
            ):
                return None
            return self._check(index, text, m["arg"], "", m["vals"], "allow", m["act"])
        m = _ACT_TO_IN_STATUS.match(t)
        if m is not None and bool(m.group("banned")) == (" be " not in m.group(0).lower()):
            return self._check_party(index, text, m["party"], m["vals"], m["act"])
        m = _IN_STATUS.match(t)
        if m is not None:
            return self._check_party(index, text, m["party"], m["vals"], m["act"])
        return None

    @classmethod
    def _check_party(
        cls, index: int, text: str, party: str, vals: str, act: str
    ) -> list[Check] | None:
        party = party.lower()
        if party.endswith("s") and not party.endswith("ss"):
            party = party[:-1]  # 'accounts': the account's status
        return cls._check(index, text, "", party, vals, "deny", act)

    @staticmethod
    def _restates(allowed: str, restate: str | None) -> bool:
        """'(not pending, not blocked)' beside 'approved' restates the allow-list only when it
        names other states."""
        return not restate or not ({_code(v) for v in _listed(restate)} & {_code(allowed)})

    @staticmethod
    def _check(
        index: int, text: str, arg: str, party: str, vals: str, mode: str, act: str
    ) -> list[Check] | None:
        values = _listed(vals)
        if not values or any(v.lower() in ("and", "any", "other", "all") for v in values):
            return None
        terms = tuple(stem(w) for w in act.lower().split()) if act else ()
        return [
            NamedStatus(index, text, "deny", terms, path=arg, party=party, values=values, mode=mode)
        ]


# a relation between two names of one kind anywhere in a rule
_RELATION = re.compile(
    rf"(?<![\w.])(?P<a>{_ID})\s*(?P<op>{_MUST_SAME}|{_MUST_DIFFER})\s*(?:the\s+)?(?P<b>{_ID})(?![\w.])",
    re.I,
)


def pair_read_otherwise(text: str, every: Any) -> list[str]:
    """The relation words of a rule comparing two arguments of one kind ('(total_debits ==
    total_credits)', 'preparer_id must differ from approver_id') that no check compares as two
    arguments: read by other readers, 'Foreign JEs must balance (total_debits ==
    total_credits)' was "Deny when `total_debits` is not \"total_credits\"" and '… (SoD) within
    30 days' a cap on a duration, both understood. Left unaccounted, the rule never decides."""
    from webapp.judge.checks import ArgumentComparison, SameValue

    found = [
        m.group("op")
        for m in _RELATION.finditer(text)
        if m.group("a").lower() != m.group("b").lower() and _same_kind(m["a"], m["b"])
    ]
    if not found:
        return []
    if any(isinstance(c, (ArgumentPair, SameValue, ArgumentComparison)) for c in every):
        return []
    return found


_STATUS_NAMED = re.compile(
    rf"(?<![\w.])(?P<arg>{_STATUS_ARG})\s*(?:is|=|==|!=|in|(?:must|should|shall|may|can)(?:\s+not)?"
    rf"\s+be)\s+(?!(?:not|sent|given|set|present|provided|empty|blank|null)\b)[a-z]",
    re.I,
)


def _fields_text(c: Any) -> str:
    """What a check holds, less the rule's own words (its `source`, and a nested check's)."""
    held = repr([getattr(c, f.name) for f in fields(c) if f.name != "source"])
    source = getattr(c, "source", "")
    if source:
        held = held.replace(repr(source), "").replace(source, "")
    return held.lower()


def status_read_otherwise(text: str, every: Any) -> list[str]:
    """A status argument the rule names with its states ('… whose grantee_status is suspended
    or under_investigation when the amount is over 500 USD') that no check reads: read as the
    amount's cap alone, a suspended grantee paid 400 USD was approved. The name is left
    unaccounted, so the rule never decides."""
    out = []
    for m in _STATUS_NAMED.finditer(text):
        arg = m.group("arg")
        if "_" not in arg and "." not in arg:
            continue  # a bare 'status' is prose as often as a name
        if not any(arg.lower() in _fields_text(c) for c in every):
            out.append(arg)
    return out


_IN_STATES = re.compile(rf"\b(?:in|with)\s+(?P<vals>{_LIST})\s+status(?:es)?\b", re.I)


def states_read_otherwise(text: str, every: Any) -> list[str]:
    """States written before 'status' ('accounts in collections or shutoff_pending status') that
    no check compares with: '… status when the amount is over 500 USD' was read as the cap
    alone and approved an adjustment of 400 USD to an account in collections."""
    out = []
    held = [_fields_text(c) for c in every]
    for m in _IN_STATES.finditer(text):
        for v in _listed(m.group("vals")):
            if not any(v.lower() in h for h in held) and v not in out:
                out.append(v)
    return out


def contrary_status(path: str, view: RequestView) -> str | None:
    """Another argument holding the same party's state as the status argument `path`, with
    another value: `consent_state: "withdrawn"` or `consent.status` beside `consent_status:
    "granted"` (inline.py's 'consent_status must be granted' had approved it, jred20)."""
    last = path.rsplit(".", 1)[-1].lower()
    if not re.search(r"[_.](?:status|state)$", last):
        return None
    party = re.sub(r"[_.](?:status|state)$", "", last)
    same = {f"{party}_status", f"{party}_state"}
    mine = {_code(lf.value) for lf in view.leaves if lf.path == path and isinstance(lf.value, str)}
    if len(mine) != 1:
        return None
    for lf in view.leaves:
        if lf.path == path or _PAST.search(lf.path.lower()):
            continue
        if lf.path.lower().replace(".", "_") in same:
            if not isinstance(lf.value, str) or {_code(lf.value)} != mine:
                return f"{lf.path} = {lf.value!r} may be the same state, and differs"
    return None


_RECOGNISERS = (PairRecogniser(), StatusRecogniser())
# the kinds of check this module makes from a whole sentence
PAIR_KINDS = frozenset({"arguments_match", "distinct_arguments", "roles_distinct", "named_status"})


def pair_and_status_checks(index: int, text: str) -> list[Check] | None:
    """The checks of a rule comparing two arguments or naming the states of one, read whole;
    None when the rule is none of these shapes."""
    # a list marker the asides left ('• requester and approver …', '3) …')
    bare = re.sub(r"^\s*(?:[\u2022*\-\u2013]|\(?\d{1,2}[.)])\s+", "", text)
    for r in _RECOGNISERS:
        made = r.read(index, bare)
        if made is not None:
            return made
    return None
