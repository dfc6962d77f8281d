"""Readings the checks give word by word that are wrong as a whole (issue #10, "readings labelled
understood that are wrong").

Each function here looks at a rule as written and every check compiled from it, and names the
words of a phrasing the checks read wrongly. Those words stay unaccounted for, so the rule is
partly understood: it never decides on its own (review, or the language model when one is
configured). Each says which misreading it guards against; a recogniser that reads the phrasing
right makes its guard find nothing (the guards look at what the checks read, not at the words
alone).

On the blind sets these rules were masked by another rule of the same policy that sent the
request to review; the day that other rule is read, each would have become an unsafe approval or
a false denial.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from webapp.judge.checks import (
    NOT_APPLICABLE,
    SATISFIED,
    ActionRule,
    ArgumentComparison,
    Binding,
    Check,
    NumericLimit,
    Outcome,
    RequiredArgument,
    SameValue,
    ValueList,
    When,
)
from webapp.judge.misbinds import GUARDS as MISBIND_GUARDS
from webapp.judge.misdecides import GUARDS as MISDECIDE_GUARDS
from webapp.judge.misdecides import MENDS as MISDECIDE_MENDS
from webapp.judge.misdirects import GUARDS as MISDIRECT_GUARDS
from webapp.judge.netranges import GUARDS as NETRANGE_GUARDS
from webapp.judge.netranges import MENDS as NETRANGE_MENDS
from webapp.judge.overreads import GUARDS as OVERREAD_GUARDS
from webapp.judge.pairs import (
    pair_read_otherwise,
    states_read_otherwise,
    status_read_otherwise,
)
from webapp.judge.places import country_code
from webapp.judge.quantities import find_quantities
from webapp.judge.request_view import MONEY_KEYS, RequestView
from webapp.judge.text import STOPWORDS, stem, words
from webapp.judge.unitreads import GUARDS as UNITREAD_GUARDS
from webapp.judge.unitreads import MENDS as UNITREAD_MENDS
from webapp.judge.wrongreads import GUARDS as WRONGREAD_GUARDS
from webapp.judge.wrongreads import MENDS as WRONGREAD_MENDS
from webapp.judge.wrongreads import ArgumentPair


def _stems(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 1}


def _values(c: Check) -> list[str]:
    out = [str(v) for v in getattr(c, "values", ()) or ()]
    if isinstance(c, Binding) and isinstance(c.value, str):
        out.append(c.value)
    return out


# -- a group of countries read as subject words ---------------------------------------------
# 'Criminal record checks on candidates located in the EU -> DPO review first' read as "Send to
# review requests about criminal record checks candidates located EU": a candidate in DE does not
# spell 'EU', the rule did not apply and the check was approved. A group is a membership only a
# place list reads.
_PLACE_GROUP = re.compile(
    r"\b(?:in|within|inside|from|to|of|across)\s+(?:the\s+)?(?P<w>EU|EEA|EMEA|APAC|LATAM|"
    r"European\s+Union|European\s+Economic\s+Area|Schengen(?:\s+area)?)\b"
)


def _place_group_as_subject(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for m in _PLACE_GROUP.finditer(text):
        group = m.group("w")
        listed = any(
            group.upper() in {v.upper() for v in _values(c)}
            or (isinstance(c, ValueList) and c.match == "place")
            for c in every
        )
        if listed:
            continue
        if any(_stems(group) & set(c.terms) for c in every):
            out.append(group)
    return out


# -- two required things joined, one dropped or both read as one name -------------------------
# 'quota bumps need a ticket + owning team' read as one argument `ticket owning team`; 'start_date
# and expected_return_date are required' read as start_date alone; 'International trips need a
# trip_id and the traveler's emergency contact' read as trip_id alone (a trip with no emergency
# contact passed).
_NEED_BEFORE = re.compile(
    r"\b(?:needs?|requires?|must\s+(?:always\s+)?(?:include|have|carry|cite|give|state|specify|"
    r"reference|provide|contain|quote|name|list|show)|(?:is|are)\s+required\s*:)\s+(?P<what>[^.;:]+)",
    re.I,
)
_NEED_AFTER = re.compile(
    r"(?:^|[:.;]\s*)(?P<what>[^.;:]+?)\s+(?:are|is)\s+(?:both\s+)?(?:required|mandatory)\b", re.I
)
_JOIN = re.compile(r"\s+(?:and|AND|\+|&)\s+|\s*\+\s*")
_SECOND_PREDICATE = re.compile(
    r"(?:must|may|shall|should|can|cannot|can't|will|not|never|stay|stays|remain|remains|be|"
    r"is|are|do|does|keep|only)\b",
    re.I,
)
_CLAUSE_VERB = re.compile(r"\b(?:is|are|was|be|been|gets?|goes|paid)\b", re.I)
_TRIM = re.compile(
    r"^(?:both|either|the|a|an|its|their|his|her|our|every|each|all|also|always|written)\s+", re.I
)


def _required_names(every: Sequence[Check]) -> list[tuple[set[str], bool]]:
    """The words of every argument a check requires (stems as the checks keep them), and of
    every argument a check binds (with its gloss; True: the binding reads the phrase whole)."""
    out = []
    for c in every:
        if isinstance(c, RequiredArgument):
            name = _stems(c.exact_name) if c.exact_name else set(c.arg_words) - STOPWORDS
            out.append((name, False))
        elif isinstance(c, Binding) and c.path:
            # jident: 'kyc_passed = true' is read whole by a binding to true, its value included
            said = _stems(str(c.value).lower()) if isinstance(c.value, bool) else set()
            out.append((_stems(c.path) | _stems(c.gloss) | said, True))
    return out


def _conjuncts(what: str) -> list[str]:
    # the object ends at a gloss, a dash or a condition
    what = re.split(r"\s+[-\u2013\u2014]\s+|\(|\b(?:for|on|in|before|when|if|unless)\b", what)[0]
    parts = [p.strip(" ,") for p in _JOIN.split(what) if p.strip(" ,")]
    return parts if len(parts) >= 2 else []


def _joined_requirements(text: str, every: Sequence[Check]) -> list[str]:
    names = _required_names(every)
    if not names:
        return []
    out: list[str] = []
    spans = [m.group("what") for m in _NEED_BEFORE.finditer(text)]
    spans += [m.group("what") for m in _NEED_AFTER.finditer(text)]
    for what in spans:
        parts = _conjuncts(what)
        if not parts:
            continue
        # 'originator and beneficiary names': the last noun is every member's
        head = _stems(parts[-1].split()[-1])
        for i, part in enumerate(parts):
            part = _TRIM.sub("", _TRIM.sub("", part))
            if _SECOND_PREDICATE.match(part):
                continue  # '… and must not exceed 20,000 EUR': its own obligation, read apart
            mine = _stems(part)
            if not mine:
                continue
            others = set().union(*(_stems(p) for j, p in enumerate(parts) if j != i)) - mine - head
            if _CLAUSE_VERB.search(part):
                # 'and the lienholder is paid first': a state, not an argument to give
                out.append(part.split()[0])
                continue
            read = any(
                n
                and n & mine
                and (mine <= n | {"id"} if whole else n <= mine | head | {"id", "number"})
                and not (n & others)
                for n, whole in names
            )
            if not read:
                out.append(part.split()[0])
    return list(dict.fromkeys(out))


# -- a literal value to include read as an argument's name -------------------------------------
# 'Alert recipients must include finops@acme.io.' read as a required argument `finops acme io`:
# every request was denied, whatever its recipients.
_LITERAL = re.compile(r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+|\b[\w\-]+(?:\.[a-z]{2,})+\b")


def _literal_read_as_name(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for m in _LITERAL.finditer(text):
        pieces = _stems(m.group(0))
        if len(pieces) < 2:
            continue
        for c in every:
            if isinstance(c, RequiredArgument) and not c.exact_name:
                name = _stems(" ".join(c.arg_words))
                if name and name <= pieces | {"id"}:
                    out.append(m.group(0))
                    break
    return out


# -- a month count written 'Nm' read as millions -----------------------------------------------
# 'Fwds: max tenor 12m' read as "Deny when the amount is above 12,000,000": a forward of 18
# months passed.
_MONTHS_M = re.compile(
    r"\b(?P<noun>tenor|term|maturity|duration|lifetime|horizon|period|retention|lookback|"
    r"expiry|validity|lock-?up|vesting|tenure)s?\b[^.;,]{0,20}?\b(?P<n>\d+)\s*m\b"
    r"|\b(?P<n2>\d+)\s*m\s+(?P<noun2>tenor|term|maturity|horizon|retention|lookback|lock-?up)\b",
    re.I,
)


def _months_as_millions(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for m in _MONTHS_M.finditer(text):
        n = int(m.group("n") or m.group("n2"))
        if any(
            isinstance(c, NumericLimit) and c.unit_family is None and c.threshold == n * 1_000_000
            for c in every
        ):
            out.append(m.group("noun") or m.group("noun2"))
    return out


# -- a permission under a bound read as review under it -----------------------------------------
# 'Claim total <= $500 -> may be approved by workflow' and 'max nodes up to 40. beyond that ->
# page capacity on-call' read as "Send to review when the amount is at or below …": what lies
# above the bound, the part that needs a person, was approved.
_UPPER_BOUND = re.compile(
    r"(?:<=|\u2264|=<|\bup\s+to\b|\bmax(?:imum)?\b|\bat\s+most\b|\bno\s+more\s+than\b|"
    r"\bnot\s+(?:to\s+)?exceed\w*\b|\bunder\b|\bbelow\b|\bless\s+than\b|<)",
    re.I,
)


def _review_below_upper_bound(text: str, every: Sequence[Check]) -> list[str]:
    # 'extension of up to 2 hrs requires approval': review below the bound is meant; only a
    # permission at the bound or a review said of what lies beyond it shows the inversion
    if not (_PERMITS_BELOW.search(text) or _BEYOND.search(text)):
        return []
    limits = [c for c in every if isinstance(c, NumericLimit)]
    for c in limits:
        if c.effect == "review" and c.op in ("le", "lt") and not c.counts_calls:
            if any(o.op in ("gt", "ge") and o.threshold < c.threshold for o in limits):
                continue  # a band ('> $500 up to $5k -> approval')
            m = _UPPER_BOUND.search(text)
            if m:
                return [m.group(0).strip()]
    return []


_PERMITS_BELOW = re.compile(
    r"\b(?:may|can)\s+be\s+(?:approved|auto-?approved|processed|released)\b|\b(?:ok|okay|fine|"
    r"auto-?approve[ds]?)\b|\bno\s+(?:approval|sign-?off|review)\b",
    re.I,
)
_BEYOND = re.compile(
    r"\b(?<!no\s)(?<!not\s)(?:beyond|above|over|more\s+than|exceeding)\s+"
    r"(?:that|this|it|(?:[$\u20ac\u00a3]\s*)?\d)",
    re.I,
)


# -- 'a != b' read as a value -----------------------------------------------------------------
# 'Maker and checker must be different people (maker_id != checker_id)' read as "Deny when
# `maker_id` is \"checker_id\"": the same person as maker and checker passed.
_NOT_EQUAL = re.compile(
    r"\b(?P<a>[a-z][\w.]*)\s*(?P<op>!=|\u2260|<>|=/=)\s*(?P<b>[a-z][\w.]*)\b", re.I
)


def _not_equal_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    if any(isinstance(c, (SameValue, ArgumentComparison, DistinctArguments)) for c in every):
        return []
    # 'is_test != true', 'kyc_status != verified' compare with a value, read as such
    return [
        m.group("op")
        for m in _NOT_EQUAL.finditer(text)
        if re.search(r"[_.]", m.group("b")) and m.group("b").lower() not in ("true", "false")
    ]


# -- a list written with slashes, read in part or as one value --------------------------------
# 'Source acct: TAX-EUR-01 / TAX-GBP-01 only' read as TAX-EUR-01 alone (TAX-GBP-01 was denied);
# 'credits >= $50 need reason_code: OUTAGE / BILLING_ERROR / GOODWILL only' as BILLING_ERROR
# alone; 'USD/EUR/GBP only' as the one value "USD/EUR/GBP". A pair ('EUR/USD') is one value.
_SLASH_LIST = re.compile(r"\b[A-Z0-9][\w\-]*(?:\s*/\s*[A-Z0-9][\w\-]*)+")


def _slash_list_in_part(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for m in _SLASH_LIST.finditer(text):
        members = [p.strip() for p in m.group(0).split("/")]
        joined = m.group(0)
        compact = re.sub(r"\s+", "", joined)
        values = {v.upper() for c in every for v in _values(c)}
        upper = [p.upper() for p in members]
        if compact.upper() in values or joined.upper() in values:
            if len(members) >= 3:
                out.append(joined)
            continue
        got = [p for p in upper if p in values]
        if got and len(got) < len(upper):
            out.append(joined)
    return out


# -- '&' inside a listed name, split ------------------------------------------------------------
# 'Agency fees only to PSL agencies: Hays, Korn Ferry, Robert Half, Hunt & Partners' read as
# "… Robert Half, Hunt or Partners": 'Hunt' alone passed, 'Hunt & Partners' did not.
_AMP_NAME = re.compile(r"\b(?P<a>[A-Z][\w'\-]*)\s*&\s*(?P<b>[A-Z][\w'\-]*)")


def _ampersand_split(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for m in _AMP_NAME.finditer(text):
        a, b = m.group("a").lower(), m.group("b").lower()
        for c in every:
            vals = {v.lower() for v in _values(c)}
            if any(v == a or v.endswith(" " + a) for v in vals) and b in vals:
                out.append("&")
                break
    return out


# -- 'needs no X', 'there is no X restriction' read as forbidding X ---------------------------
# 'Virtual cards need no shipping address' read as "Deny requests about virtual cards shipping
# address": a virtual card sent with an address was denied. 'Below that threshold there is no
# corridor restriction' read as "Deny requests about threshold corridor".
_NEEDS_NO = re.compile(
    r"\b(?:needs?|requires?|takes?)\s+no\b|\b(?:don't|doesn't|do\s+not|does\s+not)\s+(?:need|require)\b"
    r"|\bthere\s+(?:is|are)\s+no\b|\bno\s+(?:\w+\s+){0,2}?restrictions?\b|\b(?:is|are)\s+not\s+"
    r"restricted\b|\bunrestricted\b",
    re.I,
)


def _no_need_read_as_ban(text: str, every: Sequence[Check]) -> list[str]:
    m = _NEEDS_NO.search(text)
    if not m or re.search(
        r"\b(?:unless|except|if|when|provided|as\s+long\s+as)\b", text[: m.start()], re.I
    ):
        return []  # 'unless … there are no open orders': the condition's own words
    if any(c.effect == "allow" for c in every):
        return []  # read as the permission it is ('Overrides of 12 hours or less don't need …')
    if any(isinstance(c, ActionRule) and c.effect in ("deny", "review") for c in every):
        return [m.group(0).split()[-1]]
    return []


# -- a permission read as a prohibition or a review --------------------------------------------
# 'Counterfeit and prohibited-item removals: agent may action directly' read as "Deny requests
# about counterfeit removals" (the 'prohibited' of a compound); 'Single IP or a range up to /24:
# OK, no approval' read as "Send to review requests about IP range".
_PERMITS = re.compile(
    r"\b(?:may|can)\s+(?!not\b|never\b|only\b|be\s+(?:denied|refused|rejected|blocked)\b)\w+"
    r"|[:,\-]\s*(?:ok|okay|fine|allowed|permitted)\b|\bno\s+(?:approval|sign-?off|review)\b",
    re.I,
)
_FORBIDS = re.compile(
    r"\b(?:not|never|cannot|can't|don't|mustn't|won't|shan't|must|shall|should|needs?|requires?|"
    r"required|only|except|unless|review|reviews|approval|approve|sign-?off|escalate|no)\b|->|\u2192"
    r"|(?<![\w-])(?:prohibited|forbidden|banned|blocked|disallowed|denied|restricted)(?![\w-])",
    re.I,
)


def _permission_read_as_ban(text: str, every: Sequence[Check]) -> list[str]:
    m = _PERMITS.search(text)
    if not m or not every:
        return []
    if any(c.effect == "allow" for c in every):
        return []
    if not all(isinstance(c, ActionRule) for c in every):
        return []
    rest = _PERMITS.sub(" ", text)
    if _FORBIDS.search(rest):
        return []
    return [m.group(0).strip(":,- ").split()[0]]


# -- a monthly amount read as a count of requests ------------------------------------------------
# 'No monthly budget may be set above 50,000' and 'Monthly limit per virtual card: 1,000 max' read
# as "Deny when the number of requests per month is above …": a budget of 80,000 passed when the
# month's requests were few.
_AMOUNT_NOUN = re.compile(
    r"\b(?:monthly|daily|weekly|yearly|annual|quarterly)\s+(?:\w+\s+)?(?P<w>budgets?|limits?|spend|"
    r"caps?|allowances?|quotas?|ceilings?|amounts?|totals?|fees?|costs?)\b",
    re.I,
)


def _amount_read_as_rate(text: str, every: Sequence[Check]) -> list[str]:
    m = _AMOUNT_NOUN.search(text)
    if not m:
        return []
    if any(isinstance(c, NumericLimit) and c.counts_calls and not c.noun for c in every):
        return [m.group("w")]
    return []


# -- '/mo (est.)' read as an argument and its value ---------------------------------------------
# 'adds > $2,000/mo (est.) -> FinOps sign-off' read as "Send to review when `mo` is est".
_UNIT_WORDS = frozenset(
    "mo mos month months yr yrs year years wk wks week weeks hr hrs hour hours day days est "
    "approx approximately estimated".split()
)


def _unit_read_as_argument(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for c in every:
        path = getattr(c, "path", "") or ""
        vals = [v.lower().strip(".") for v in _values(c)]
        if isinstance(c, Binding) and (
            path.lower() in _UNIT_WORDS or any(v in _UNIT_WORDS for v in vals)
        ):
            out.append(path or vals[0])
        elif (
            isinstance(c, ValueList)
            and c.match == "exact"
            and vals
            and all(v in _UNIT_WORDS for v in vals)
        ):
            out.append(vals[0])
    return out


# -- a share of a base the check does not read -------------------------------------------------
# 'Fee can't exceed 20% of candidate's first-year base' read as "Deny when the percentage is above
# 20%": which percentage? A fee of 25,000 on a 100,000 base was not compared with the base.
_SHARE_OF = re.compile(
    r"\d\s*%\s+of\s+(?:the\s+|a\s+|an\s+|its\s+|their\s+)?(?P<base>[\w'\-]+(?:\s+[\w'\-]+){0,3})",
    re.I,
)


def _share_of_unread_base(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for m in _SHARE_OF.finditer(text):
        base = _stems(m.group("base"))
        if not base:
            continue
        for c in every:
            if (
                isinstance(c, NumericLimit)
                and c.unit_family in ("percent", "pct", "percentage")
                and not (set(c.measure) & base)
            ):
                out.append(m.group("base").split()[0])
                break
    return out


# -- 'At least two X are required' read as one required argument --------------------------------
# 'At least two independent valuations are required (valuations[])' read as "When the number of
# independent is at or above 2: Deny when `independent valuations` is missing": one valuation
# passed.
_AT_LEAST_N = re.compile(
    r"\bat\s+least\s+(?:two|three|four|five|[2-9]|\d{2,})\s+[^.;]*?\b(?:required|mandatory|needed)\b"
    r"|\b(?:needs?|requires?|must\s+(?:have|include|cite|carry))\s+at\s+least\s+(?:two|three|four|"
    r"five|[2-9]|\d{2,})\b",
    re.I,
)


def _count_of_required(text: str, every: Sequence[Check]) -> list[str]:
    if _AT_LEAST_N.search(text) and any(isinstance(c, RequiredArgument) for c in every):
        return ["least"]
    return []


# -- the subject read as a value -------------------------------------------------------------
# 'Write-offs over USD 1,000 are not permitted' read as "When the amount is above 1,000 USD: Deny
# when an argument is Write-offs": no argument holds the word, the rule never denied.
def _subject_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    first = re.match(r"\s*(?P<w>[A-Z][a-z]+(?:-[a-z]+)*)\b", text)
    if not first:
        return []
    word = first.group("w")
    for c in every:
        if isinstance(c, ValueList) and not c.kind_words and list(_values(c)) == [word]:
            return [word]
    return []


# -- two places joined, the first read as the argument ------------------------------------------
# 'Protection on default branches and on release/* must never be removed or weakened' read as
# "Deny when default branches contains release/*": the default branch (main) passed.
def _joined_place_as_argument(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for c in every:
        if not isinstance(c, ValueList) or not c.kind_words:
            continue
        for v in c.values:
            at = text.lower().find(str(v).lower())
            if at <= 0:
                continue
            # '<kind words> and on <value>': the word before the join is the list's kind
            m = re.search(
                r"([\w'\-]+)\s+(?:and|or)\s+(?:on|to|in|for|from|at|of)\s+$",
                text[max(0, at - 60) : at],
                re.I,
            )
            if m and _stems(m.group(1)) & set(c.kind_words):
                out.append(v)
    return out


# -- a duration read as a literal value --------------------------------------------------------
# 'No restocking fee on any return made within the 14-day withdrawal period' read as "Deny when
# fee return contains 14-day": no argument spells the period, the fee passed.
_DURATION_VALUE = re.compile(r"^\d+[- ]?(?:day|hour|week|month|year|minute)s?$", re.I)


def _duration_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    return [
        str(v)
        for c in every
        if isinstance(c, ValueList)
        for v in c.values
        if _DURATION_VALUE.match(str(v))
    ]


# -- a word pointing at a list, or an approver, read as the value -------------------------------
# 'Exports must not include any of the following columns: ssn, dob, …' read as "Deny when a
# member of `columns` is following" (an export of ssn passed); 'SAML signing cert changes ->
# security on-call has to approve' read as "Send to review when an argument is on-call" (a cert
# change passed when no argument held the word).
_POINTERS = frozenset(
    "following below above these those listed wildcard wildcards anything".split()
)
_APPROVERS = frozenset(
    "on-call oncall manager lead owner supervisor officer director admin approver reviewer "
    "team".split()
)
_APPROVES = re.compile(r"\b(?:approv\w*|sign(?:s|ed)?[- ]off|sign\s+off|ok)\b", re.I)


def _pointer_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for c in every:
        if not isinstance(c, ValueList):
            continue
        for v in c.values:
            low = str(v).lower()
            if low in _POINTERS or (
                low in _APPROVERS and len(c.values) == 1 and _APPROVES.search(text)
            ):
                out.append(str(v))
    return out


# -- a count per hour read as a count per request -----------------------------------------------
# 'max 3 unlocks/resets per agent per rolling hour' read as "Deny when the number of unlocks is
# above 3": the fourth unlock of the hour, one per request, passed.
_PER_WINDOW = re.compile(
    r"\b(?:per|a|each|every|in\s+(?:a|any|one))\s+(?:rolling\s+|calendar\s+)?"
    r"(?P<w>hour|day|week|month|year|24\s*h)\b",
    re.I,
)


def _window_dropped(text: str, every: Sequence[Check]) -> list[str]:
    limits = [c for c in every if isinstance(c, NumericLimit)]
    if not limits or any(c.window or c.counts_calls for c in limits):
        return []
    m = _PER_WINDOW.search(text)
    if m and any(c.noun for c in limits):
        return [m.group("w")]
    return []


# -- 'within N hours of' read as more than N hours ------------------------------------------------
# 'no swap within 24h of previous swap (hours_since_last_swap) - deny' read as "Deny when
# `hours_since_last_swap` is above 24 hours": the swap an hour after the last one passed.
_WITHIN_OF = re.compile(
    r"\bwithin\s+\d+\s*(?:h|hrs?|hours?|d|days?|min|minutes?)\b\s+(?:of|after|since)\b", re.I
)


def _within_read_as_above(text: str, every: Sequence[Check]) -> list[str]:
    # 'no swap within 24h of …': the act is forbidden inside the window ('must be filed within
    # 30 days of …' bounds it from above, read right)
    if not re.search(
        r"\b(?:no|never|don't|do\s+not)\s+(?:[\w\-]+\s+){1,3}?" + _WITHIN_OF.pattern[2:], text, re.I
    ):
        return []
    if any(
        isinstance(c, NumericLimit) and c.effect == "deny" and c.op in ("gt", "ge") for c in every
    ):
        return ["within"]
    return []


# -- a verb read as a flag ------------------------------------------------------------------------
# 'A verified DSAR ticket (dsar_ticket) must be referenced' read as "Deny unless `referenced` is
# on": the ticket given, no argument named 'referenced', the erasure went to review or worse.
_ACT_STEMS = frozenset(
    stem(w)
    for w in "referenced cited included provided attached specified quoted mentioned given supplied booked".split()
)


def _verb_read_as_flag(text: str, every: Sequence[Check]) -> list[str]:
    return [
        w
        for c in every
        if type(c).__name__ == "RequiredFlag"
        for w in getattr(c, "flag_words", ())
        if w in _ACT_STEMS
    ]


# -- a word that is not a counted thing read as one ----------------------------------------------
# 'coupons above $100 off' read as "the number of off", 'between 2 and 50 inclusive' as "the number
# of inclusive", 'Agent daily total max 250,000 USD incl. this one' as "the number of incl".
_NOT_COUNTED = frozenset(
    "off inclusive exclusive approving gross net incl including included total limit max min "
    "est approx".split()
)


def _uncounted_noun(text: str, every: Sequence[Check]) -> list[str]:
    return [
        c.noun
        for c in every
        if isinstance(c, NumericLimit)
        and c.noun
        and c.noun.lower() in _NOT_COUNTED
        and not c.currency  # 'above $100 off': the amount is compared, the word is a gloss
        and not c.window
    ]


# -- an argument's name read as a value ----------------------------------------------------------
# 'must have invoice_ref. no invoice, no payout' read as "Deny when an argument contains
# invoice_ref" (a payout with an invoice_ref was the one refused); 'allowed_mccs must not include
# anything from the blocklist' as "Deny when an argument contains allowed_mccs".
def _name_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for c in every:
        if not isinstance(c, ValueList) or not c.values:
            continue
        if not all(_IDENTIFIER.match(str(v)) for v in c.values):
            continue
        v = str(c.values[0])
        e = re.escape(v)
        if re.search(
            r"\b(?:have|has|needs?|requires?|carry|carries)\s+(?:a|an|the)?\s*"
            + e
            + r"\b|^\s*"
            + e
            + r"\s+(?:must|may|can|should|shall|is|are|required|mandatory)\b"
            # '…, i.e. delivery_email must equal subject_email': the name opens a clause
            + r"|(?:[,;:]|\bi\.?e\.?,?|\bthat\s+is,?)\s*"
            + e
            + r"\s+(?:must|may|can|should|shall|is|are)\b"
            # 'paper_check only to US mailing addresses': 'only' restricts where it goes, not
            # which value is allowed (every direct deposit had been denied)
            + r"|\b"
            + e
            + r"\s+only\s+(?:to|in|into|for|from|via|with|on|at|within)\b",
            text,
            re.I,
        ):
            out.append(v)
    return out


# -- a permission up to a bound read as a cap ------------------------------------------------------
# 'refunds up to $150: ok, no questions' read as "Deny when the amount is above 150 USD": what lies
# above the bound is not forbidden by the rule, it is left to a person.
def _permission_read_as_cap(text: str, every: Sequence[Check]) -> list[str]:
    m = re.search(
        r"[:\-]\s*(?:ok|okay|fine)\b|\bno\s+(?:questions|approval)\b"
        # 'Write-offs up to £250: agent can action.' (every write-off above 250 had been denied,
        # though the policy's next rule gives the band above it to a team leader)
        r"|[:\-]\s*(?:the\s+|an?\s+)?(?:agents?|bots?)\s+(?:can|may)\b",
        text,
        re.I,
    )
    if not m:
        return []
    if any(c.effect == "allow" for c in every):
        return []
    rest = _UPPER_BOUND.sub(" ", _PERMITS.sub(" ", text))
    rest = re.sub(r"\bno\s+(?:questions|approval)\b", " ", rest, flags=re.I)
    if _FORBIDS.search(rest):
        return []
    if any(
        isinstance(c, NumericLimit) and c.effect == "deny" and c.op in ("gt", "ge") for c in every
    ):
        return [m.group(0).split()[-1]]
    return []


# Every guard, in the order its words are listed; a new one is a function here.

# -- jred29: a second requirement joined to a bound, read into the bound's subject -------------
# 'Location history exports are limited to 30 days (range_days) and require a data protection
# ticket' read as "Deny when `range_days` is above 30 days (about: … data protection ticket)":
# the ticket became a word of what the bound is about, and an export with no ticket passed.
_BOUND_AND_NEED = re.compile(
    r"\band\s+(?:also\s+)?(?:requires?|needs?|must\s+(?:have|include|carry|cite|reference|"
    r"quote|provide))\s+(?P<what>(?:an?|the)\s+[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,3})\s*"
    r"(?:[.;]|$)",
    re.I,
)
# what a person gives, not a thing a request carries ('and require CFO approval'): left as read
_NEED_PERSON = re.compile(
    r"\b(?:approval|approvals|sign[\s\-]?off|review|consent|approver|authori[sz]ation|"
    r"escalation|check|verification)\b",
    re.I,
)


def _bound_need_object(text: str, every: Sequence[Check]) -> str | None:
    """The object of 'and require(s) a <thing>' closing a rule one bound reads, when no check
    requires it (None otherwise)."""
    if not any(isinstance(c, NumericLimit) for c in every):
        return None
    m = _BOUND_AND_NEED.search(text)
    if not m or _NEED_PERSON.search(m.group("what")):
        return None
    what = _TRIM.sub("", m.group("what")).strip()
    mine = _stems(what) - {"id", "number", "ref", "reference"}
    for c in every:
        if isinstance(c, RequiredArgument):
            name = _stems(c.exact_name) if c.exact_name else set(c.arg_words) - STOPWORDS
            if name & mine:
                return None
    return what


def _bound_need_unread(text: str, every: Sequence[Check]) -> list[str]:
    what = _bound_need_object(text, every)
    return [what.split()[0]] if what else []


def _mend_bound_need(
    text: str, checks: list[Check], required_alone: Callable[[str], Check | None]
) -> list[Check] | None:
    """'… limited to 30 days (range_days) and require a data protection ticket': the bound, and
    the ticket required of the same subject (read as 'Requests must include a data protection
    ticket.' would read it), each about the bound's subject without the ticket's words."""
    what = _bound_need_object(text, checks)
    limits = [c for c in checks if isinstance(c, NumericLimit)]
    if what is None or len(limits) != 1:
        return None
    need = required_alone(what)
    if not isinstance(need, RequiredArgument):
        return None
    mine = _stems(what)
    limit = limits[0]
    terms = tuple(t for t in limit.terms if t not in mine)
    measure = tuple(t for t in limit.measure if t not in mine)
    if not terms:
        return None
    mended = replace(limit, terms=terms, measure=measure)
    return [mended if c is limit else c for c in checks] + [
        replace(need, rule_index=limit.rule_index, source=limit.source, effect="deny", terms=terms)
    ]


# -- jred29: business days ---------------------------------------------------------------------
# 'The borrower must be notified within 5 business days (notice_days)' had read 5 as a count of
# 'business' (the bound then compared nothing: a notice after 8 days passed); 'Refunds must be
# issued within 5 business days' as "the amount is above 5". A business day is not a day of the
# clock the engine counts in, so a bound in business days is left unread: a person decides.
_BUSINESS_DAYS = re.compile(r"\b\d+(?:\.\d+)?\s+(?P<w>business|working|banking)\s+days?\b", re.I)


def _business_days_bound(text: str, every: Sequence[Check]) -> list[str]:
    m = _BUSINESS_DAYS.search(text)
    if not m or not any(isinstance(c, NumericLimit) for c in every):
        return []
    return [m.group("w").lower()]


# -- jred29: a review bound asked only under a second bound ------------------------------------
# 'A contractor payout over USD 15000 requires finance controller review if the contractor has
# been onboarded less than 30 days ago' read as two reviews, each on its own: every payout over
# 15,000 USD and every new contractor's payout were sent to review. The second bound is the
# condition under which the first asks for review.
_REVIEW_IF = re.compile(
    r"\b(?:requires?|needs?|is|are|goes|go|get|gets|must\s+(?:get|have|go))\b[^.;]*?"
    r"\b(?:review|approval|sign[\s\-]?off|escalation)\b[^.;]*?\s(?P<if>if|when|where|provided)\s",
    re.I,
)


def _mend_review_if_bound(text: str, checks: list[Check]) -> list[Check] | None:
    limits = [c for c in checks if isinstance(c, NumericLimit)]
    if len(limits) != 2 or len(checks) != 2 or any(c.effect != "review" for c in limits):
        return None
    m = _REVIEW_IF.search(text)
    if not m:
        return None
    cut = m.start("if")
    found = find_quantities(text)
    before = [q for q in found if q.end <= cut]
    after = [q for q in found if q.start >= cut]
    if len(before) != 1 or len(after) != 1:
        return None

    def _owner(q) -> NumericLimit | None:
        own = [c for c in limits if abs(c.threshold - q.value * q.unit_factor) < 1e-9]
        own = own or [c for c in limits if abs(c.threshold - q.value) < 1e-9]
        return own[0] if len(own) == 1 else None

    body, cond = _owner(before[0]), _owner(after[0])
    if body is None or cond is None or body is cond:
        return None
    return [When(body.rule_index, body.source, "review", body.terms, (), condition=cond, body=body)]


# -- jred29: a state joined by 'or' to a bound, read as the bound's subject ---------------------
# 'Firmware updates are not pushed to vehicles in motion or with a battery_level below 20%' read
# as "Deny when `battery_level` is below 20% (about: … motion)": the other case became a word of
# the bound's subject, and `in_motion: false` then set the whole rule aside (a vehicle at 10 %
# was updated). Each side is its own prohibition; the state's words stay unread (review).
_STATE_OR_BOUND = re.compile(
    r"\b(?:in|on|under|while|being)\s+(?P<state>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s+or\s+"
    r"(?:with|having|whose|where|when)\b[^.;]*?\d",
    re.I,
)


def _state_or_bound(text: str, every: Sequence[Check]) -> list[str]:
    m = _STATE_OR_BOUND.search(text)
    if not m:
        return []
    mine = _stems(m.group("state"))
    for c in every:
        if isinstance(c, NumericLimit) and mine & set(c.terms):
            return [m.group("state").split()[0]]
    return []


GUARDS: tuple[Callable[[str, Sequence[Check]], list[str]], ...] = (
    _place_group_as_subject,
    _joined_requirements,
    _literal_read_as_name,
    _months_as_millions,
    _review_below_upper_bound,
    _not_equal_read_as_value,
    _slash_list_in_part,
    _ampersand_split,
    _no_need_read_as_ban,
    _permission_read_as_ban,
    _amount_read_as_rate,
    _unit_read_as_argument,
    _share_of_unread_base,
    _count_of_required,
    _subject_read_as_value,
    _joined_place_as_argument,
    _duration_read_as_value,
    _pointer_read_as_value,
    _window_dropped,
    _within_read_as_above,
    _verb_read_as_flag,
    _uncounted_noun,
    _name_read_as_value,
    _permission_read_as_cap,
    _bound_need_unread,
    _business_days_bound,
    _state_or_bound,
    # the new readers' misreadings the red team found (overreads.py)
    *OVERREAD_GUARDS,
    # understood rules whose reading says something else (red team jred14, wrongreads.py)
    *WRONGREAD_GUARDS,
    # a bound's argument read as a value, a port set aside (helper jrange, netranges.py)
    *NETRANGE_GUARDS,
    # two arguments compared, read as something else (jpair, pairs.py)
    pair_read_otherwise,
    status_read_otherwise,
    states_read_otherwise,
    # understood rules that decided on a misreading (red team jred19, misdecides.py)
    *MISDECIDE_GUARDS,
    # bounds read the wrong way round or not as bounds, day windows dropped (red team jred33,
    # misdirects.py)
    *MISDIRECT_GUARDS,
    # units and counters read wrong in unseen domains (red team jred32, unitreads.py)
    *UNITREAD_GUARDS,
    # a rating on its ladder, a list member, a gloss or an argument read as the value (misbinds.py)
    *MISBIND_GUARDS,
)


def misread_words(text: str, every: Sequence[Check]) -> list[str]:
    """The words of `text` whose reading by the checks `every` is wrong as a whole."""
    text = re.sub(r"\s+", " ", text.replace("\u2019", "'"))
    out: list[str] = []
    for guard in GUARDS:
        for w in guard(text, every):
            if w and w not in out:
                out.append(w)
    return out


# -- readings made right ------------------------------------------------------------------------
# Where the right reading is the checks' own with one part split or joined, the rule is read right
# instead of left partly understood: each part is read by the recogniser that reads it alone.

_SCOPE_QUALIFIERS = frozenset(
    stem(w) for w in "international domestic foreign overseas abroad cross-border intl".split()
)
_IDENTIFIER = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")


def mend(
    text: str, checks: Sequence[Check], required_alone: Callable[[str], Check | None]
) -> tuple[Check, ...] | None:
    """`checks` read right, or None when no part needs mending. `required_alone(part)` is the
    required-argument check the compiler reads from 'Requests must include <part>.'."""
    text = re.sub(r"\s+", " ", text.replace("\u2019", "'"))
    out = _mend_joined_requirements(text, list(checks), required_alone)
    out = _mend_bound_need(text, out if out is not None else list(checks), required_alone) or out
    out = _mend_review_if_bound(text, out if out is not None else list(checks)) or out
    out = _mend_ampersand(text, out if out is not None else list(checks)) or out
    out = _mend_not_equal(text, out if out is not None else list(checks)) or out
    out = _mend_share_of(text, out if out is not None else list(checks)) or out
    out = _mend_place_group(text, out if out is not None else list(checks)) or out
    out = _mend_slash_list(text, out if out is not None else list(checks)) or out
    out = _mend_within(text, out if out is not None else list(checks)) or out
    out = _mend_inclusive_sign(text, out if out is not None else list(checks)) or out
    for mend_one in (*WRONGREAD_MENDS, *NETRANGE_MENDS, *MISDECIDE_MENDS, *UNITREAD_MENDS):
        out = mend_one(text, out if out is not None else list(checks)) or out
    return tuple(out) if out is not None else None


def _mend_joined_requirements(
    text: str, checks: list[Check], required_alone: Callable[[str], Check | None]
) -> list[Check] | None:
    """'quota bumps need a ticket + owning team' (one argument `ticket owning team`) read as two
    required arguments, `ticket` and `owning team`; 'start_date and expected_return_date are
    required' (start_date alone) as both. Only a plain list of nouns or names is split: a part
    with 'or', a clause, a gloss or a second predicate keeps the guard's reading."""
    required = [c for c in checks if isinstance(c, RequiredArgument)]
    if not required or any(set(c.terms) & _SCOPE_QUALIFIERS for c in required):
        # 'International trips need …': whether a trip to FR is international the request may
        # not spell; read as a subject word the rule passed it by (left to the guard: review)
        return None
    spans = [m.group("what") for m in _NEED_BEFORE.finditer(text)]
    spans += [m.group("what") for m in _NEED_AFTER.finditer(text)]
    if len(spans) != 1:
        return None
    # '…, and may not exceed 200 units per line': a second obligation, read by its own check
    what = re.split(
        r",\s*(?:and|but)\s+(?=" + _SECOND_PREDICATE.pattern + ")", spans[0], flags=re.I
    )[0]
    if re.search(
        r"[(,]|\s[-\u2013\u2014]\s|\b(?:or|for|on|in|before|when|if|unless)\b", what, re.I
    ):
        return None
    parts = [_TRIM.sub("", _TRIM.sub("", p.strip())) for p in _JOIN.split(what) if p.strip()]
    if len(parts) < 2 or any(_SECOND_PREDICATE.match(p) or _CLAUSE_VERB.search(p) for p in parts):
        return None
    if any(len(p.split()) > 3 for p in parts):
        return None  # 'supporting documentation attached and a description explaining …'
    made: list[Check] = []
    for part in parts:
        alone = required_alone(part)
        if not isinstance(alone, RequiredArgument):
            return None
        made.append(alone)
    names = [_stems(c.exact_name) if c.exact_name else set(c.arg_words) for c in required]
    wanted = [_stems(c.exact_name) if c.exact_name else set(c.arg_words) for c in made]
    if sorted(map(sorted, names)) == sorted(map(sorted, wanted)):
        return None  # read right already
    base = required[0]
    kept = [c for c in checks if not isinstance(c, RequiredArgument)]
    return kept + [
        replace(
            base,
            arg_words=m.arg_words,
            exact_name=m.exact_name,
            unverifiable=m.unverifiable,
            head_word=m.head_word,
            says=m.says,
        )
        for m in made
    ]


def _mend_ampersand(text: str, checks: list[Check]) -> list[Check] | None:
    """'Hays, Korn Ferry, Robert Half, Hunt & Partners' read as '… Hunt or Partners': the two
    names joined back into the one firm the list names."""
    changed = False
    out = []
    for c in checks:
        if isinstance(c, ValueList):
            values = list(c.values)
            for m in _AMP_NAME.finditer(text):
                a, b = m.group("a"), m.group("b")
                low = [v.lower() for v in values]
                ia = next(
                    (i for i, v in enumerate(low) if v == a.lower() or v.endswith(" " + a.lower())),
                    None,
                )
                if ia is not None and b.lower() in low:
                    joined = f"{values[ia]} & {values[low.index(b.lower())]}"
                    values = [v for i, v in enumerate(values) if i != ia and v.lower() != b.lower()]
                    values.insert(ia, joined)
                    changed = True
            if changed:
                c = replace(c, values=tuple(values))
        out.append(c)
    return out if changed else None


@dataclass(frozen=True)
class DistinctArguments(ArgumentPair):
    """'Maker and checker must be different people (maker_id != checker_id)': the two arguments
    the rule names must not hold the same value (compared without case or surrounding space)."""

    kind: str = field(default="distinct_arguments", init=False)

    def _speaks_to(self, view: RequestView) -> bool:
        # an argument named like one of them ('maker' for maker_id): the rule speaks to it
        named = _stems(" ".join((self.left, self.right))) - {"id"}
        return any(lf.keys & named for lf in view.leaves)


def _mend_not_equal(text: str, checks: list[Check]) -> list[Check] | None:
    """'(maker_id != checker_id)' read as "Deny when `maker_id` is \"checker_id\"": read as the
    two arguments that must differ."""
    found = [
        m
        for m in _NOT_EQUAL.finditer(text)
        if _IDENTIFIER.match(m.group("a")) and _IDENTIFIER.match(m.group("b"))
    ]
    if len(found) != 1 or len(checks) != 1:
        return None
    m, c = found[0], checks[0]
    if not (
        isinstance(c, Binding)
        and c.path == m.group("a")
        and c.op in ("eq", "ne")
        and str(c.value) == m.group("b")
        and c.effect in ("deny", "review")
    ):
        return None
    return [
        DistinctArguments(
            rule_index=c.rule_index,
            source=c.source,
            effect=c.effect,
            terms=c.terms,
            left=m.group("a"),
            right=m.group("b"),
        )
    ]


_MONEY_WORDS = MONEY_KEYS | frozenset(
    stem(w) for w in "usd eur gbp chf jpy cad aud sgd cents salary".split()
)
_SHARE_NAMED = re.compile(r"pct|percent|rate|share|ratio|margin", re.I)


@dataclass(frozen=True)
class ShareLimit(Check):
    """'Fee can't exceed 20% of candidate's first-year base': the share of the base the thing is.
    A percentage argument named for the thing is the share as it is (the bound it wraps reads
    it); the thing and the base, each sent as an amount in one argument named for it, are
    compared as a share; anything else is the wrapped bound's to decide (it sends an amount not
    named as a percentage to review)."""

    base: NumericLimit | None = None
    thing: tuple[str, ...] = ()  # stems naming the thing measured ('fee')
    of: tuple[str, ...] = ()  # stems naming the base ('candidate', 'first', 'year', 'base')
    of_phrase: str = ""
    kind: str = field(default="share_limit", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(thing=list(self.thing), of=list(self.of))
        return d

    def reading(self) -> str:
        assert self.base is not None
        verb = {"deny": "Deny", "review": "Send to review"}.get(self.effect, "Deny")
        words_ = {"gt": "above", "ge": "at or above", "lt": "below", "le": "at or below"}
        thing = (
            " ".join(sorted(self.thing)) if not self.source else _surface(self.source, self.thing)
        )
        return (
            f"{verb} when the {thing}, as a percentage of {self.of_phrase}, is "
            f"{words_.get(self.base.op, self.base.op)} {self.base.threshold:g}% (a percentage "
            f"named for the {thing} is "
            f"that share; the {thing} and the base, each an amount in one argument named for it, "
            f"are compared as a share; anything else goes to review){self._about()}"
        )

    def evaluate(self, view: RequestView) -> Outcome:
        assert self.base is not None
        thing, of = set(self.thing), set(self.of)
        numeric = [(lf, v) for lf, v in view.numeric_leaves() if not _SHARE_NAMED.search(lf.path)]
        # amounts of money only ('samples' of 'stock' may be counted in other units: review)
        numeric = [(lf, v) for lf, v in numeric if lf.keys & _MONEY_WORDS]
        things = [(lf, v) for lf, v in numeric if thing <= lf.keys and not (lf.keys & of)]
        bases = [(lf, v) for lf, v in numeric if lf.keys & of and not (lf.keys & thing)]
        if len(things) == 1 and len(bases) == 1 and bases[0][1] > 0:
            (tl, tv), (bl, bv) = things[0], bases[0]
            share = tv / bv * 100
            names = (tl.path, bl.path)
            ops = {
                "gt": share > self.base.threshold,
                "ge": share >= self.base.threshold,
                "lt": share < self.base.threshold,
                "le": share <= self.base.threshold,
            }
            said = f"{tl.path} = {tv:g} is {share:.1f}% of {bl.path} = {bv:g}"
            if ops.get(self.base.op, False):
                return self.fire("matched", said, names)
            if any(_SHARE_NAMED.search(lf.path) and thing <= lf.keys for lf in view.leaves):
                # a percentage sent beside the amounts must hold too
                other = self.base.evaluate(view)
                if other.status not in (SATISFIED, NOT_APPLICABLE):
                    return other
            return Outcome(SATISFIED, said, names)
        return self.base.evaluate(view)


def _surface(source: str, stems_: tuple[str, ...]) -> str:
    got = [w for w in re.findall(r"[A-Za-z][\w'\-]*", source) if stem(w.lower()) in stems_]
    return " ".join(dict.fromkeys(w.lower() for w in got)) or "amount"


_BASE_ENDS = frozenset(
    "require requires required need needs needed must may can cannot can't is are should shall "
    "go goes get gets to for per and or without unless except needing requiring".split()
)


def _base_phrase(base: str) -> str:
    """The base's own words ('base salary require CHRO' -> 'base salary')."""
    kept = []
    for w in base.split():
        if w.lower() in _BASE_ENDS:
            break
        kept.append(w)
    return " ".join(kept)


def _mend_share_of(text: str, checks: list[Check]) -> list[Check] | None:
    """'Fee can't exceed 20% of candidate's first-year base' read as "Deny when the percentage is
    above 20%": read as the share of the base the fee is."""
    found = list(_SHARE_OF.finditer(text))
    if len(found) != 1 or len(checks) != 1:
        return None
    c = checks[0]
    if not (
        isinstance(c, NumericLimit)
        and c.unit_family == "percent"
        and not c.named
        and not c.window
        and not c.counts_calls
    ):
        return None
    phrase = _base_phrase(found[0].group("base"))
    of = _stems(phrase)
    thing = tuple(w for w in c.measure if w not in of)
    if not of or not thing or not of & set(c.measure):
        return None
    return [
        ShareLimit(
            rule_index=c.rule_index,
            source=c.source,
            effect=c.effect,
            terms=c.terms,
            base=c,
            thing=thing,
            of=tuple(sorted(of)),
            of_phrase=phrase,
        )
    ]


_LOCATED_IN_GROUP = re.compile(
    r"\b(?P<how>located|based|resident|residing|domiciled|living)\s+in\s+(?:the\s+)?"
    r"(?P<w>EU|EEA)\b(?!\s*[/,]|\s+(?:or|and)\b)"
)


def _mend_place_group(text: str, checks: list[Check]) -> list[Check] | None:
    """'Criminal record checks on candidates located in the EU -> DPO review first' read as
    subject words: read as the place list the group is (the built-in vocabulary lists its
    members), on the act the rest of the subject names."""
    found = list(_LOCATED_IN_GROUP.finditer(text))
    if len(found) != 1 or len(checks) != 1:
        return None
    c, m = checks[0], found[0]
    if not (isinstance(c, ActionRule) and type(c) is ActionRule and c.effect in ("deny", "review")):
        return None
    group = m.group("w")
    drop = _stems(group) | _stems(m.group("how"))
    if not drop & set(c.terms):
        return None
    terms = tuple(t for t in c.terms if t not in drop)
    if not terms:
        return None
    return [
        ValueList(
            rule_index=c.rule_index,
            source=c.source,
            effect=c.effect,
            terms=terms,
            mode="deny",
            values=(group,),
            match="place",
        )
    ]


_CODE = re.compile(r"^[A-Z0-9][A-Z0-9_\-]*$")


# US states and Canadian provinces by their postal codes: with countries, the codes a slash
# joins in a list of places ('OR/WA', 'US/CA') (jred28)
_SUBDIVISION_CODES = frozenset(
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ "
    "NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY AB BC MB NB NL NS NT NU ON PE QC "
    "SK YT".split()
)


def _place_code(code: str) -> bool:
    """A two-letter upper-case code of a country, a US state or a Canadian province."""
    if not re.fullmatch(r"[A-Z]{2}", code):
        return False
    return code in _SUBDIVISION_CODES or country_code(code) == code


def _mend_slash_list(text: str, checks: list[Check]) -> list[Check] | None:
    """'Source acct: TAX-EUR-01 / TAX-GBP-01 only' read as TAX-EUR-01 alone (the other member
    read as subject words): every member of the slash list is in the allow-list."""
    groups = []
    for m in _SLASH_LIST.finditer(text):
        members = [p.strip() for p in m.group(0).split("/")]
        if len(members) >= 2 and all(_CODE.match(p) and not p.isdigit() for p in members):
            groups.append(members)
    if len(groups) != 1 or len(checks) != 1:
        return None
    members = groups[0]

    def fix(c: Check) -> Check | None:
        if (
            isinstance(c, ValueList)
            and c.values
            and c.match == "exact"
            and len(members) == 2
            and all(_place_code(p) for p in members)
            and re.sub(r"\s+", "", c.values[-1]).upper() == "/".join(members).upper()
        ):
            # jred28: 'Out-of-state destinations (anything other than OR/WA) -> review' read as
            # the one value 'OR/WA': WA and OR went to review. Two place codes joined by a slash
            # are two members of the list (other pairs, 'N/A', 'AC/DC', stay one value).
            return replace(c, values=(*c.values[:-1], *members))
        if isinstance(c, ValueList) and c.mode == "allow" and c.match == "exact":
            have = [v for v in c.values if v.upper() in {p.upper() for p in members}]
            if not have or len(have) != len(c.values) or len(have) == len(members):
                return None
            drop = set().union(*(_stems(p) for p in members))
            terms = tuple(t for t in c.terms if t not in drop)
            return replace(c, values=tuple(members), terms=terms)
        inner = getattr(c, "body", None)
        if isinstance(c, Check) and type(c).__name__ == "When" and isinstance(inner, Check):
            fixed = fix(inner)
            return replace(c, body=fixed) if fixed is not None else None
        return None

    got = fix(checks[0])
    return [got] if got is not None else None


def _mend_within(text: str, checks: list[Check]) -> list[Check] | None:
    """'no swap within 24h of previous swap (hours_since_last_swap) - deny' read as "Deny when
    `hours_since_last_swap` is above 24 hours": read as the window it forbids, at or below 24
    hours (the bound itself is inside the window)."""
    if len(checks) != 1 or not _within_read_as_above(text, checks):
        return None
    c = checks[0]
    if not (isinstance(c, NumericLimit) and c.named and c.op == "gt" and c.unit_family == "time"):
        return None
    return [replace(c, op="le")]


_SIGN_BOUND = re.compile(
    r"(?P<sign>>=|=>|\u2265|<=|=<|\u2264)\s*(?:[A-Z]{3}\s*|[$\u20ac\u00a3]\s*)?\d"
)
_OTHER_BOUND = re.compile(
    r"(?<![<>=])[<>](?!=)|\b(?:above|over|below|under|exceed\w*|more|less|fewer|greater|least|"
    r"most|up\s+to|max\w*|min\w*|between)\b",
    re.I,
)


def _mend_inclusive_sign(text: str, checks: list[Check]) -> list[Check] | None:
    """'payouts >= USD 10k: adjuster supervisor sign-off' read as "above 10,000 USD" (the sign
    before a currency code lost its '='): exactly 10,000 USD passed. A rule with one inclusive
    sign and no other bound word keeps the sign's boundary."""
    signs = list(_SIGN_BOUND.finditer(text))
    if len(signs) != 1 or len(checks) != 1 or _OTHER_BOUND.search(_SIGN_BOUND.sub(" ", text)):
        return None
    c = checks[0]
    want = {"gt": "ge", "lt": "le"}
    inner = c
    while not isinstance(inner, NumericLimit) and isinstance(getattr(inner, "base", None), Check):
        inner = inner.base
    if not isinstance(inner, NumericLimit) or inner.op not in want:
        return None
    up = signs[0].group("sign") in (">=", "=>", "\u2265")
    if (inner.op == "gt") != up:
        return None
    fixed = replace(inner, op=want[inner.op])
    if inner is c:
        return [fixed]
    return None
