"""Rules labelled understood whose reading says something else than the rule (red team jred14).

Each guard looks at a rule as written and every check compiled from it, and names the words of a
phrasing the checks read wrongly; those words stay unaccounted for, so the rule is partly
understood and never decides on its own (misreadings.py runs them beside its own guards). A guard
looks at what the checks read, not at the words alone: a reader that reads the phrasing right
makes it find nothing.

Each was found on the seen sets holdout_36…41 and shown as an unsafe approval or a false denial
beside satisfied rules in bench/judge_cases/dev_jred14.json.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from webapp.judge.checks import (
    NOT_APPLICABLE,
    SATISFIED,
    UNKNOWN,
    ActionRule,
    Check,
    NumericLimit,
    Outcome,
    ValueList,
)
from webapp.judge.request_view import RequestView
from webapp.judge.text import STOPWORDS, stem, words

# an argument's name as staff write it: snake_case ('seats_used', 'qualified_types')
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")


def _list_values(c: Check) -> list[str]:
    return [str(v) for v in getattr(c, "values", ()) or ()] if isinstance(c, ValueList) else []


# -- an argument's name compared with another read as a value ------------------------------------
# 'An invite must not push seats_used over seats_licensed' read as "Deny when an argument is
# seats_used": 51 seats used of 50 licensed passed; 'from_country different from to_country' as
# "an argument is to_country"; 'aircraft_type must be one of the crew member's qualified_types' as
# "Deny unless an argument is qualified_types"; '-> signature_algorithm must be rsa-sha256 or
# rsa-sha512' as "Deny when an argument is signature_algorithm" (rsa-sha1 was never refused). A
# name that is compared, owned ("the member's …") or given values is an argument, not a value.
def _compared_name_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for c in every:
        for v in _list_values(c):
            if not _SNAKE.match(v):
                continue
            e = re.escape(v)
            if re.search(
                # the name is the measured side: 'seats_used over …', 'x differs from …'
                rf"\b{e}\s+(?:(?:is|are|must\s+not\s+be|may\s+not\s+be)\s+)?(?:over|above|below|"
                rf"under|exceeds?|exceeding|beyond|differs?|different|other\s+than|less\s+than|"
                rf"more\s+than|greater\s+than|after|before|>=?|<=?|!=)\b"
                # the name is the bound: '… over seats_licensed', 'different from to_country'
                rf"|\b(?:over|above|below|exceeds?|exceeding|beyond|than|(?:different|differs?)"
                rf"\s+from|after|before|vs\.?|versus)\s+(?:the\s+)?{e}\b"
                # the name is owned: "one of the crew member's qualified_types"
                rf"|'s\s+{e}\b"
                # the name is given values: 'x must be a or b', 'x must be one of: …'
                rf"|\b{e}\s+(?:must|should|shall)\s+(?:be|equal|match)\s+(?:one\s+of|either|in\b|"
                rf"[\w\-.]+\s*(?:,|/|\bor\b))",
                text,
                re.I,
            ):
                out.append(v)
    return out


# -- a range of values read as one literal ---------------------------------------------------------
# 'F → any passing grade (D- or better) requires Dept Chair approval' read as "Send to review when
# passing grade is D- or better": a change from F to C was approved, since no grade is spelt
# 'D- or better'. 'or better', 'or higher', 'or above' name every value on one side of a bound.
_RANGE_TAIL = re.compile(
    r"(?P<v>[^\s(),;:]+)\s+or\s+(?P<tail>better|higher|above|worse|lower|below|more|less|"
    r"greater|later|earlier|newer|older|up|down)\b",
    re.I,
)


def _range_read_as_literal(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for m in _RANGE_TAIL.finditer(text):
        for c in every:
            vals = {v.lower() for v in _list_values(c)}
            # 'D- or better' as the one value, or as the two alternatives 'D-' and 'better'
            if m.group(0).lower() in vals or m.group("tail").lower() in vals:
                out.append(m.group(0))
                break
    return out


# -- a date measured from another argument read as a duration ------------------------------------
# 'effective_date must be at least 30 days after filing_date' read as "Deny when the duration is
# below 30 days": the span between two arguments of the request was read as one duration, which a
# request sending `duration_days` would have answered for the two dates.
_BETWEEN_NAMES = re.compile(
    r"\b(?P<a>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b[^.;]*?\b(?:days?|hours?|weeks?|months?|years?)\s+"
    r"(?:after|before|since|from|prior\s+to|later\s+than|earlier\s+than)\s+(?:the\s+)?"
    r"(?P<b>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b"
)


def _span_read_as_duration(text: str, every: Sequence[Check]) -> list[str]:
    m = _BETWEEN_NAMES.search(text)
    if not m or m.group("a") == m.group("b"):
        return []
    if any(isinstance(c, NumericLimit) and c.unit_family == "time" for c in every):
        return [m.group("b")]
    return []


# -- a list of names written with slashes read in part ---------------------------------------------
# 'NEVER export cols ssn / card_number / dob' read as "Deny when an argument is card_number": an
# export of ssn or dob passed. The upper-case lists are guarded in misreadings.py; names of
# arguments are written in lower case.
_LOWER_SLASH = re.compile(r"\b[a-z][a-z0-9_]*(?:\s*/\s*[a-z][a-z0-9_]*){2,}\b")


def _lower_slash_list_in_part(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for m in _LOWER_SLASH.finditer(text):
        members = {p.strip() for p in m.group(0).split("/")}
        for c in every:
            got = members & {v.lower() for v in _list_values(c)}
            if got and got != members:
                out.append(m.group(0))
                break
    return out


# -- a listed name joined by 'and' split into alternatives ---------------------------------------
# 'Governing law: New York, Delaware, or England and Wales only.' read as "New York, Delaware,
# England or Wales": a contract under the law of Wales alone passed. In a list whose alternatives
# are joined by 'or', an 'A and B' member is one name.
_OR_LIST_AND = re.compile(
    r",\s*(?:or\s+)?(?P<a>[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*)*)\s+and\s+"
    r"(?P<b>[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*)*)"
)


def _joined_name_split(text: str, every: Sequence[Check]) -> list[str]:
    if not re.search(r"\bor\b", text, re.I):
        return []
    out = []
    for m in _OR_LIST_AND.finditer(text):
        a, b = m.group("a").lower(), m.group("b").lower()
        for c in every:
            vals = {v.lower() for v in _list_values(c)}
            if a in vals and b in vals:
                out.append(m.group(0).lstrip(", ").removeprefix("or "))
                break
    return out


# -- a list of alternatives read as subject words, every one required --------------------------------
# 'Screening may not use protected characteristics as criteria: race, color, religion, sex,
# national origin, disability, familial status' read as "Deny requests about screening use
# protected characteristics criteria race color religion …": a screening on religion alone did not
# carry every word and was approved. A list after a colon names alternatives, any one of which is
# the case; read as subject words, each would have to be in the request.
_COLON_LIST = re.compile(r":\s*(?P<list>[^:;.]+?(?:,[^:;.,]+){2,})\s*\.?\s*$")


def _alternatives_read_as_subject(text: str, every: Sequence[Check]) -> list[str]:
    m = _COLON_LIST.search(text)
    if not m:
        return []
    items = [re.sub(r"^\s*(?:and|or)\s+", "", p).strip() for p in m.group("list").split(",")]
    item_stems = [
        {stem(w) for w in words(p) if w not in STOPWORDS and len(w) > 1} for p in items if p
    ]
    item_stems = [s for s in item_stems if s]
    if len(item_stems) < 3:
        return []
    for c in every:
        if not isinstance(c, ActionRule) or c.effect == "allow":
            continue
        terms = set(c.terms)
        hit = [s for s in item_stems if s <= terms]
        if len(hit) >= 2:
            return [m.group("list").strip()]
    return []


# -- the allowed values of an argument read into its name ----------------------------------------------
# '(a) Each log entry must state the privilege basis: attorney-client, work product, or common
# interest.' read as "Deny when `privilege basis attorney client work product common interest` is
# missing": no argument is so named (every entry was refused or held), and a basis outside the
# three was never refused. The words after the colon are the values the argument may take.
def _values_read_into_name(text: str, every: Sequence[Check]) -> list[str]:
    m = _COLON_LIST_ANY.search(text)
    if not m:
        return []
    items = [
        re.sub(r"^\s*(?:and|or)\s+", "", p).strip() for p in re.split(r",|\bor\b", m.group("list"))
    ]
    item_stems = [{stem(w) for w in words(p) if w not in STOPWORDS and len(w) > 1} for p in items]
    item_stems = [x for x in item_stems if x]
    for c in every:
        name = set(getattr(c, "arg_words", ()) or ())
        if type(c).__name__ == "RequiredArgument" and sum(x <= name for x in item_stems) >= 2:
            return [m.group("list").strip()]
    return []


_COLON_LIST_ANY = re.compile(r":\s*(?P<list>[^:;.]+?(?:(?:,|\bor\b)[^:;.,]+){1,})\s*\.?\s*$")


# -- the bound read as what is measured ------------------------------------------------------------
# 'Daily refund total per agent: EUR 20k max.' read as "Deny when today's total of the number of
# max is above 20,000 EUR": 'max' is the bound, an amount of money is what is summed.
_BOUND_NOUNS = frozenset("max min maximum minimum limit cap ceiling".split())


def _bound_read_as_measure(text: str, every: Sequence[Check]) -> list[str]:
    return [
        c.noun
        for c in every
        if isinstance(c, NumericLimit)
        and c.currency
        and c.noun
        and c.noun.lower() in _BOUND_NOUNS
        and set(c.measure) <= _BOUND_NOUNS
    ]


# -- an owner's or a contact's label read as the subject (red team jred22) -------------------------
# 'Policy owner: Legal (sign-off required)' read as "Send to review requests about policy owner
# legal", 'Owner: Compliance - escalate all exports' as "… about owner compliance": who keeps the
# policy is no act a request does, and a request never shows it, so the rule passed every one.
OWNER_LABEL = re.compile(
    r"^\s*(?P<label>(?:(?:policy|process|rule|data|business)\s+)?(?:owners?|contacts?|stewards?)"
    r"\s*[:\-\u2013]|(?:owned|maintained|administered)\s+by\b)",
    re.I,
)
_LABEL_STEMS = frozenset(stem(w) for w in ("owner", "owners", "contact", "steward", "owned"))


def _owner_label_read_as_subject(text: str, every: Sequence[Check]) -> list[str]:
    m = OWNER_LABEL.match(text)
    if not m:
        return []
    for c in every:
        if _LABEL_STEMS & set(getattr(c, "terms", ()) or ()):
            return [m.group("label").strip()]
    return []


# -- a bound read as the one value a list allows (red team jred22) -------------------------------
# 'Withdrawals: BTC or ETH only, under 5 BTC' read as "Deny unless `ETH` is 5 BTC", 'Exports: CSV
# or JSON only, under 5 GB' as "Deny unless CSV JSON is 5 GB": the amount after 'under' is a
# bound, and the codes before 'only' were read as an argument's name.
_BOUND_WORDS = r"(?:under|over|below|above|up\s+to|max(?:imum)?|min(?:imum)?|at\s+(?:most|least)|"
_BOUND_WORDS += r"less\s+than|more\s+than|no\s+more\s+than|not\s+over|<=?|>=?)"
_MEASURE = re.compile(r"^\d[\d,.]*\s*[A-Za-z%]*$")


def _bound_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    for c in every:
        values = _list_values(c)
        if not values or not all(_MEASURE.match(v.strip()) for v in values):
            continue
        for v in values:
            if re.search(_BOUND_WORDS + r"\s*" + re.escape(v.strip()), text, re.I):
                return [v.strip()]
    return []


# -- a refusal in a relative clause read as subject words (red team jred22) -----------------------
# 'Payments to vendors that are denied onboarding need review' read as "Send to review requests
# about payments vendors denied onboarding": the refusal is a state of the vendor no check reads,
# and as subject words a request never shows, it passed every payment.
_REFUSED_STATE = re.compile(
    r"\b(?:that|which|who|whose\s+[a-z]+)\s+(?:are|were|is|was|have\s+been|has\s+been|got)\s+"
    r"(?:previously\s+|already\s+|ever\s+)?(?P<word>denied|rejected|refused|declined|blocked)\b"
    r"(?:\s+[a-z]+)?",
    re.I,
)


def _refusal_read_as_subject(text: str, every: Sequence[Check]) -> list[str]:
    m = _REFUSED_STATE.search(text)
    if not m:
        return []
    refused = stem(m.group("word").lower())
    for c in every:
        if isinstance(c, ActionRule) and refused in set(c.terms):
            return [m.group(0)]
    return []


# -- a possessive span read as a duration (red team jred28) -----------------------------------------
# 'Credits capped at 1 month's rent; hard cap $2,000.' read as "Deny when the duration is above 1
# months": the cap bound `months_active` (8) and refused every credit; 'Deposit: at least 1
# month's fee (`deposit`)' as "Deny when the duration is below 1 months", so a 400 deposit against
# an 800 fee passed. 'N month's rent' is an amount of money (N times the monthly rent or fee),
# which no check reads as a duration of the request.
_POSSESSIVE_SPAN = re.compile(
    r"\b(?:\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|half\s+a)"
    r"\s+(?:hour|day|night|week|fortnight|month|quarter|year)(?:'s|s'|s's)\s+(?:[a-z]+\s+)?"
    r"(?:rent|fees?|pay|salary|wages?|dues|premiums?|charges?|billing|revenue|income|"
    r"subscription|payments?|earnings|spend|invoices?|membership|rate)\b",
    re.I,
)
# (a span of a thing that lasts, '30 days' supply', '10 days' written notice', is a duration)


def _possessive_span_read_as_duration(text: str, every: Sequence[Check]) -> list[str]:
    m = _POSSESSIVE_SPAN.search(text)
    if not m:
        return []
    if any(isinstance(c, NumericLimit) and c.unit_family == "time" for c in every):
        return [m.group(0)]
    return []


# -- a recipient qualifier after a bound read as one more subject word (red team jred28) ---------
# '- Max 12 cases per shipment to consumers.' read as "Deny when the number of cases is above 12
# (about: shipment consumers)": the subject applies when any of its words is shown, so the tool
# `wine.ship_order` carried it and a 40-case trade shipment to a licensed retailer was refused;
# 'Max 12 cases per order to retailers' refused a consumer's order. Who the bounded thing goes to
# narrows the bound; no check reads it against the request.
_PARTIES = (
    r"consumers|customers|clients|retailers|resellers|wholesalers|distributors|dealers|minors|"
    r"individuals|residents|non-residents|businesses|merchants|partners|vendors|suppliers|members|"
    r"guests|students|patients|employees|contractors|households|licensees|brokers|carriers"
)
_RECIPIENT_AFTER_BOUND = re.compile(
    r"\d[^.;:]*?\b(?P<q>(?:to|for)\s+(?:(?:new|retail|private|foreign|domestic|existing|individual|"
    r"business|trade|licensed|unlicensed|first-time|minor|adult)\s+)?(?P<party>"
    + _PARTIES
    + r"))\b"
    # the party closes the subject ('… to consumers.', '… to resellers need approval'); one
    # qualified further ('to customers with open disputes', 'in the trial tier') is read by others
    r"(?=\s*(?:$|[.;:,(\u2192]|->|=>|\s(?:need|needs|require|requires|must|may|are|is|go|goes|"
    r"get|gets|shall|should|cannot|can)\b))",
    re.I,
)


def _recipient_read_as_subject(text: str, every: Sequence[Check]) -> list[str]:
    m = _RECIPIENT_AFTER_BOUND.search(text)
    if not m:
        return []
    party = stem(m.group("party").lower())
    for c in every:
        terms = set(getattr(c, "terms", ()) or ())
        if isinstance(c, NumericLimit) and party in terms and len(terms) > 1:
            return [m.group("q")]
    return []


# -- the values a list lets pass read as the ones its else branch stops (red team jred28) --------
# 'reason: outage, billing_error, goodwill — anything else → review.' read as "Send to review when
# an argument is outage, billing_error or goodwill": the branch names what happens to the values
# the list leaves out, so a check that fires on the listed values reads the rule backwards (a
# 'chargeback' credit was approved). Readings that take the list whole (namedargs.py, tiers.py)
# make it an allow-list, which this guard does not look at.
_ELSE_BRANCH = re.compile(
    r"\b(?:(?:anything|everything)\s+else|any\s+other|all\s+others?|(?:nothing|none)\s+else)\b",
    re.I,
)


def _listed_read_as_leftover(text: str, every: Sequence[Check]) -> list[str]:
    m = _ELSE_BRANCH.search(text)
    if not m:
        return []
    head = text[: m.start()].lower()
    for c in every:
        values = _list_values(c)
        if (
            isinstance(c, ValueList)
            and c.mode == "deny"
            and c.effect in ("deny", "review")
            and len(values) >= 2
            and all(v.lower() in head for v in values)
        ):
            return [m.group(0)]
    return []


# -- a total after the act read as one argument (red team jred28) -------------------------------
# '2. Total rental after extension ≤ 28 days.' read as "Deny when the duration is above 28 days":
# the bound took one argument (`current_total_days: 26` or `extra_days: 3`) and a rental of 29
# days after the extension was approved. What the act leaves ('total … after extension', 'new
# balance after the top-up') is the sum of what is there and what the request adds; no check
# reads it from one argument.
_TOTAL_AFTER = re.compile(
    r"\b(?:total|combined|cumulative|overall|resulting|new|final)\b[^.;\d]{0,40}?\b(?:after|"
    r"once|including|incl\.?|with)\s+(?:the\s+|this\s+)?(?:extension|renewal|change|increase|"
    r"top[- ]?up|upgrade|addition|request|transfer|adjustment|amendment|extra|added|new)\w*\b",
    re.I,
)


def _total_after_act(text: str, every: Sequence[Check]) -> list[str]:
    m = _TOTAL_AFTER.search(text)
    if not m:
        return []
    if any(isinstance(c, NumericLimit) and not c.counts_calls and not c.window for c in every):
        return [m.group(0)]
    return []


GUARDS: tuple[Callable[[str, Sequence[Check]], list[str]], ...] = (
    _refusal_read_as_subject,
    _bound_read_as_value,
    _owner_label_read_as_subject,
    _compared_name_read_as_value,
    _range_read_as_literal,
    _span_read_as_duration,
    _lower_slash_list_in_part,
    _joined_name_split,
    _alternatives_read_as_subject,
    _values_read_into_name,
    _bound_read_as_measure,
    _possessive_span_read_as_duration,
    _recipient_read_as_subject,
    _listed_read_as_leftover,
    _total_after_act,
)


# -- readings made right ---------------------------------------------------------------------------
# Where the right reading is the checks' own with the list's members joined or completed, the rule
# is read right instead of left partly understood; the guards above then find nothing.


def _mend_lower_slash_list(text: str, checks: list[Check]) -> list[Check] | None:
    """'NEVER export cols ssn / card_number / dob' read as card_number alone: every member of the
    one slash list of names is in the list (the others had been read as subject words)."""
    groups = [[p.strip() for p in m.group(0).split("/")] for m in _LOWER_SLASH.finditer(text)]
    if len(groups) != 1:
        return None
    members = groups[0]
    changed = False
    out: list[Check] = []
    for c in checks:
        if isinstance(c, ValueList) and c.match == "exact" and c.values:
            have = {v.lower() for v in c.values}
            if have < set(members):
                drop = {stem(w) for p in members for w in words(p)}
                c = replace(
                    c,
                    values=tuple(members),
                    terms=tuple(t for t in c.terms if t not in drop),
                    about_words=tuple(t for t in c.about_words if t not in drop),
                )
                changed = True
        out.append(c)
    return out if changed else None


def _mend_joined_name(text: str, checks: list[Check]) -> list[Check] | None:
    """'New York, Delaware, or England and Wales only' read as '… England or Wales': the two
    names joined back into the one the list names."""
    if not re.search(r"\bor\b", text, re.I):
        return None
    changed = False
    out: list[Check] = []
    for c in checks:
        if isinstance(c, ValueList) and c.match == "exact":
            values = list(c.values)
            for m in _OR_LIST_AND.finditer(text):
                a, b = m.group("a"), m.group("b")
                low = [v.lower() for v in values]
                if a.lower() in low and b.lower() in low:
                    i = low.index(a.lower())
                    values = [v for v in values if v.lower() not in (a.lower(), b.lower())]
                    values.insert(i, f"{a} and {b}")
                    changed = True
            c = replace(c, values=tuple(values)) if values != list(c.values) else c
        out.append(c)
    return out if changed else None


_WINDOW_SECONDS = {"minute": 60, "hour": 3600, "day": 86400, "week": 604800}
_WITHIN_ONE = re.compile(
    r"\b(?:within|in)\s+(?:one|an?|1|the\s+same|a\s+single)\s+(?P<w>minute|hour|day|week)\b", re.I
)


def _mend_window_restated(text: str, checks: list[Check]) -> list[Check] | None:
    """'More than 3 payments by the same agent within one hour -> hold for review' read as a count
    per hour and a second limit "the hour's total of the duration is at or below 1 hours" (every
    request sending a duration under an hour was held): 'within one hour' restates the count's
    window, it is no bound of its own."""
    m = _WITHIN_ONE.search(text)
    if not m:
        return None
    window = m.group("w").lower()
    if not any(
        isinstance(c, NumericLimit) and c.counts_calls and c.window == window for c in checks
    ):
        return None
    out = [
        c
        for c in checks
        if not (
            isinstance(c, NumericLimit)
            and not c.counts_calls
            and c.unit_family == "time"
            and c.window == window
            and c.op in ("le", "lt")
            and abs(c.threshold * c.unit_factor - _WINDOW_SECONDS[window]) < 1e-6
        )
    ]
    return out if len(out) < len(checks) else None


@dataclass(frozen=True)
class ArgumentPair(Check):
    """Two arguments a rule names, compared without case or surrounding space: the rule fires
    when they hold the same value (`_FIRES_ON_SAME`, misreadings.DistinctArguments: 'maker_id !=
    checker_id') or different ones (ArgumentsDiffer: 'from_country different from to_country');
    one of them missing or empty goes to review."""

    left: str = ""
    right: str = ""
    kind: str = field(default="argument_pair", init=False)
    # whether the rule fires when the two hold the same value (here) or different ones
    _FIRES_ON_SAME = True

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(left=self.left, right=self.right)
        return d

    def reading(self) -> str:
        verb = {"deny": "Deny", "review": "Send to review"}.get(self.effect, "Deny")
        hold = "the same value" if self._FIRES_ON_SAME else "different values"
        return (
            f"{verb} when `{self.left}` and `{self.right}` hold {hold} (when one of them "
            f"is not sent, review){self._about()}"
        )

    def _speaks_to(self, view: RequestView) -> bool:
        """Whether the request, showing neither argument, still speaks of the pair."""
        return False

    def evaluate(self, view: RequestView) -> Outcome:
        values = {lf.path: lf.value for lf in view.leaves}
        names = (self.left, self.right)
        if not any(n in values for n in names) and not self._speaks_to(view):
            return Outcome(NOT_APPLICABLE)
        if not all(n in values for n in names):
            return Outcome(UNKNOWN, f"{self.left} and {self.right} are not both sent", names)
        same = compare_values(values[self.left], values[self.right])
        if same is None:
            return Outcome(
                UNKNOWN, f"{self.left} and {self.right} cannot be compared as sent", names
            )
        if same == self._FIRES_ON_SAME:
            if same:
                said = f"{self.left} and {self.right} are both {values[self.left]!r}"
            else:
                said = (
                    f"{self.left} = {values[self.left]!r} and {self.right} = {values[self.right]!r}"
                )
            return self.fire("matched", said, names)
        for lf in view.leaves:
            # the same argument again under a nested name ('refund.method' beside
            # 'refund_method'): a second witness that disagrees is a human's to weigh (jred20)
            flat = lf.path.replace(".", "_")
            for n in names:
                if lf.path != n and (flat in (n, n + "s") or flat.endswith("_" + n)):
                    # ('refund_methods': ['card', 'cash'] beside 'refund_method': a list is
                    # never the same value, so a human decides)
                    if compare_values(lf.value, values[n]) is not True:
                        return Outcome(UNKNOWN, f"{lf.path} and {n} disagree", (lf.path, n))
        if self._FIRES_ON_SAME:
            by = _acted_by(view, names)
            if by is not None:
                return Outcome(UNKNOWN, f"{by} also names one of {self.left}, {self.right}", names)
        said = "are the same" if same else "differ"
        return Outcome(SATISFIED, f"{self.left} and {self.right} {said}", names)


def _acted_by(view: RequestView, names: tuple[str, ...]) -> str | None:
    """An argument naming who did one of the pair's acts another way: `approved_by` beside
    `approver_id`, `prepared_by` beside `preparer_id`, a list of `reviewers` beside
    `reviewer_id`. With `approver_id: mjones` and
    `approved_by: jsmith` the preparer may have approved their own run (jred20)."""
    bases = []
    plural = set()
    for n in names:
        role = re.split(r"[_.]", n.rsplit(".", 1)[-1].lower())[0]
        plural.add(role + "s")
        base = re.sub(r"(?:er|or|r)$", "", role)
        if len(base) >= 4:
            bases.append(base)
    for lf in view.leaves:
        if lf.path in names:
            continue
        parts = re.split(r"[_.]", lf.path.rsplit(".", 1)[-1].lower())
        if len(parts) == 2 and parts[1] == "by" and any(parts[0].startswith(b) for b in bases):
            return lf.path
        if len(parts) == 1 and isinstance(lf.value, list) and parts[0] in plural:
            return lf.path  # 'reviewers': ['jsmith', 'mjones'] beside 'reviewer_id'
    return None


# what only separates the words of a value: 'u-1021' and 'u_1021', 'J.Smith' and 'J Smith'
_SEPARATORS = re.compile(r"[\s_\-./:]+")


def _as_number(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+(?:\.\d+)?\s*", value):
        return Decimal(value.strip())
    return None


def compare_values(a: Any, b: Any) -> bool | None:
    """Whether two argument values are the same (True), differ (False), or cannot be told apart
    safely (None: a human decides).

    Text is compared without case and with runs of white space as one ('Card ' is 'card',
    'JSmith' is ' jsmith'): no system names two payment methods or two people by case alone, and
    a reading that told them apart would approve a preparer approving their own run. Two values
    that differ only by separators ('u-1021', 'u_1021') may be one identifier written two ways or
    two identifiers: neither 'same' nor 'different' is safe for both a rule that wants them equal
    and one that wants them apart, so a human decides. Numbers compare as numbers when one side is
    a JSON number (15230.4 and "15230.40" are one sum; 15230.39 is another); two numeric strings
    compare as text ('001' and '1' may be two account numbers). Nothing sent (null, empty), a list
    or an object is never compared."""
    if isinstance(a, (int, float)) or isinstance(b, (int, float)):
        x, y = _as_number(a), _as_number(b)
        if x is None or y is None:
            return None
        return x == y
    if not isinstance(a, str) or not isinstance(b, str):
        return None
    x, y = (" ".join(v.split()).casefold() for v in (a, b))
    if not x or not y:
        return None
    if x == y:
        return True
    if _SEPARATORS.sub("", x) == _SEPARATORS.sub("", y):
        return None
    if _one_person(x, y):
        return None
    return False


def _account(value: str) -> str:
    """An account name less its domain and directory: 'jsmith@corp.com', 'CORP\\jsmith',
    'user:jsmith' are 'jsmith'."""
    v = value.split("@", 1)[0]
    v = re.split(r"[\\/:]", v)[-1]
    return _SEPARATORS.sub("", v)


def _one_person(x: str, y: str) -> bool:
    """Whether two different strings may name one account or record: the same name with or
    without a domain or directory ('jsmith', 'jsmith@corp.com', 'CORP\\jsmith'), or one inside
    the other ('E1021' and '1021'). Told apart, a preparer approving their own run under a
    second login was approved (jred20); a human decides."""
    a, b = _account(x), _account(y)
    if a and a == b:
        return True
    xs, ys = _SEPARATORS.sub("", x), _SEPARATORS.sub("", y)
    short, long = sorted((xs, ys), key=len)
    return len(short) >= 3 and short in long


@dataclass(frozen=True)
class ArgumentsDiffer(ArgumentPair):
    """'Cross-border transfers - from_country different from to_country - need Loyalty Ops
    approval': the rule applies when the two arguments it names hold different values (compared
    without case or surrounding space); the same value satisfies it, one of them missing or empty
    goes to review."""

    kind: str = field(default="arguments_differ", init=False)
    _FIRES_ON_SAME = False


_DIFFER = re.compile(
    r"\b(?P<a>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s+(?:is\s+|are\s+)?(?:different\s+from|differs?\s+"
    r"from|other\s+than|not\s+equal\s+to|!=|<>)\s+(?:the\s+)?(?P<b>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b"
)


def _mend_arguments_differ(text: str, checks: list[Check]) -> list[Check] | None:
    """'from_country different from to_country -> approval' read as "Send to review when an
    argument is to_country": the two names compared, the rule applying when they differ. Only a
    rule that sends such requests to review or refuses them, with no negation around the
    comparison ('must not differ' is the opposite rule), is read so."""
    matches = list(_DIFFER.finditer(text))
    if len(matches) != 1 or re.search(r"\b(?:not|never|no|unless|only|same)\b", text, re.I):
        return None
    a, b = matches[0].group("a"), matches[0].group("b")
    out: list[Check] = []
    changed = False
    for c in checks:
        if (
            isinstance(c, ValueList)
            and c.effect in ("review", "deny")
            and c.mode == "deny"
            and {str(v) for v in c.values} <= {a, b}
            and c.values
        ):
            c = ArgumentsDiffer(
                rule_index=c.rule_index,
                source=c.source,
                effect=c.effect,
                terms=c.terms,
                left=a,
                right=b,
            )
            changed = True
        out.append(c)
    return out if changed else None


# a word that says where the values are sought, not what they are: a participle ('Exports
# containing …') or a heading written in capitals ('DEBARRED - do not pay: …')
_NOT_A_KIND = frozenset(stem(w) for w in "containing including include includes with".split())


def _mend_heading_kind(text: str, checks: list[Check]) -> list[Check] | None:
    """'DEBARRED - do not pay: Apex Restoration LLC, …' read as "Deny when `DEBARRED` is Apex
    Restoration LLC …" (a payment to any other vendor went to review, as no argument is named
    `DEBARRED`); 'Exports containing medical_baseline or life_support' as "`containing` contains
    …". A list of values never to be sent is sought in every argument when the word read as its
    kind is a heading in capitals or a participle."""
    heading = re.match(r"^\s*(?:[\w.()]+\s+)?(?P<h>[A-Z]{3,})\s*(?:[-:\u2013\u2014]|->)", text)
    caps = {stem(heading.group("h").lower())} if heading else set()
    changed = False
    out: list[Check] = []
    for c in checks:
        if (
            isinstance(c, ValueList)
            and c.mode == "deny"
            and c.kind_words
            and set(c.kind_words) <= (_NOT_A_KIND | caps)
        ):
            c = replace(c, kind_words=())
            changed = True
        out.append(c)
    return out if changed else None


def _items(listed: str) -> list[str]:
    parts = re.split(r",|\bor\b", listed)
    return [p for p in (re.sub(r"^\s*(?:and|or)\s+", "", q).strip(" .") for q in parts) if p]


def _mend_values_in_name(text: str, checks: list[Check]) -> list[Check] | None:
    """'Every credit needs a reason_code from: SLA, BILLING_ERROR, GOODWILL' read as "Deny when
    `reason_code` is missing" (any other code passed), 'must state the privilege basis:
    attorney-client, work product, or common interest' as a required argument named by every word:
    the argument is required (missing: deny, as read) and one of the values listed after the
    colon; a value outside the list goes to review, since the words of a basis or a code written
    otherwise ('joint defense' for common interest) are for a person to weigh."""
    m = _COLON_LIST_ANY.search(text)
    if not m:
        return None
    items = _items(m.group("list"))
    item_stems = [{stem(w) for w in words(p) if w not in STOPWORDS and len(w) > 1} for p in items]
    if len(items) < 2 or not all(item_stems):
        return None
    listed = set().union(*item_stems)
    out: list[Check] = []
    changed = False
    for c in checks:
        name = tuple(getattr(c, "arg_words", ()) or ())
        if type(c).__name__ == "RequiredArgument" and c.effect == "deny" and listed <= set(name):
            kept = tuple(w for w in name if w not in listed)
            if kept:
                out.append(replace(c, arg_words=kept))
                out.append(
                    ValueList(
                        rule_index=c.rule_index,
                        source=c.source,
                        effect="review",
                        terms=c.terms,
                        mode="allow",
                        values=tuple(items),
                        match="exact",
                        kind_words=kept,
                    )
                )
                changed = True
                continue
        out.append(c)
    return out if changed else None


# -- 'anything deeper -> someone' read as a subject of its own (red team jred28) ---------------------
# '1) Promo discount ≤ 25% (discount_pct); anything deeper → marketing director.' read as "Deny
# when `discount_pct` is above 25%; Send to review requests about deeper": a 30% promo was refused
# where the rule sends it to the director. 'anything deeper / higher / more' names the values past
# the bound, and what the arrow gives them is the bound's effect.
_ANYTHING_PAST = re.compile(
    r"\b(?:anything|any\s+\w+)\s+(?P<w>deeper|higher|more|larger|bigger|greater|beyond|above|over|"
    r"longer|later)\b(?:\s+than\s+that)?\s*(?:\u2192|->|=>|:|goes\s+to|needs?|requires?)",
    re.I,
)


def _mend_anything_past_bound(text: str, checks: list[Check]) -> list[Check] | None:
    m = _ANYTHING_PAST.search(text)
    if not m or len(checks) != 2:
        return None
    limits = [c for c in checks if isinstance(c, NumericLimit)]
    acts = [c for c in checks if type(c) is ActionRule]
    if len(limits) != 1 or len(acts) != 1:
        return None
    limit, act = limits[0], acts[0]
    past = {stem(m.group("w").lower()), stem("anything")}
    if (
        limit.effect != "deny"
        or limit.op not in ("gt", "ge")
        or act.effect not in ("review", "deny")
        or not act.terms
        or not set(act.terms) <= past
        or act.alternatives
    ):
        return None
    return [replace(limit, effect=act.effect)]


MENDS: tuple[Callable[[str, list[Check]], list[Check] | None], ...] = (
    _mend_lower_slash_list,
    _mend_joined_name,
    _mend_window_restated,
    _mend_arguments_differ,
    _mend_heading_kind,
    _mend_values_in_name,
    _mend_anything_past_bound,
)
