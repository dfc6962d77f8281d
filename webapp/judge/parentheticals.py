"""Parenthetical remarks in prose that are not argument names, read for what they are.

Staff put a bracket after a rule, a bound or a name for several reasons. Some add no condition
and are set aside before the rule is read, each with what must hold for that to be true; a
remark whose condition the compiled checks do not meet stays unaccounted for (partly
understood, review):

- a **reason** ('DUS-2 is under change freeze (peak season)', 'blocked (supplier dispute)',
  '(ATO risk)', '(local law)'): at the end of a clause that states an obligation, a short noun
  phrase whose head is a word for a cause (risk, dispute, season, law, review, audit …), or one
  opened by 'due to' / 'because';
- **what a total includes** ('(incl. this one)', '(today's earlier credits count)'): the
  engine's totals over a window add the request to the earlier ones (`NumericLimit`: today's
  total is history plus this value, a count per hour is history plus one), so the remark states
  how the total is already taken; it needs a check that sums or counts over a window;
- an **estimate marker** right after an amount ('$2,000 a month (est.)'): the figure compared is
  the estimate the request states; it needs a numeric check (an approximate bound, '(approx.)',
  is not set aside: how near is near is a human's call);
- a **description of a named argument** ('shipper_cert_id (IATA/ADR DG cert) is required'): its
  head noun restates the argument's own name (cert, cert_id); it needs a check reading that
  argument;
- a **description of a code** ('MCC 7995 (gambling)', 'UN Class 1 (explosives)'): it needs a
  check comparing with the code (read as a value, 'gambling' had been compared instead of 7995).

Never set aside: a remark holding a word that restricts or widens ('only', 'except', 'not',
'for', 'over', 'and', 'etc.', …), a number (but a ticket id in a reason), an argument name or a
comparison, an abbreviation alone ('(PAN)', another reading's) or a list of examples. A total
that leaves something out ('(excluding this one)', '(not counting refunds)') is kept
unaccounted even where other words would account for it.

Examples of an open category ('personal email accounts (gmail, yahoo, …, etc.)'): 'etc.' leaves
the category open, so a value list that took the examples as its list is no closed list; see
`open_examples`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields

from webapp.judge.checks import (
    NOT_APPLICABLE,
    PERMITTED,
    REVIEW,
    SATISFIED,
    UNKNOWN,
    VIOLATED,
    Outcome,
    ValueList,
)
from webapp.judge.request_view import RequestView
from webapp.judge.text import stem, words

# Words that make a bracket restrict, widen, condition or compare: never set aside.
_BLOCK = frozenset(
    """only except excepting excluding exclude excludes excl unless not no non never nor if when
    where whenever while until till before after during for to from in on at with without by per
    within outside inside over under above below more less than fewer greater and or plus also
    other others all any every each incl including include includes etc eg e.g ie i.e such like
    its their this that these those first same see max min maximum minimum up least most
    approx approximately about around roughly exactly else otherwise except via between but""".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z\-'/&.]*")

# the head nouns of a reason
_REASON_HEADS = frozenset(
    stem(w)
    for w in """risk risks dispute disputes season protection law laws regulation regulations
    compromise fraud pattern incident incidents outage outages breach breaches audit audits
    investigation investigations exposure abuse concern concerns issue issues sanctions embargo
    litigation moratorium migration cutover reason reasons requirement requirements mandate
    directive review reviews submissions duplicates chargebacks complaints""".split()
)
# a review, audit or investigation is a reason only when it names whose it is ('DFS review')
_BODY_HEADS = frozenset(stem(w) for w in "review reviews audit audits investigation".split())
_EFFECT_WORDS = frozenset(
    "human manual manager managers approval approver sign-off signoff lead supervisor".split()
)
# what staff name their obligations with before a reason: a modal, a freeze, an arrow
_OBLIGATION = re.compile(
    r"\b(?:must|shall|should|may|can(?:not|'t)?|never|no|not|don'?t|do\s+not|need|needs|"
    r"required?|requires|freeze|frozen|locked|blocked|prohibited|forbidden|banned|suspended|"
    r"halted|paused|embargoed|allowed|permitted|capped|max|review)\b|->|=>|\u2192",
    re.I,
)
_TICKET = re.compile(r"^[A-Z]{2,}-\d+$")
# a remark stands apart from the word before it ('12(b)', 'f(x)' are names, not remarks)
_PAREN = re.compile(r"\s+\((?P<inner>[^()]{2,80})\)")
_CLAUSE_END = re.compile(r"\s*(?:$|[.;!,]|\s-\s|\s-$|:)")

_INCLUDES = re.compile(
    r"^(?:incl\.?|including|counting|includes|include|this\s+one\s+counts|"
    r"(?:this|the\s+current)\s+(?:one|request)\s+(?:counts|included|includes))"
    r"(?:\s+(?:this|the\s+current)\s+(?:one|request|[a-z\-]+))?\.?$",
    re.I,
)
_EARLIER_COUNT = re.compile(
    r"^(?:today'?s\s+)?(?:earlier|previous|prior)\s+(?:[a-z\-]+\s+){0,2}?(?:today\s+)?"
    r"(?:count|counts|included|add\s+up|are\s+included)\.?$",
    re.I,
)
_LEAVES_OUT = re.compile(r"\b(?:excluding|excl\b\.?|not\s+counting|except|without)\b", re.I)
_ESTIMATE = re.compile(r"^(?:est\.?|estimated|estimate)$", re.I)
_AMOUNT_BEFORE = re.compile(
    r"\d(?:[\d,.]*\d)?\s*(?:k|m)?\s*(?:[a-z]{3}\b)?(?:\s*(?:/|per|a|an|each)\s*[a-z]+)?\s*$",
    re.I,
)
_ARGUMENT_BEFORE = re.compile(r"(?<![\w.])(?P<arg>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s*$")
# a code: 'MCC 7995', 'UN1993', 'Class 1', 'DAW 1' (never an amount, a date or a time)
_CODE_BEFORE = re.compile(
    r"(?:(?<![\w\-.,:/$\u20ac\u00a3])(?P<code>(?:[A-Z]{2,}-?)?\d{1,6}(?:\.\d{1,2})?[A-Z]?)|"
    r"\b(?:class|cat|category|code|type|schedule|division)\s+(?P<code2>[A-Z0-9][\w.]{0,5}))\s*$"
)
# words for an identifier's own parts, and what staff write for them
_SAME = {
    "certificate": "cert",
    "reference": "ref",
    "identifier": "id",
    "number": "no",
    "num": "no",
    "nr": "no",
    "account": "acct",
    "document": "doc",
    "agreement": "agreement",
}


@dataclass(frozen=True)
class Aside:
    """One bracket set aside: its kind, its words, and what the checks must show."""

    kind: str  # reason | includes | estimate | argument | code
    text: str  # the bracket as written, '(peak season)'
    anchor: str = ""  # the argument or code it describes


def _plain(inner: str) -> list[str] | None:
    """The words of a bracket made only of plain words none of which restricts, else None."""
    if re.search(r"[\d=<>:$\u20ac\u00a3%_*+]|\be\.g\b|\bi\.e\b", inner, re.I):
        return None
    got = _WORD.findall(inner)
    if not got or len(got) > 6:
        return None
    if " ".join(got).replace(" ", "") != re.sub(r"[\s,]", "", inner).rstrip("."):
        return None  # something besides words (a comma list is examples, not a description)
    if any(w.lower().strip(".") in _BLOCK for w in got):
        return None
    return got


def _reason(inner: str) -> bool:
    inner = inner.strip()
    m = re.match(r"^(?:due\s+to|because\s+of|owing\s+to)\s+(?P<rest>.+)$", inner, re.I)
    if m:
        return _plain(m.group("rest")) is not None
    parts = [p.strip() for p in inner.split(",")]
    if len(parts) == 2 and _TICKET.match(parts[0]):
        inner = parts[1]  # '(INC-4471, duplicate submissions)'
    elif len(parts) != 1:
        return False
    got = _plain(inner)
    if got is None or len(got) > 4:
        return False
    if len(got) == 1 and got[0].isupper():
        return False  # an abbreviation ('(PAN)'): another reading's
    if any(w.lower() in _EFFECT_WORDS for w in got):
        return False  # '(human review)', '(manager approval)': the effect, not a reason
    head = stem(got[-1].lower())
    if head in _BODY_HEADS and not (len(got) > 1 and got[-2][:1].isupper()):
        return False  # '(DFS review)', '(SOX audit)' name who reviews; '(review)' is the effect
    return head in _REASON_HEADS


def _restates(arg: str, described: list[str]) -> bool:
    parts = {_SAME.get(p, p) for p in arg.split("_")}
    parts |= {stem(p) for p in parts}
    head = described[-1].lower().rstrip(".")
    head = _SAME.get(head, head)
    return head in parts or stem(head) in parts


def set_aside(text: str) -> tuple[str, tuple[Aside, ...]]:
    """`text` without its brackets that add no condition, and what was set aside."""
    found: list[tuple[int, int, Aside]] = []
    for m in _PAREN.finditer(text):
        inner = m.group("inner").strip()
        before = text[: m.start()]
        after = text[m.end() :]
        kind, anchor = "", ""
        if _INCLUDES.match(inner) or _EARLIER_COUNT.match(inner):
            kind = "includes"
        elif _ESTIMATE.match(inner) and _AMOUNT_BEFORE.search(before):
            kind = "estimate"
        elif (arg := _ARGUMENT_BEFORE.search(before)) is not None:
            described = _plain(inner)
            if described and _restates(arg.group("arg"), described):
                kind, anchor = "argument", arg.group("arg")
        elif (code := _CODE_BEFORE.search(before)) is not None:
            described = _plain(inner)
            if described and not (len(described) == 1 and described[0].isupper()):
                kind, anchor = "code", code.group("code") or code.group("code2")
        if not kind and _CLAUSE_END.match(after) and _reason(inner):
            sentence = re.split(r"[.;!?]\s", before)[-1]
            if _OBLIGATION.search(sentence) or _OBLIGATION.search(re.split(r"[.;!?]", after)[0]):
                kind = "reason"
        if kind:
            found.append((m.start(), m.end(), Aside(kind, m.group(0).strip(), anchor)))
    if not found:
        return text, ()
    out, pos = [], 0
    for start, end, _ in found:
        out.append(text[pos:start])
        pos = end
    out.append(text[pos:])
    return re.sub(r"\s+", " ", "".join(out)).strip(), tuple(a for _, _, a in found)


def _all(checks) -> list:
    out, todo = [], list(checks)
    while todo:
        c = todo.pop()
        out.append(c)
        for name in ("base", "condition", "body", "fallback"):
            inner = getattr(c, name, None)
            if inner is not None and hasattr(inner, "evaluate"):
                todo.append(inner)
        todo.extend(getattr(c, "options", ()) or ())
    return out


def unmet(asides: tuple[Aside, ...], checks, text: str = "") -> list[str]:
    """The brackets set aside whose condition the compiled checks do not meet (left unaccounted
    for: the rule is partly understood)."""
    if not asides:
        return []
    every = _all(checks)
    left: list[str] = []
    for a in asides:
        ok = True
        if a.kind == "reason":
            ok = not any(_masks_a_misreading(c, text) for c in every)
        elif a.kind == "includes":
            daily_only = bool(_EARLIER_COUNT.match(a.text.strip("() ")))
            ok = any(
                getattr(c, "kind", "") == "numeric_limit"
                and (
                    getattr(c, "window", None) == "day"
                    if daily_only
                    else (getattr(c, "window", None) or getattr(c, "counts_calls", False))
                )
                for c in every
            )
        elif a.kind == "estimate":
            ok = any(getattr(c, "kind", "") == "numeric_limit" for c in every)
        elif a.kind == "argument":
            ok = any(a.anchor in json.dumps(c.describe(), default=str) for c in every)
        elif a.kind == "code":
            want = a.anchor.lower()
            ok = any(
                want in (str(v).lower() for v in (getattr(c, "values", ()) or ())) for c in every
            )
        if not ok:
            left.append(a.text)
    return left


def _masks_a_misreading(c, text: str) -> bool:
    """Readings a reason must not be the last word standing beside (it had kept them partly
    understood): a bare number compared with no unit, currency or counted thing ('below 32°F'
    read as 'the amount is below 32'), and a value cut out of a proper name ('Grand Meridian
    properties' read as 'meridian properties is Grand')."""
    if getattr(c, "kind", "") == "numeric_limit":
        return not (
            getattr(c, "currency", None)
            or getattr(c, "unit_family", None)
            or getattr(c, "noun", None)
            or getattr(c, "counts_calls", False)
        )
    for v in getattr(c, "values", ()) or ():
        v = str(v)
        if v[:1].isupper() and re.search(rf"\b{re.escape(v)}\s+[A-Z][a-z]", text):
            return True
    return False


def left_out_of_total(text: str) -> list[str]:
    """'(excluding this one)', '(not counting refunds)': a bracket saying what a total leaves out,
    which no reading takes; its marker stays unaccounted for."""
    out = []
    for m in _PAREN.finditer(text):
        lo = _LEAVES_OUT.search(m.group("inner"))
        if lo and re.search(
            r"\b(?:total|daily|per\s+(?:day|hour|week|month)|/\s*(?:day|hour)|a\s+day)\b",
            text[: m.start()],
            re.I,
        ):
            out.append(lo.group(0).lower())
    return out


# 'BER-1 is under change freeze (peak season). No slotting changes there.': 'there' points back
# at a place another sentence names; read alone, the second sentence forbade slotting changes
# everywhere (exposed once the reason was set aside). Not existential 'there is/are'.
_PLACE_ANAPHOR = re.compile(
    r"[.;:]\s.*\b(?P<w>there)\b(?!\s+(?:is|are|was|were|be|has|have|had|must|may|might|"
    r"should|shall|will|can|could|would|need|needs|exists?)\b)",
    re.I,
)


def place_anaphor(text: str) -> list[str]:
    """'there' in a later sentence, pointing back at a place: not read, left unaccounted."""
    m = _PLACE_ANAPHOR.search(text)
    return [m.group("w").lower()] if m else []


_ETC = frozenset({"etc", "etc.", "etcetera", "and so on"})


def _etc(v) -> bool:
    return str(v).lower().strip() in _ETC


@dataclass(frozen=True)
class OpenValueList(ValueList):
    """A value list whose values are examples of an open category ('No sharing with personal
    email accounts (gmail, yahoo, outlook.com, icloud, etc.)'): a value it names decides as the
    list does; any other value goes to review, since 'etc.' leaves the category open (the
    tenant glossary, when it defines the category, is read by the category checks instead).
    Read as a closed list that held 'etc', it had approved protonmail.com."""

    def reading(self) -> str:
        return f"{super().reading()}; the values are examples of an open kind: any other, review"

    def evaluate(self, view: RequestView) -> Outcome:
        got = super().evaluate(view)
        if got.status == NOT_APPLICABLE and self.mode == "deny":
            # Fifteenth session: 'Campaigns promoting regulated products (alcohol, gambling,
            # tobacco, etc.) need Legal review' and `product_category: "sports betting"`: the
            # subject's verb ('promoting') was not shown, so the list was set aside and the
            # campaign approved; an argument named for the open kind holding a value the
            # examples do not name is for a human, whatever the subject's other words
            kind = set(self.kind_words)
            named = [
                leaf.path
                for leaf in view.leaves
                if isinstance(leaf.value, str) and leaf.value.strip() and leaf.last_keys & kind
            ]
            if named:
                return Outcome(
                    UNKNOWN,
                    f"{', '.join(named)} may be of the open kind the rule's examples stand for "
                    "('etc.'): a human decides",
                    tuple(named),
                )
        unnamed = (self.mode == "deny" and got.status in (SATISFIED, PERMITTED)) or (
            self.mode == "allow" and got.status in (VIOLATED, REVIEW)
        )
        if not unnamed:
            return got
        return Outcome(
            UNKNOWN,
            f"{', '.join(got.args) or 'the value'} is not among the examples the rule names "
            "and 'etc.' leaves the category open: a human decides",
            got.args,
        )


def open_lists(checks: list, examples=lambda c: False) -> tuple[list, bool]:
    """`checks` with each top-level value list that holds 'etc', or whose values are all
    examples after 'e.g.', 'such as', 'like' (`examples`), made an `OpenValueList` (without
    'etc'); whether any was."""
    out, changed = [], False
    for c in checks:
        if (
            type(c) is ValueList
            and c.mode in ("deny", "allow")
            and c.match not in ("word", "consumer_mail")
            and any(not _etc(v) for v in c.values)
            and (any(_etc(v) for v in c.values) or examples(c))
        ):
            kept = tuple(v for v in c.values if not _etc(v))
            fields_ = {f.name: getattr(c, f.name) for f in dataclass_fields(c) if f.init}
            fields_["values"] = kept
            out.append(OpenValueList(**fields_))
            changed = True
        else:
            out.append(c)
    return out, changed


def open_examples(checks) -> list[str]:
    """'etc' left among the values of a list no reading opened (inside another check): the list
    was examples of an open category read as if closed; the marker stays unaccounted for, so a
    human decides."""
    for c in _all(checks):
        if any(
            str(v).lower().rstrip(".") in ("etc", "etcetera")
            for v in (getattr(c, "values", ()) or ())
        ):
            return ["etc."]
    return []


def words_of(asides: tuple[Aside, ...]) -> set[str]:
    """The words of the brackets set aside (for the coverage record's accounting)."""
    return {w for a in asides for w in words(a.text)}
