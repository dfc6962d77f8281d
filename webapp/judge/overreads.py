"""Readings by this session's new readers that are wrong as a whole (red team jred13).

Each guard looks at a rule as written and every check compiled from it, and names the words of
a phrasing the checks read wrongly; those words stay unaccounted for, so the rule is partly
understood and never decides on its own (misreadings.py runs them beside its own guards). A
guard looks at what the checks read, not at the words alone: a reader that reads the phrasing
right makes it find nothing.

Each was found as an unsafe approval beside satisfied rules (bench/judge_cases/dev_jred13.json).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from webapp.judge.checks import ArgumentComparison, Check, NumericLimit, ValueList
from webapp.judge.text import stem

# -- a total across requests read as a bound on this one ------------------------------------------
# 'Refunds over 500 USD are blocked (in total)', '(cumulative)', '(lifetime)', 'Refunds over 500
# USD this quarter are blocked': the parenthetical was set aside as a remark, or read as a flag
# ("an argument is cumulative"), and a 100 USD refund passed although the earlier ones are unknown.
# A limit read with its window ('per month': the month's total) is read right and left alone.
_TOTAL = re.compile(
    r"\b(?:in\s+total|in\s+aggregate|running\s+total|total\s+exposure|year[- ]to[- ]date|ytd|"
    r"to\s+date|so\s+far|(?:this|the\s+current|for\s+the|over\s+the|within\s+the)\s+"
    r"(?:calendar\s+|fiscal\s+)?(?:quarter|year|month|week)|add(?:s|ed)?\s+up\s+to\s+(?:more\s+than|over|above)|"
    r"all[- ]time|in\s+(?:a|any|one|a\s+single)\s+(?:calendar\s+)?(?:day|week|month|quarter|year)|"
    r"\d[\d,.]*\s*(?:[A-Z]{3}\s+)?total)\b|\((?:total|in\s+total)\)",
    re.I,
)
# a word for a period or a sum, standing alone in brackets ('(daily)') or before the noun a sum
# of money is compared for ('Cumulative refunds over 500 USD'); 'daily transfer limit',
# 'monthly plans' and 'max lifetime 90 days' name a setting, a plan or a duration
_SUM_WORD = (
    r"(?:cumulative|aggregated?|lifetime|overall|total|daily|weekly|monthly|quarterly|"
    r"annual|yearly)"
)
_SUM_ALONE = re.compile(rf"\(\s*{_SUM_WORD}\s*\)|,\s*{_SUM_WORD}\s*\.?\s*$", re.I)
_SUM_BEFORE = re.compile(
    rf"^\s*{_SUM_WORD}\s+[a-z]+s\s+(?:over|above|exceeding|(?:of\s+)?more\s+than|>)", re.I
)


# words around the one that says 'a total' ('in total', 'for the year', 'in a single week')
_FRAME = frozenset(
    "in this the for over within a an any one single current calendar fiscal up to more than "
    "above usd eur gbp".split()
)


def _limits(every: Sequence[Check]) -> list[NumericLimit]:
    return [c for c in every if isinstance(c, NumericLimit)]


def _total_read_per_request(text: str, every: Sequence[Check]) -> list[str]:
    limits = _limits(every)
    if not limits or any(c.window or c.counts_calls or c.per for c in limits):
        return []
    m = _TOTAL.search(text)
    if m is None and any(c.currency for c in limits):
        m = _SUM_ALONE.search(text) or _SUM_BEFORE.search(text)
    if m is None:
        return []
    said = [w for w in re.findall(r"[A-Za-z][\w\-]*", m.group(0)) if w.lower() not in _FRAME]
    return said[:1] or [m.group(0).strip("() ")]


# -- '(X only)' that scopes a prohibition read as an allow-list -----------------------------------
# 'Refunds over 500 USD are blocked (EU only)' read as "Deny unless country or region is EU":
# the block is for EU refunds, yet an EU refund over 500 passed and a US one was denied.
_BAN = (
    r"(?:blocked|prohibited|forbidden|banned|barred|not\s+(?:allowed|permitted)|disallowed|never|"
    r"must\s+not|may\s+not|can(?:no|')t)"
)
# 'no' as a word of its own, never the country code NO ('EU member states, UK, NO, CH only')
_BAN_WORD = re.compile(rf"(?i:{_BAN})|\b[Nn]o\s+(?=[a-z])")
# '(EU only)', '- EU only', ', EU only', 'EU only:' — the values an 'only' follows
_X_ONLY = re.compile(r"(?P<inside>[\w\-]+(?:\s+[\w\-]+){0,2})\s+only\b", re.I)
_ELSE_BEFORE = re.compile(r"\b(?:else|other|otherwise|others)\W+(?:\w+\W+){0,2}$", re.I)


def _only_scope_read_as_allow(text: str, every: Sequence[Check]) -> list[str]:
    bans = [b for b in _BAN_WORD.finditer(text) if not _ELSE_BEFORE.search(text[: b.start()])]
    if not bans:
        return []
    allowed = [c for c in every if isinstance(c, ValueList) and c.mode == "allow"]
    for m in _X_ONLY.finditer(text):
        inside = {w.lower() for w in re.findall(r"[\w\-]+", m.group("inside"))}
        for c in allowed:
            vals = {str(v).lower() for v in c.values}
            if vals & inside or {stem(v) for v in vals} & {stem(w) for w in inside}:
                return ["only"]
    return []


# -- a heading that names whom the rule is for read as an argument -------------------------------
# 'EU: Refunds over 500 USD are blocked' read as "Deny when `EU` is Refunds", 'Gold tier: …' as
# "Deny when gold tier is Refunds": no argument holds 'Refunds', the deny-list never matched and
# an EU (a gold-tier) refund over 500 passed.
_HEADING = re.compile(
    r"^\s*(?P<h>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,2})\s*:\s*(?P<first>[A-Za-z][\w\-]*)\b"
)


def _heading_read_as_argument(text: str, every: Sequence[Check]) -> list[str]:
    m = _HEADING.match(text)
    if m is None or len(every) < 2:
        return []
    head, first = m.group("h"), m.group("first").lower()
    for c in every:
        if (
            isinstance(c, ValueList)
            and [str(v).lower() for v in c.values] == [first]
            and {stem(w.lower()) for w in head.split()} & set(c.kind_words)
        ):
            return [head.split()[0]]
    return []


# -- an argument's gloss read as a value --------------------------------------------------------
# 'No refunds to customers in sanctioned countries (country)' read as "Deny when `customers` is
# country": the gloss names the argument the category is checked on, not a value; a refund to IR
# passed. So is a word in brackets beside a limit read as a value any argument may hold ('Refunds
# over 500 USD are blocked (temporarily)': "an argument is temporarily", which none was).
_BARE_GLOSS = re.compile(r"\(\s*(?P<g>[a-z][a-z0-9_]*)\s*\)")


def _gloss_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    glosses = {m.group("g") for m in _BARE_GLOSS.finditer(text)}
    if not glosses:
        return []
    beside_limit = any(isinstance(c, NumericLimit) for c in every)
    for c in every:
        if isinstance(c, ValueList) and (c.kind_words or (beside_limit and len(c.values) == 1)):
            for v in c.values:
                if str(v).lower() in glosses:
                    return [str(v)]
    return []


# -- a gloss naming an argument of another relation than the prose --------------------------------
# 'credit checks prohibited for candidates living in CA, NY, IL (work_state)': the prose is where
# the candidate lives, the gloss the state they work in; a candidate living in CA and working in
# TX passed. A word of one relation in the prose and a name of another in the gloss: a human says.
_RELATIONS = (
    frozenset(
        "living lives live reside resides residing resident residents residence domiciled "
        "domicile home".split()
    ),
    frozenset("working works work employed employment job office workplace".split()),
    frozenset("born birth nationality citizen citizens citizenship national nationals".split()),
    frozenset("registered incorporated registration incorporation headquartered hq".split()),
    frozenset("billing billed bill".split()),
    frozenset("shipping shipped ship delivery delivered deliver".split()),
)


def _relation(words: set[str]) -> set[int]:
    return {i for i, group in enumerate(_RELATIONS) if words & group}


def _gloss_of_other_relation(text: str, every: Sequence[Check]) -> list[str]:
    prose = re.sub(r"\([^()]*\)", " ", text)
    prose_words = {w.lower() for w in re.findall(r"[A-Za-z]+", prose)}
    for c in every:
        path = getattr(c, "path", None)
        if not isinstance(path, str) or not path:
            continue
        name = set(re.split(r"[_.\-]", path.lower()))
        said, named = _relation(prose_words), _relation(name)
        if said and named and not said & named:
            group = _RELATIONS[min(said)]
            return sorted(prose_words & group)[:1]
    return []


# -- a bound given by another argument, with something taken off or added ------------------------
# 'Refund must not exceed the order total less any prior refunds' read as "Deny when refund is
# above refund order total prior": the prior refunds were dropped from the bound and a refund of
# 90 against an order of 100 passed, whatever had been refunded before.
_ARITHMETIC = re.compile(
    r"\b(?:less(?!\s+(?:than|or\s+equal))|minus|plus|net\s+of|after\s+deducting|deducting|"
    r"excluding|excl|whichever\s+is\s+(?:lower|higher|less|greater|smaller|larger))\b",
    re.I,
)


def _bound_with_arithmetic(text: str, every: Sequence[Check]) -> list[str]:
    if not any(isinstance(c, ArgumentComparison) for c in every):
        return []
    m = _ARITHMETIC.search(text)
    if m is None:
        return []
    return [m.group(0).split()[0]]


GUARDS: tuple[Callable[[str, Sequence[Check]], list[str]], ...] = (
    _total_read_per_request,
    _only_scope_read_as_allow,
    _heading_read_as_argument,
    _gloss_read_as_value,
    _gloss_of_other_relation,
    _bound_with_arithmetic,
)
