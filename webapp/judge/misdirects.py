"""Rules labelled understood whose bound was read the wrong way round, or not as a bound at all
(red team jred33: public libraries, waste hauling, staffing, pawn shops, gyms, parking, venues,
a university research office).

Each guard looks at a rule as written and every check compiled from it, and names the words of a
phrasing the checks read wrongly; those words stay unaccounted for, so the rule is partly
understood and never decides on its own (misreadings.py runs them beside its own guards). A guard
looks at what the checks read, not at the words alone: a reader that reads the phrasing right
makes it find nothing.

Each was shown as an unsafe approval or a false denial in bench/judge_cases/dev_jred33.json.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator, Sequence

from webapp.judge.checks import (
    ActionRule,
    Check,
    DateWindow,
    NumericLimit,
    TimeOfDay,
    ValueList,
    Weekday,
)
from webapp.judge.text import stem


def _all(every: Sequence[Check]) -> Iterator[Check]:
    """Every check of the rule, those nested in another (an `Unless`'s base, a `When`'s body and
    condition) included."""
    seen: set[int] = set()
    stack = list(every)
    while stack:
        c = stack.pop()
        if id(c) in seen:
            continue
        seen.add(id(c))
        yield c
        if dataclasses.is_dataclass(c):
            for f in dataclasses.fields(c):
                v = getattr(c, f.name, None)
                if isinstance(v, Check):
                    stack.append(v)
                elif isinstance(v, (tuple, list)):
                    stack.extend(x for x in v if isinstance(x, Check))


# a number as a bound is written: '$16.50', '500 USD', '8,000', '25%'
_NUM = r"[$\u20ac\u00a3]?\s*(?P<n>\d[\d,]*(?:\.\d+)?)"


def _number(s: str) -> float | None:
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None


# -- a floor read as a cap (and a cap as a floor) ------------------------------------------------
# 'Pay rate floor $16.50 - never place below.', 'Deposit floor 500 USD - never accept less.',
# 'Pay rate minimum $16.50 - never place below that.' read as "Deny when the amount is at or
# above 16.50 USD": the refusal after the dash was taken for a refusal of the bounded values, so
# a worker placed at 15 USD an hour was approved and one at 18 denied. The words on either side
# of the number say which side of it the rule refuses; a check that refuses the other side is
# the rule read backwards.
# (only the words that name a bound; 'no more than 500' and 'at least 500' before a number may as
# well say which requests the rule is about: 'Refunds no more than 500 EUR need approval')
_LOW_BEFORE = re.compile(r"\b(?:floor|minimum|min\.?)\s*(?:of|is|:|=)?\s*$", re.I)
_HIGH_BEFORE = re.compile(r"\b(?:cap|ceiling|maximum|max\.?)\s*(?:of|is|:|=)?\s*$", re.I)
_REFUSED = (
    r"(?:never|not|no|don't|do\s+not|nothing|none|nobody|no\s+one|cannot|can't|must\s+not|"
    r"may\s+not)"
)
_LOW_AFTER = re.compile(
    _REFUSED
    + r"\s+(?:[\w'-]+\s+){0,3}?(?:below|under|less|lower|fewer|short\s+of|beneath|younger|smaller|shorter|cheaper|earlier)\b(?!\s+than\s*[$\u20ac\u00a3]?\s*$)",
    re.I,
)
_HIGH_AFTER = re.compile(
    _REFUSED
    + r"\s+(?:[\w'-]+\s+){0,3}?(?:above|over|more|higher|exceed\w*|beyond|older|larger|bigger|longer|later|greater)\b(?!\s+than\s*[$\u20ac\u00a3]?\s*$)",
    re.I,
)


def _sides(text: str, threshold: float) -> set[str]:
    """Which side of `threshold` the rule refuses, by the words next to each place it is written:
    'low' (a floor: 'floor $16.50', '16.50 - never below') or 'high' (a cap)."""
    out: set[str] = set()
    for m in re.finditer(_NUM, text):
        n = _number(m.group("n"))
        if n is None or abs(n - threshold) > 1e-9:
            continue
        before = text[max(0, m.start() - 40) : m.start()]
        # the clause after the number, up to the end of its sentence
        after = re.split(r"[.;!?](?:\s|$)", text[m.end() :], maxsplit=1)[0]
        # … and only up to the next number: 'at least 18 and no older than 75' refuses above 75
        after = re.split(r"\d", after, maxsplit=1)[0]
        if _LOW_BEFORE.search(before) or _LOW_AFTER.search(after):
            out.add("low")
        if _HIGH_BEFORE.search(before) or _HIGH_AFTER.search(after):
            out.add("high")
    return out


def _floor_read_as_cap(text: str, every: Sequence[Check]) -> list[str]:
    for c in _all(every):
        if not isinstance(c, NumericLimit) or c.op not in ("gt", "ge", "lt", "le"):
            continue
        if c.effect != "deny":  # a review's bound is the condition of the requests it sends
            continue
        refuses = "high" if c.op in ("gt", "ge") else "low"
        sides = _sides(text, c.threshold)
        if len(sides) == 1 and refuses not in sides:
            return ["floor" if "low" in sides else "cap"]
    return []


# -- a bound's number read as a value an argument contains --------------------------------------
# 'Pay rate floor $16.50/hr - never place below.' read as "Deny when `rate` contains 16.50/hr",
# 'Never pay below $16.50/hr.' as "Deny when an argument contains 16.50/hr": the number is the
# bound, not a value, and a pay rate of 15 passed. A value that is a number (with its unit or
# 'per' unit) written right after a bound word, or with a bound word in the rule and a unit per
# something, is a bound no check read.
_MEASURE_VALUE = re.compile(
    r"^[$\u20ac\u00a3]?\s*\d[\d,]*(?:\.\d+)?\s*(?:%|[a-z]{0,6})?"
    r"(?:\s*(?:/|per\s+)\s*[a-z]+)?$",
    re.I,
)
_PER_UNIT = re.compile(r"(?:/|\bper\s+)\s*[a-z]+$", re.I)
_BOUND_WORD = re.compile(
    r"\b(?:floor|ceiling|cap|caps|capped|limit|min|minimum|max|maximum|below|under|above|over|"
    r"less|more|fewer|exceed\w*|least|most)\b|[<>\u2264\u2265]",
    re.I,
)


def _number_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    if not _BOUND_WORD.search(text):
        return []
    for c in _all(every):
        if not isinstance(c, ValueList):
            continue
        for v in c.values:
            v = str(v).strip()
            if not v or not _MEASURE_VALUE.match(v) or not re.match(r"^[$\u20ac\u00a3]?\s*\d", v):
                continue
            if re.match(r"^\d+(?:st|nd|rd|th)$", v, re.I):
                continue  # 'The 11th is blocked': an ordinal, not a bound
            at = text.find(v)
            before = text[max(0, at - 30) : at] if at >= 0 else ""
            if _PER_UNIT.search(v) or _BOUND_WORD.search(before):
                return [v]
    return []


# -- a price per hour read as the hour's total ---------------------------------------------------
# 'Wage floor: $16.50/hour.', 'Hourly pay floor $16.50 per hr' read as "Deny when the hour's
# total of the amount is below 16.50 USD": a wage or a rate per hour is a price, not a sum of the
# last hour's requests; the placement went wherever the history took it.
_RATE_WORDS = re.compile(r"\b(?:wages?|pay|rates?|salary|salaries|hourly|billing|bill)\b", re.I)
_PRICE_PER = re.compile(
    _NUM + r"\s*(?:[A-Z]{3}\s*)?(?:/|\s+per\s+|\s+an?\s+)\s*(?P<w>hr|hrs|hour|h|day|shift)\b",
    re.I,
)


def _price_read_as_window(text: str, every: Sequence[Check]) -> list[str]:
    if not _RATE_WORDS.search(text):
        return []
    m = _PRICE_PER.search(text)
    if not m:
        return []
    if any(isinstance(c, NumericLimit) and c.window for c in _all(every)):
        return [m.group("w")]
    return []


# -- a day or time-of-day window read as subject words --------------------------------------------
# 'Event lots: no rate overrides Fri 16:00 - Sun 23:59.' read as "Deny when `lots` is Stadium
# North or Stadium South (about: rate overrides fri sun)": the window was taken for words the
# rule is about, and an override on a Thursday was denied (or, with the list read as an
# allow-list, one on a Saturday approved). A rule that names a weekday or a clock time with no
# check of the day, the time or the date reads no window.
_DAY = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mondays|tuesdays|wednesdays|"
    r"thursdays|fridays|saturdays|sundays)\b",
    re.I,
)
_CLOCK = re.compile(r"\b(?:[01]?\d|2[0-3])[:h][0-5]\d\b|\b(?:1[0-2]|0?[1-9])\s*(?:am|pm)\b", re.I)


_HOLIDAY_BEFORE = re.compile(
    r"\b(?:black|good|cyber|easter|holy|ash|palm|bowl|boxing|giving|small\s+business)\s+$", re.I
)


def _day_window_unread(text: str, every: Sequence[Check]) -> list[str]:
    # a day that is part of a holiday's name ('until after Black Friday') is a date, not a weekday
    days = [
        m
        for m in (
            *_DAY.finditer(text),
            *re.finditer(r"\b(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\b", text),
        )
        if not _HOLIDAY_BEFORE.search(text[: m.start()])
    ]
    day = days[0] if days else None
    clock = _CLOCK.search(text)
    if not day and not clock:
        return []
    if any(isinstance(c, (Weekday, TimeOfDay, DateWindow)) for c in _all(every)):
        return []
    if not every:
        return []
    return [(day or clock).group(0)]  # type: ignore[union-attr]


# -- an approver read as a word the rule is about -------------------------------------------------
# 'Radioactive material orders: RSO approval # required.' read as "Send to review requests about
# radioactive material orders RSO": the approver became a subject word, so an order whose
# `rso_approval` was empty (no word 'RSO' in it) was not about the rule and was approved, while
# one carrying the approval number went to review. Who approves is never what a request is about.
_APPROVER = re.compile(
    r"\b(?P<who>[A-Za-z][\w-]*)\s+(?:approval|approvals|sign[- ]?off|signoff|authori[sz]ation|"
    r"consent|clearance|permission|ok)\b",
    re.I,
)
_NOT_APPROVERS = frozenset(
    stem(w) for w in "prior written explicit formal final an a the no any without with pre".split()
)


def _approver_read_as_subject(text: str, every: Sequence[Check]) -> list[str]:
    terms: set[str] = set()
    for c in _all(every):
        # 'BSL-3 work: IBC approval required.' read as "Send to review when an argument contains
        # BSL-3 (about: work IBC)": the same, on a list's subject words
        if isinstance(c, (ActionRule, ValueList)) and c.effect in ("deny", "review"):
            terms |= set(c.terms) | {stem(w.lower()) for w in getattr(c, "about_words", ()) or ()}
    if not terms:
        return []
    for m in _APPROVER.finditer(text):
        who = stem(m.group("who").lower())
        if who not in _NOT_APPROVERS and who in terms:
            return [m.group("who")]
    return []


# -- the answer 'NO' read as Norway --------------------------------------------------------------
# 'Sellers under 21: NO.', 'Purchases from sellers under 21 -> NO.' read as "When the amount is
# below 21: Deny when country or region is NO": the refusal written in capitals became a country
# code, and a buy from a 19-year-old seller in the US passed. 'NO' standing as the rule's answer
# (after a colon, an arrow, a dash or an equals sign, at the end of the rule) is no country.
_ANSWER_NO = re.compile(r"(?:[:=>\u2192\u2013\u2014?]|\s-)\s*NO\s*[.!]?\s*(?:$|[,;(])")


def _refusal_read_as_country(text: str, every: Sequence[Check]) -> list[str]:
    if not _ANSWER_NO.search(text):
        return []
    for c in _all(every):
        if isinstance(c, ValueList) and any(str(v).upper() == "NO" for v in c.values):
            return ["NO"]
    return []


# -- an argument's name in backticks read as a value -----------------------------------------------
# 'No exports of `fields` incl. address, phone, dob.', 'Exports: `fields` must not include
# address, phone, dob.' read as "Deny when an argument is fields (about: exports address phone
# dob)": the name the rule puts in backticks is the argument whose members it refuses, and the
# listed members were set aside as subject words, so an export of `fields: [name, phone]` passed.
# A name in backticks written as the value ('env is `prod`', 'never deploy to `prod`') is left
# alone.
_AS_VALUE_BEFORE = re.compile(
    r"(?:\bis|\bare|=|==|!=|\bequals?|\bto|\bin|\bbe|\bnot|\bfrom|\bon)\s*$", re.I
)


_CONSTRAINED_AFTER = re.compile(
    r"\s*(?:incl\b\.?|including\b|must\b|may\b|should\b|shall\b|cannot\b|can't\b|can\b|"
    r"contains?\b|containing\b|with\b|has\b|have\b|never\b|not\b)",
    re.I,
)


def _backticked_name_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    named = {}
    for m in re.finditer(r"`([^`]{1,60})`", text):
        # the argument the rule goes on to constrain ('`fields` incl. …', '`fields` must not
        # include …'); a name glossed in brackets ('closed periods (`period_status`)') or a
        # listed value ('must not include: `ssn_last4`, `home_address`') is not
        if _AS_VALUE_BEFORE.search(text[: m.start()]) or not _CONSTRAINED_AFTER.match(
            text[m.end() :]
        ):
            continue
        named[m.group(1).strip().lower()] = m.group(1).strip()
    if not named:
        return []
    for c in _all(every):
        if not isinstance(c, ValueList):
            continue
        for v in c.values:
            if str(v).strip().lower() in named:
                return [named[str(v).strip().lower()]]
    return []


# -- a kind of thing read as a window over requests ---------------------------------------------
# 'Monthly permits: max 3 vehicles per account.' read as "Deny when the number of requests per
# month is above 3": a monthly permit is a kind of permit, and the vehicles on one account are
# what the rule counts, not the requests of a month; a permit for 4 vehicles passed whenever the
# month's history held fewer than 3 requests. A window taken only from the adjective of the rule's
# heading noun, with another thing counted after the number, is no window.
_HEAD_ADJ = re.compile(
    r"^\W*(?P<adj>daily|weekly|monthly|annual|yearly|quarterly)\s+(?P<noun>[a-z]+)", re.I
)
_WINDOW_SAID = re.compile(
    r"\b(?:per|a|an|each|every|in\s+(?:a|any|one))\s+(?:rolling\s+|calendar\s+)?"
    r"(?:hour|day|week|month|quarter|year|24\s*h)\b|/\s*(?:hr|hour|day|wk|week|mo|month|yr|year)\b",
    re.I,
)


def _heading_adjective_read_as_window(text: str, every: Sequence[Check]) -> list[str]:
    m = _HEAD_ADJ.match(text)
    if not m or _WINDOW_SAID.search(text):
        return []
    if not any(isinstance(c, NumericLimit) and c.counts_calls and c.window for c in _all(every)):
        return []
    counted = re.search(r"\d[\d,]*\s+(?P<what>[a-z]{3,})", text[m.end() :], re.I)
    if counted and stem(counted.group("what").lower()) != stem(m.group("noun").lower()):
        return [m.group("adj")]
    return []


GUARDS: tuple[Callable[[str, Sequence[Check]], list[str]], ...] = (
    _heading_adjective_read_as_window,
    _refusal_read_as_country,
    _backticked_name_read_as_value,
    _approver_read_as_subject,
    _floor_read_as_cap,
    _number_read_as_value,
    _price_read_as_window,
    _day_window_unread,
)


# -- the right reading of a floor and its refusal --------------------------------------------------
# 'Pay rate floor $16.50 - never place below.', 'Deposit floor 500 USD - never accept less.',
# 'Layaway deposit minimum 30% - never less.': restated as the floor it is ('Pay rate must be at
# least $16.50.'), which the bound readers read right; the compiler takes the restatement only
# when the rule so read is understood, so a unit it cannot read ('$16.50/hr') stays unread.
_FLOOR_THEN_REFUSAL = re.compile(
    r"^\s*(?P<subj>[A-Za-z][A-Za-z'\- ]{0,40}?)\s+(?:floor|minimum|min\.?)\s*(?:is|of|:|=)?\s*"
    r"(?P<num>[$\u20ac\u00a3]?\s*\d[\d,]*(?:\.\d+)?"
    r"(?:\s*(?:%|(?:[A-Z]{3}|units?|items?|pcs|hours?|hrs?|days?|kg|g|lbs?)\b))?)\s*"
    r"(?:[:;,\u2013\u2014]|-+>?|\u2192)\s*"
    r"(?:never|do\s+not|don't|not|no)\s+(?:[a-z]+\s+){0,3}?"
    r"(?:below|less|under|lower|fewer|smaller|shorter|younger)"
    r"(?:\s+than)?(?:\s+(?:that|this|it|the\s+floor|the\s+minimum))?\s*[.!]?\s*$",
    re.I,
)


def floor_restated(text: str) -> str | None:
    """'<measure> floor <N> - never <act> below.' restated as '<measure> must be at least <N>.',
    or None when `text` is not of that shape."""
    m = _FLOOR_THEN_REFUSAL.match(re.sub(r"\s+", " ", text))
    if not m:
        return None
    subj = m.group("subj").strip()
    return f"{subj[0].upper()}{subj[1:]} must be at least {m.group('num').strip()}."
