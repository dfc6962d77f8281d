"""Readings found wrong by the lead's probes in the fifteenth session, each left partly understood.

Every reader here answers one question: did a check compare the wrong thing? When it did, the
words it misread stay unaccounted for (misreadings.GUARDS), so the rule never decides on its own
and a human reads it. Each was found by a probe that approved what its rule forbids, or denied
what it allows, beside a decoy argument:

- a credit rating compared on its ladder ('Rating below BBB- -> deny'): no check reads the ladder,
  and the rating had been taken for a word the request is about (an investment-grade BBB denied);
- a list's own member read as the argument of the rest ('Only UPS or FedEx for hazmat.');
- a bracket glossing a number read as the value refused ('`dest_risk_level` 4 (Do Not Travel)');
- one argument among another argument's values ('`aircraft_type` must be in `tech_type_auths`');
- a tier that passes on its own read as a cap ('<= 5,000 auto; 5,000.01-25,000 -> director');
- a value refused while the rule writes 'not' right before it ('`region` not EU -> deny');
- an argument's name in backticks read as the one value refused ('no consent = no procedure
  (`consent_signed`)');
- an argument the rule requires by name that no check holds ('must include reason_code, max 500').
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import fields

from webapp.judge.checks import Check, NumericLimit, ValueList
from webapp.judge.pairs import PAIR_KINDS
from webapp.judge.text import stem

# S&P / Fitch letters with their modifiers, and Moody's; written in capitals ('BBB-', 'Baa2')
_RATING = (
    r"(?:AAA|AA[+-]?|A[+-]|BBB[+-]?|BB[+-]?|B[+-]|CCC[+-]?|Aaa|Aa[1-3]|A[1-3]|Baa[1-3]|Ba[1-3]|"
    r"B[1-3]|Caa[1-3])"
)
_END = r"(?![\w+-])"
_RATING_BOUND = re.compile(
    r"\b(?i:below|above|under|over|at\s+least|at\s+most|better\s+than|worse\s+than|lower\s+than|"
    r"higher\s+than|min(?:imum)?|max(?:imum)?|floor)\s+(?:(?i:rating|rated|of)\s+)?"
    + _RATING
    + _END
    + r"|(?:<=?|>=?|\u2264|\u2265)\s*"
    + _RATING
    + _END
    + r"|\b"
    + _RATING
    + r"\s+(?i:or\s+(?:better|higher|above|worse|lower|below)|and\s+(?:above|below|up|down))\b"
)


def _rating_compared(text: str, every: Sequence[Check]) -> list[str]:
    m = _RATING_BOUND.search(text)
    return [m.group(0)] if m else []


# 'Only UPS or FedEx for hazmat.' read as "Deny unless `UPS` is FedEx": the first member of the
# list was taken for the argument the rest is compared on, so a hazmat shipment by UPS was denied
# (and one carrying a `ups` field could pass). A list's own member never names its argument.
def _member_read_as_argument(text: str, every: Sequence[Check]) -> list[str]:
    out: list[str] = []
    for c in every:
        if not isinstance(c, ValueList) or not c.values:
            continue
        for word in re.findall(r"[A-Za-z][\w-]*", text):
            if stem(word.lower()) not in c.kind_words:
                continue
            sibling = r"|".join(re.escape(v) for v in c.values)
            joined = rf"\b{re.escape(word)}\s*(?:,|/|\bor\b|\band\b|&)\s*(?:{sibling})\b"
            if re.search(joined, text, re.I):
                out.append(word)
    return out


# '1) `dest_risk_level` 4 (Do Not Travel) -> no booking.' read as "Deny when an argument is Do Not
# Travel": the bracket glosses the value before it (level 4), and the gloss was taken for the value
# refused, so a booking at level 4 was approved (unsafe; the fifteenth session's label reading had
# made the rule understood). A value compared only where it glosses a number or a code is no value.
def _gloss_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    out: list[str] = []
    for c in every:
        values = [v for v in getattr(c, "values", ()) or () if isinstance(v, str) and v.strip()]
        own = {v.lower() for v in values}
        for v in values:
            glossed = re.search(
                r"(?P<before>(?<![\w-])\d[\d,.]*)\s*\(\s*" + re.escape(v) + r"\s*\)", text
            )
            if (
                glossed
                and glossed.group("before").lower() not in own
                and not re.search(r"(?<!\()\b" + re.escape(v) + r"\b(?!\s*\))", text, re.I)
            ):
                out.append(v)
    return out


# '`aircraft_type` must be in `tech_type_auths`', 'aircraft_type must be one of tech_type_auths':
# one argument's value must be among another argument's values. Read as "`aircraft_type` is
# required" (a B737 with A320 authorisations was approved: unsafe) or as the literal value
# 'tech_type_auths'; no check compares the two, so the rule is partly understood.
_IN_ANOTHER_ARGUMENT = re.compile(
    r"\b(?:must|should|shall|has\s+to|needs?\s+to)\s+be\s+"
    r"(?:in|one\s+of|among|listed\s+in|included\s+in|contained\s+in|part\s+of)\s+"
    r"(?:the\s+)?(?:`(?P<ticked>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)`|"
    # unticked, a plural or a list's name ('tech_type_auths', 'allowed_regions', 'site_list'),
    # never the first of a list of values ('one of service_outage, delivery_delay')
    r"(?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:[a-z0-9]*s|list|set)))"
    r"(?!\w|\s*(?:,|/|\bor\b|\band\b))",
)


def _argument_in_argument(text: str, every: Sequence[Check]) -> list[str]:
    m = _IN_ANOTHER_ARGUMENT.search(text)
    if m is None or any(c.kind in PAIR_KINDS for c in every):
        return []
    return [m.group("ticked") or m.group("name")]


# '`est_total_usd`: <= 5,000 auto; 5,000.01-25,000 -> director approval; > 25,000 -> … (deny)':
# the first tier is what passes on its own, and says nothing against what lies above it (the
# next tier does). Read as a cap ("Deny when the amount is above 5,000"), 5,001 was denied where
# the rule sends it to a director (the label reading of the fifteenth session made it understood).
_PERMITTED_TIER = re.compile(
    r"(?:<=?|\u2264|\bup\s+to|\bat\s+most|\bmax|\bunder|\bbelow)\s*[$\u20ac\u00a3]?\s*"
    r"(?P<n>\d[\d,]*(?:\.\d+)?)\s*(?:[A-Za-z]{1,3}\s+)?(?:->|=>|\u2192|:|=|-)?\s*"
    r"(?P<ok>auto(?:[- ]?approv\w*)?|ok|okay|fine|allowed|permitted|approved)\b",
    re.I,
)


def _permitted_tier_read_as_cap(text: str, every: Sequence[Check]) -> list[str]:
    for m in _PERMITTED_TIER.finditer(text):
        n = float(m.group("n").replace(",", ""))
        for c in every:
            if (
                isinstance(c, NumericLimit)
                and c.effect == "deny"
                and c.op == "gt"
                and abs(c.threshold - n) < 1e-9
            ):
                return [m.group("ok")]
    return []


# 'no consent = no procedure (`consent_signed`)' read as "Deny when an argument is
# consent_signed": the backticked name says which argument holds the consent, and read as a value
# any argument must not hold, `consent_signed: false` was approved (the start engine's too). A
# value that is an argument's name in backticks, compared on no argument of its own, is no value.
_IDENTIFIER = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")


def _name_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    # a list of several names ('must not include: `ssn_last4`, `home_address`') is fields listed,
    # and a name under a state ('closed periods (`period_status`)') is read with that state
    wrapped = {id(getattr(x, "base", None)) for x in every}
    for c in every:
        if not isinstance(c, ValueList) or c.kind_words or len(c.values) != 1 or id(c) in wrapped:
            continue
        for v in c.values:
            if isinstance(v, str) and _IDENTIFIER.fullmatch(v) and f"`{v}`" in text:
                return [v]
    return []


# '`region` not EU -> deny.' read as "Deny when country or region is EU": the 'not' right before
# the value turns the list around, and a us-east-1 deployment was approved (the start engine's
# too). A value refused by a check while the rule writes 'not' or '!=' right before it is misread.
def _negated_value_refused(text: str, every: Sequence[Check]) -> list[str]:
    for c in every:
        if not isinstance(c, ValueList) or c.mode != "deny":
            continue
        for v in c.values:
            if not isinstance(v, str) or not v.strip():
                continue
            m = re.search(
                r"(?:\bnot|!=|\u2260|<>|\bnon-?)\s*(?:in\s+|an?\s+|the\s+)?" + re.escape(v) + r"\b",
                text,
                re.I,
            )
            if m:
                return [m.group(0)]
    return []


# 'Refunds must include reason_code, max 500 USD.' read as the cap alone (found by jred31): the
# argument the rule requires by name was read by no check, and a refund without `reason_code`
# was approved. An argument the rule requires by name ('include reason_code') that no check holds
# in any of its fields is a word no check accounts for.
def _fields_text(c: Check) -> str:
    parts = []
    for f in fields(c):
        if f.name in ("source", "terms", "alternatives", "measure", "about_words"):
            # the rule's own text and the words of its subject ('about: refunds include
            # reason code') are no argument a check reads
            continue
        v = getattr(c, f.name, None)
        if isinstance(v, Check):
            parts.append(_fields_text(v))
        elif isinstance(v, (tuple, list)):
            parts.extend(_fields_text(x) if isinstance(x, Check) else str(x) for x in v)
        else:
            parts.append(str(v))
    return " ".join(parts).lower()


_REQUIRED_BY_NAME = re.compile(
    r"\b(?:include|includes|cite|cites|reference|references|specify|specifies|provide|provides|"
    r"attach|attaches|require|requires|needs?|carry|carries)\s+(?:a\s+|an\s+|the\s+|valid\s+)?"
    r"`?(?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)`?",
    re.I,
)


def _named_argument_unread(text: str, every: Sequence[Check]) -> list[str]:
    names = {m.group("name") for m in _REQUIRED_BY_NAME.finditer(text)}
    if not names or not every:
        return []
    held = " ".join(_fields_text(c) for c in every)
    # a list read on the argument by its words ('reason_code: A / B only', kind words 'reason',
    # 'code') holds the name too
    tokens = set(re.findall(r"[a-z0-9]+", held))
    return sorted(
        n
        for n in names
        if n not in held and not all(stem(w) in tokens or w in tokens for w in n.split("_"))
    )


GUARDS: tuple[Callable[[str, Sequence[Check]], list[str]], ...] = (
    _permitted_tier_read_as_cap,
    _named_argument_unread,
    _negated_value_refused,
    _name_read_as_value,
    _rating_compared,
    _member_read_as_argument,
    _gloss_read_as_value,
    _argument_in_argument,
)
