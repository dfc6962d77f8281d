"""Rules written as a table of values and what each gets, as staff jot them.

`Channel retail_store or app: OK. Phone or chat -> fraud team must review.`, `Tier overrides -
Silver/Gold: OK. Platinum: VP CX sign-off required.`, `env: dev or staging fine; prod -> deny`.

A rule is read here only when every statement of it is one row — a list of plain values, then
what they get after `:`, `->`, `=>`, `→` or `=` (approval, review by a person or team, refusal) —
and the first row names the argument the values are of, by a heading word (`Channel`) or an
argument name (`payment_channel`). Anything else (a condition, a second clause, a value with a
space in it) and the rule is left to the other readings.

The value is compared exactly (case and `-`/`_`/space aside) with the one argument named for the
heading: a value in a row gets that row's effect; a value in no row, a missing argument or several
arguments named for the heading go to review, never to approval.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from webapp.judge.checks import REVIEW, SATISFIED, UNKNOWN, VIOLATED, Check, Outcome
from webapp.judge.request_view import RequestView, scalars
from webapp.judge.text import stem

# '->', ':', '=' between a row's values and what they get; a bare space before a one-word
# approval or refusal ('dev/staging fine')
_ARROW = (
    r"(?:\s*(?:->|=>|\u2192|:|=)\s*|\s+(?=(?i:ok|okay|fine|allowed|denied|blocked|refused)[.;!]?$))"
)
_VALUE = r"[A-Za-z0-9][A-Za-z0-9_\-]*"
_VALUES = rf"{_VALUE}(?:\s*(?:,|/|\bor\b|\band\b)\s*{_VALUE})*"
# the heading: one or two words, or an argument's name, before the first row's values
_FIRST_ROW = re.compile(
    rf"^(?P<head>[A-Za-z][A-Za-z_]*(?:\s+[A-Za-z][A-Za-z_]*)?)(?:\s*[:\-\u2013]\s*|\s+)"
    rf"(?P<values>{_VALUES}){_ARROW}(?P<effect>.+)$"
)
_ROW = re.compile(rf"^(?P<values>{_VALUES}){_ARROW}(?P<effect>.+)$")
_ALLOW = re.compile(
    r"^(?:ok(?:ay)?|fine|allowed|permitted|approved?|auto-?approved?|go|yes|no\s+approval\s+needed)"
    r"(?:\s+for\s+(?:the\s+)?(?:agents?|bots?))?$",
    re.I,
)
_DENY = re.compile(
    r"^(?:deny|denied|reject(?:ed)?|refused?|blocked?|not\s+allowed|not\s+permitted|forbidden|"
    r"prohibited|never|no)$",
    re.I,
)
_REVIEW = re.compile(
    r"^(?:(?:the\s+)?(?P<who>[A-Za-z][A-Za-z\-]*(?:\s+[A-Za-z][A-Za-z\-]*){0,3})\s+"
    r"(?:must|has\s+to|have\s+to|needs?\s+to|should)\s+(?:review|approve|sign\s+off)"
    r"|(?:[A-Za-z][A-Za-z\-]*(?:\s+[A-Za-z][A-Za-z\-]*){0,3}\s+)?"
    r"(?:review|approval|sign-?\s?off)(?:\s+(?:required|needed))?"
    r"|(?:needs?|requires?)\s+(?:[A-Za-z][A-Za-z\-]*\s+){0,3}(?:review|approval|sign-?\s?off))$",
    re.I,
)
# words a row's values never are: a condition, a connective, an effect word
_NOT_A_VALUE = frozenset(
    "if when unless except only not no never all any other others else anything everything "
    "above over under below more less than must may can should or and".split()
)


def _effect(text: str) -> str | None:
    t = re.sub(r"\s+", " ", text.strip().rstrip(".!")).strip()
    if _ALLOW.match(t):
        return "allow"
    if _DENY.match(t):
        return "deny"
    if _REVIEW.match(t):
        return "review"
    return None


def _values(text: str) -> tuple[str, ...] | None:
    parts = [p for p in re.split(r"\s*(?:,|/|\bor\b|\band\b)\s*", text.strip()) if p]
    if not parts or any(p.lower() in _NOT_A_VALUE for p in parts):
        return None
    return tuple(parts)


def _norm(value: str) -> str:
    return re.sub(r"[\s_\-]+", "_", value.strip().lower())


def table_checks(index: int, source: str) -> list[Check] | None:
    """The one check of a rule written as a table of values, read whole, or None."""
    if not re.search(r"(?:->|=>|\u2192|:|=)[^.;]*[.;]\s*\S", source):
        return None  # one row at most: no table
    rows = [r.strip() for r in re.split(r"\s*[.;]\s+|\s*[.;]\s*$", source.strip()) if r.strip()]
    if len(rows) < 2:
        return None
    first = _FIRST_ROW.match(rows[0])
    if first is None:
        return None
    head = first.group("head")
    got: dict[str, list[str]] = {"allow": [], "review": [], "deny": []}
    for i, row in enumerate(rows):
        m = first if i == 0 else _ROW.match(row)
        if m is None:
            return None
        values, effect = _values(m.group("values")), _effect(m.group("effect"))
        if values is None or effect is None:
            return None
        got[effect].extend(values)
    listed = [_norm(v) for vs in got.values() for v in vs]
    if len(set(listed)) != len(listed) or not got["allow"]:
        return None  # a value in two rows, or nothing a request may have: not a table
    return [
        ValueTable(
            index,
            source,
            "deny",
            heading=head,
            allowed=tuple(got["allow"]),
            reviewed=tuple(got["review"]),
            refused=tuple(got["deny"]),
        )
    ]


@dataclass(frozen=True)
class ValueTable(Check):
    """What each value of one argument gets: approval, review or refusal; any other: review."""

    heading: str = ""
    allowed: tuple[str, ...] = ()
    reviewed: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()
    kind: str = field(default="value_table", init=False)

    def describe(self) -> dict:
        d = super().describe()
        d.update(
            heading=self.heading,
            allowed=list(self.allowed),
            reviewed=list(self.reviewed),
            refused=list(self.refused),
        )
        return d

    def reading(self) -> str:
        parts = [f"approve when `{self._name}` is {_listed(self.allowed)}"]
        if self.reviewed:
            parts.append(f"send to review when it is {_listed(self.reviewed)}")
        if self.refused:
            parts.append(f"deny when it is {_listed(self.refused)}")
        return (
            "; ".join(parts)[0].upper()
            + "; ".join(parts)[1:]
            + f"; any other value, none or several arguments named for the {self.heading.lower()}: review"
        )

    @property
    def _name(self) -> str:
        return self.heading.lower().replace(" ", "_")

    def _bound(self, view: RequestView) -> list:
        name = _norm(self.heading)
        words = {stem(w) for w in re.split(r"[\s_]+", self.heading.lower()) if w}
        exact = [lf for lf in view.leaves if _norm(lf.path.rsplit(".", 1)[-1]) == name]
        if exact:
            return exact
        # 'Channel' and `payment_channel`: an argument whose name ends with the heading's words
        return [
            lf
            for lf in view.leaves
            if lf.last_keys and words <= lf.last_keys and not isinstance(lf.value, (dict, bool))
        ]

    def evaluate(self, view: RequestView) -> Outcome:
        bound = self._bound(view)
        if len(bound) != 1:
            what = "no argument" if not bound else "several arguments"
            return Outcome(UNKNOWN, f"{what} named for the {self.heading.lower()}")
        leaf = bound[0]
        values = [v for v in scalars(leaf.value) if isinstance(v, str)]
        if len(values) != 1:
            return Outcome(UNKNOWN, f"{leaf.path} holds no single value", (leaf.path,))
        got = _norm(values[0])
        for row, status in ((self.refused, VIOLATED), (self.reviewed, REVIEW)):
            if got in {_norm(v) for v in row}:
                return Outcome(status, f"{leaf.path} = {values[0]!r}", (leaf.path,))
        if got in {_norm(v) for v in self.allowed}:
            return Outcome(SATISFIED, f"{leaf.path} = {values[0]!r} is allowed", (leaf.path,))
        return Outcome(UNKNOWN, f"{leaf.path} = {values[0]!r} is in no row", (leaf.path,))


def _listed(values: tuple[str, ...]) -> str:
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " or " + values[-1]
