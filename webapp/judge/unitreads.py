"""Numbers read in the wrong unit or against the wrong thing (red team jred32).

Found in domains the bench had not seen (satellite operations, mining, film production,
esports, courier, brewery, animal shelter, museum loans). Each guard looks at a rule as written
and every check compiled from it, and names the words of a phrasing the checks read wrongly;
those words stay unaccounted for, so the rule is partly understood and never decides on its own
(misreadings.py runs them beside its own guards). A reader that reads the phrasing right makes
the guard find nothing.

Each was an unsafe approval beside satisfied rules (bench/judge_cases/dev_jred32.json).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from webapp.judge.checks import Check, NumericLimit

# -- a keep-out 'within N <unit> of' read as a bound from above -------------------------------------
# "Don't point the imager within 30 deg of the sun (sun_angle_deg)" and "Keep-out: no slews within
# 10 deg of the moon" read as "Deny when `sun_angle_deg` is above 30": 12 degrees from the sun
# passed and 75 was denied. The act is forbidden inside the distance, whatever its unit (degrees,
# metres, miles, minutes); the time units had a guard of their own (misreadings.py).
_NEGATED_WITHIN = re.compile(
    r"\b(?:no|never|don't|do\s+not|must\s+not|may\s+not|can't|cannot|keep[- ]out:?)\s+"
    r"(?:[\w\-]+\s+){0,4}?within\s+\d[\d.,]*\s*(?:°|[a-z]+\.?)?\s+(?:of|from)\b",
    re.I,
)
_WITHIN_NOT_PERMITTED = re.compile(
    r"\bwithin\s+\d[\d.,]*\s*(?:°|[a-z]+\.?)?\s+(?:of|from)\b[^.;]{0,60}?\b(?:is|are)\s+"
    r"(?:not\s+(?:permitted|allowed)|prohibited|forbidden|banned)\b",
    re.I,
)


def _keep_out_read_as_cap(text: str, every: Sequence[Check]) -> list[str]:
    if not (_NEGATED_WITHIN.search(text) or _WITHIN_NOT_PERMITTED.search(text)):
        return []
    if any(
        isinstance(c, NumericLimit) and c.effect == "deny" and c.op in ("gt", "ge") for c in every
    ):
        return ["within"]
    return []


# -- a bare 'm' read as millions where nothing is money -------------------------------------------
# "Drone survey altitude max 120 m (altitude_m)", "Crane boom reach must not exceed 40 m", "Gas
# sensor timeout max 30m (sensor_timeout_min)" read as "Deny when … is above 120,000,000": a drone
# at 400 m and a 90-minute timeout passed. A bare 'm' is metres, minutes, months or millions; it
# is millions only beside money ('Payouts above 1.5m', 'principal_usd > 25m'). Where the rule
# names no currency and no money, or names an argument in a unit of length or time, the bound
# stays unread (review).
_BARE_M = re.compile(r"(?<![$€£¥\w.,])(?P<n>\d+(?:\.\d+)?)\s?m\b(?![/²³])", re.I)
_CURRENCY = re.compile(
    r"[$€£¥₹]|\b(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|SGD|HKD|INR|CNY|SEK|NOK|DKK|PLN|ZAR|BRL|MXN|"
    r"dollars?|euros?|pounds?|sterling)\b",
    re.I,
)
_MONEY_WORDS = re.compile(
    r"\b(?:amounts?|values?|valued|pay(?:outs?|ments?|roll)?|transfers?|wires?|trades?|"
    r"notional|prices?|costs?|fees?|revenue|budgets?|spend(?:ing)?|loans?|deals?|gmv|sales|"
    r"principal|deposits?|invoices?|salar(?:y|ies)|exposure|credits?|refunds?|"
    r"premiums?|claims?|turnover|capex|opex|funding|grants?|donations?|bonus(?:es)?|"
    r"withdrawals?|balances?|assets?|aum|liabilit(?:y|ies)|sums?|followers|users|records|"
    r"rows|views|subscribers|impressions|requests|calls|tokens|shares)\b",
    re.I,
)
# an argument the rule names in a unit of length or time ('altitude_m', 'sensor_timeout_min')
_NAMED_IN_UNIT = re.compile(
    r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:m|meters?|metres?|km|ft|min|mins|minutes?|months?|"
    r"mo|s|sec|secs|seconds?|h|hrs?|hours?|days?)\b",
    re.I,
)


def _metres_read_as_millions(text: str, every: Sequence[Check]) -> list[str]:
    millions = {
        c.threshold
        for c in every
        if isinstance(c, NumericLimit)
        and c.currency is None
        and c.unit_family is None
        and c.threshold >= 1_000_000
    }
    if not millions:
        return []
    for m in _BARE_M.finditer(text):
        if float(m.group("n")) * 1_000_000 not in millions:
            continue
        if _NAMED_IN_UNIT.search(text) or not (_CURRENCY.search(text) or _MONEY_WORDS.search(text)):
            return ["m"]
    return []


# -- a count the request states read as a count of requests ---------------------------------------
# "Max 2 burns per day (burns_today)", "Guest pours capped at 4 per day (pours_today)", "Max 3
# roster swaps per week (swaps_this_week)" read as "Deny when the number of requests per day is
# above 2": the argument that says how many there were was never compared, and a third burn of
# the day passed on an empty history. The rule names its counter; the requests this agent made
# are another count.
_COUNTER_NAME = re.compile(
    r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:today|daily|this_(?:day|week|month|year|shift|season)|"
    r"per_(?:day|week|month|year)|(?:last_)?(?:24h|7d|30d|\d+d)|ytd|mtd|wtd|so_far|to_date|"
    r"count|total)\b",
    re.I,
)


def _named_counter_read_as_calls(text: str, every: Sequence[Check]) -> list[str]:
    if not any(isinstance(c, NumericLimit) and c.counts_calls for c in every):
        return []
    m = _COUNTER_NAME.search(text)
    if m and not any(isinstance(c, NumericLimit) and c.named == m.group(0) for c in every):
        return [m.group(0)]
    return []


# -- a bare 'm' read right where the rule says which ---------------------------------------------
# A rule with no currency and no money that names an argument in metres ('altitude_m') or speaks
# of a length ('altitude', 'reach', 'depth', 'within … of') means metres; one that names an
# argument in minutes ('sensor_timeout_min') and no length means minutes. Anything else keeps
# the bare 'm' (millions beside money; `_metres_read_as_millions` sends the rest to review).
_NAMED_METRES = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:m|meters?|metres?)\b", re.I)
_NAMED_MINUTES = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:min|mins|minutes?)\b", re.I)
# jred34: an adjective ('long', 'high') counts only right before its bound ('tall: max 3m'), and a
# noun of size not when it is 'of' something else ('Depth of book max 3m'): 'Long positions max
# 2m' had read 2 metres, and a 3,000,000 notional passed (unsafe)
_LENGTH_WORDS = re.compile(
    r"\b(?:(?:altitude|height|depth|reach|distance|radius|length|elevation|clearance|"
    r"draft|draught|span|width|lift|away|apart|setback|buffer|within)\b(?!\s+of\b)"
    r"|(?:deep|long|wide|tall|high)\b(?=\s*[:,]?\s*(?:max|min|up\s+to|at\s+most|<|>|\d)))",
    re.I,
)


def bare_m_in_unit(text: str) -> str:
    """`text` with each bare 'N m' written 'N metres' or 'N minutes' where the rule says which."""
    if "m" not in text or not _BARE_M.search(text):
        return text
    if _CURRENCY.search(text) or _MONEY_WORDS.search(text):
        return text
    metres = bool(_NAMED_METRES.search(text) or _LENGTH_WORDS.search(text))
    minutes = bool(_NAMED_MINUTES.search(text))
    if metres == minutes:
        return text
    unit = "metres" if metres else "minutes"
    return _BARE_M.sub(
        # '1.2m deep': already a length to the quantity reader (quantities._SPEED_OR_LENGTH),
        # whose reading the rest of the compiler knows; left as written
        lambda m: m.group(0) if _SIZE_AFTER.match(text, m.end()) else f"{m.group('n')} {unit}",
        text,
    )


_SIZE_AFTER = re.compile(
    r"\s+(?:deep|high|tall|long|wide|in\s+(?:depth|height|length|width))\b", re.I
)


def _mend_keep_out(text: str, checks: list[Check]) -> list[Check] | None:
    """ "Don't point the imager within 30 deg of the sun (sun_angle_deg)" read as "Deny when
    `sun_angle_deg` is above 30": read as the keep-out it forbids, at or below 30 (the bound is
    inside). Only a bound on the argument the rule names, in the unit its name carries."""
    if len(checks) != 1 or not _keep_out_read_as_cap(text, checks):
        return None
    c = checks[0]
    if not (
        isinstance(c, NumericLimit)
        and c.named
        and c.op == "gt"
        and c.effect == "deny"
        and c.unit_family is None
        and not c.counts_calls
    ):
        return None
    m = _WITHIN_UNIT.search(text)
    suffix = c.named.lower().rsplit("_", 1)[-1]
    unit = (m.group("u") or "").lower().rstrip(".") if m else ""
    if not unit or len(suffix) < 2 or not (unit.startswith(suffix) or suffix.startswith(unit)):
        return None
    return [replace(c, op="le")]


_WITHIN_UNIT = re.compile(r"\bwithin\s+\d[\d.,]*\s*(?P<u>[a-z]+\.?)\s+(?:of|from)\b", re.I)

MENDS: tuple[Callable[[str, list[Check]], list[Check] | None], ...] = (_mend_keep_out,)

# -- a cap and a time ban read as one conditional --------------------------------------------------
# "Happy hour discounts max 25% (discount_pct), never after 19:00", "Refund max 50 USD, never on
# weekends", "Pours max 16 oz, no pours after 23:00" read as "When the request's time of day is
# after 19:00: Deny when `discount_pct` is above 25%": two obligations (the cap at any hour, and
# nothing at all after 19:00) became one, and a 40 % discount at 15:00 passed, a 10 % one at
# 21:00 too. A time or a day said in a clause of its own, with its own 'never' or 'no', after a
# bound, is its own prohibition.
_BOUND_WORD = re.compile(
    r"\b(?:max(?:imum)?|min(?:imum)?|cap(?:ped)?|up\s+to|at\s+(?:most|least)|no\s+more\s+than|"
    r"limit(?:ed)?|not\s+(?:to\s+)?exceed\w*|above|over|below|under)\b|<=|>=|[<>\u2264\u2265]",
    re.I,
)
_SEPARATE_TIME_BAN = re.compile(
    r"[,;\u2013\u2014]\s*(?:-\s*)?(?:and\s+|but\s+|also\s+)?(?P<w>never|no(?:\s+[\w\-]+){0,2}|not)\s+"
    r"(?:after|before|past|on|during|at|between|outside|over\s+the)\b",
    re.I,
)


def _time_ban_read_as_condition(text: str, every: Sequence[Check]) -> list[str]:
    if not any(
        type(c).__name__ in ("TimeOfDay", "Weekday")
        and isinstance(getattr(c, "body", None), NumericLimit)
        for c in every
    ):
        return []
    m = _SEPARATE_TIME_BAN.search(text)
    if m and _BOUND_WORD.search(text[: m.start()]):
        return [m.group("w").split()[0]]
    return []


GUARDS: tuple[Callable[[str, Sequence[Check]], list[str]], ...] = (
    _time_ban_read_as_condition,
    _keep_out_read_as_cap,
    _metres_read_as_millions,
    _named_counter_read_as_calls,
)
