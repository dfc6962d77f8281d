"""A bare list membership, as engineers and ops staff write a constraint (jred24).

`country not in (RU, BY, IR)`, `- env NOT IN ('prod', 'production')`, `` `currency` not in
[RUB, BYN] ``, `merchant category not in (gambling, crypto)`, `reason ∉ {court_order, fraud}`,
`region ∈ {us-east-1, eu-west-1}`: the whole rule is an argument, a membership sign and a
written list, with no effect. It states what must hold: the value is (not) one of the list.

The prose readings took 'not in (' for the outside of an allow-list ('Payments to countries not
in (US, CA) are prohibited' denies what lies outside), so the bare constraint became the
allow-list of the values it refuses: RU was approved and every other country denied. Here the
rule is restated in the words a reading knows — notation for an argument's name
(`country not in ("RU", "BY", "IR")`), 'must (not) be one of:' for a noun phrase — and the
restatement is taken only when it is understood; a refused list that is not left partly
understood (compiler.compile_rule), never read as the list itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from webapp.judge.notation import read

_LEAD = r"^\s*(?:[-*\u2022\u00b7]\s*|\(?\d{1,2}[.)]\s*|[a-z][.)]\s+)?"
_BARE = re.compile(
    _LEAD
    + r"(?P<subj>[`'\"]?[A-Za-z][\w.\-]*[`'\"]?(?:\s+(?!(?:not|in)\b)[A-Za-z][\w.\-]*){0,3})\s*"
    r"(?P<op>\bnot\s+in\b|!\s*in\b|\u2209|\bin\b|\u2208)\s*"
    r"(?P<list>\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\})\s*(?P<only>only)?"
    # an effect after an arrow ('- regions NOT IN (us-east-1) -> cloud review'): read by notation
    r"(?P<tail>\s*(?:->|=>|\u2192)\s*[^()\[\]{}]+?)?\s*[.;]?\s*$",
    re.I,
)
# words that make the subject more than a name: a verb, a modal, a preposition, a determiner
_NOT_A_NAME = frozenset(
    "must may can should shall will would not no never is are be was were has have to from for "
    "with of on by at as into only all any every each the a an this that these those if when "
    "unless except allowed permitted prohibited forbidden blocked denied".split()
)
_ITEM = re.compile(r"[A-Za-z0-9][\w .&:@/\-]*")


@dataclass(frozen=True)
class Membership:
    subject: str
    negated: bool
    values: tuple[str, ...]
    tail: str = ""  # an effect after an arrow, read by notation alone

    @property
    def restated(self) -> str:
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*", self.subject):
            quoted = ", ".join('"' + v + '"' for v in self.values)
            noted = f"{self.subject} {'not in' if self.negated else 'in'} ({quoted}){self.tail}"
            # notation reads an argument's name, never a plural noun ('channels NOT IN (push)'):
            # what it does not read is said in prose, never left to the reading of 'not in ('
            if read(noted) is not None:
                return noted
        if self.tail:
            # 'regions NOT IN (us-east-1) -> review' said in prose would review the listed
            # values: notation alone reads it, or nothing does (compiler.compile_rule)
            return ""
        verb = "must not be one of" if self.negated else "must be one of"
        return f"{self.subject} {verb}: {', '.join(self.values)}"


def bare_membership(text: str) -> Membership | None:
    """The membership a rule states as a whole, or None."""
    m = _BARE.match(text)
    if m is None:
        return None
    subject = m.group("subj").strip().strip("`'\"")
    if not subject or {w.lower() for w in subject.split()} & _NOT_A_NAME:
        return None
    op = re.sub(r"\s+", " ", m.group("op").lower())
    negated = op in ("not in", "!in", "! in", "\u2209")
    if negated and m.group("only"):
        return None  # 'not in (…) only': which is meant is not read
    body = m.group("list")[1:-1]
    values = []
    for item in re.split(r"\s*[,|;]\s*|\s+or\s+", body):
        item = item.strip().strip("`'\"").strip()
        if not item:
            continue
        if not _ITEM.fullmatch(item):
            return None
        values.append(item)
    if not values:
        return None
    return Membership(subject, negated, tuple(values), m.group("tail") or "")
