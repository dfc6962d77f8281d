"""An argument named beside a list, a place or a quantity (helper jparenarg).

Staff write the argument a rule binds beside what it binds, bare, in brackets or with a colon:

- "Escrow pays only: property taxes, hazard insurance, flood insurance, HOA dues
  (disbursement_type)." — an allow-list on `disbursement_type`;
- "Domestic only - beneficiary bank must be in the US (beneficiary_country)." — a place;
- "validity_months: 12 max", "Vendor codes: duration_hours <= 72." — a bound on the named
  argument, never on the request's amount (compiler._named_measures, NumericLimit.named).

This module holds the fail-safe that keeps the argument's name from being read as a value: read
so, "Escrow pays only: … (disbursement_type)" became "Deny unless an argument is
disbursement_type", which denied every listed disbursement and allowed a request whose value
was the name itself; "No block billing (block_billed_entries must be 0)" allowed two
block-billed entries. No request carries an argument's name as a value: a check comparing with
it is wrong, and the name is left unaccounted, so the rule never decides on its own.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from webapp.judge.text import stem, words

# a bracket whose body opens with a lower-case name: '(disbursement_type)', '(rail)',
# '(block_billed_entries must be 0)', '(waivers_last_12m: 0)'
# (the name alone, or what it must be: a list of values in brackets, '(gmail.com, yahoo.com)',
# is no argument's name)
_NAMED_BRACKET = re.compile(
    r"\(\s*(?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)*)\s*"
    r"(?P<rest>(?:(?:must|should|shall|is|are|=|==|!=|:|<|>|<=|>=)[^(),]*)?)\)"
)
_ARGUMENT_SHAPED = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
# jred31: a bracket pointing at the argument ('Orders above 50 (by qty_units) are denied',
# '(field: qty_units)', '[qty_units]'): read as a value, 'qty_units' became "`orders` contains
# qty_units" under the bound, which then read the request's amount (qty_units 80 passed)
_POINTED_BRACKET = re.compile(
    r"(?:\(\s*(?:by|in|per|via|using|from|see|measured\s+by|counted\s+(?:by|in)|"
    r"field|arg(?:ument)?|param(?:eter)?|key)\s*:?\s+|\[\s*)"
    r"`?(?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)`?\s*[)\]]"
)


def names_read_as_values(text: str, every: list[Any]) -> list[str]:
    """The argument names written in brackets that a check compares with as values.

    A name counts when it has an argument's shape (an underscore or a dot), or when it restates
    a word the rule says outside the bracket ('Only approved payment rails (rail)'): a plain word
    in brackets that the rule does not otherwise say may be a value ('the test environment
    (staging)') and is left to the checks."""
    out: list[str] = []
    outside = {stem(w.lower()) for w in words(_NAMED_BRACKET.sub(" ", text))}
    found = [m.group("name") for m in _NAMED_BRACKET.finditer(text)]
    found += [m.group("name") for m in _POINTED_BRACKET.finditer(text)]
    for name in found:
        if not (_ARGUMENT_SHAPED.fullmatch(name) or stem(name) in outside):
            continue
        for c in every:
            values = getattr(c, "values", None) or ()
            if any(isinstance(v, str) and v.strip().lower() == name for v in values):
                if name not in out:
                    out.append(name)
                break
    return out


# -- the rule read whole: a list, a place or a bound beside the argument it binds -------------
#
# 'Escrow pays only: property taxes, hazard insurance, HOA dues (disbursement_type).'
# 'Shipping carriers: UPS, FedEx or DHL only (carrier).'
# 'Pay by bank_transfer only (method).'
# 'Domestic only - beneficiary bank must be in the US (beneficiary_country).'
# 'New or renewed lease terms: 6 to 24 months inclusive (term_months).'
# 'Group size 10-60 pax (pax_count).'   'Holds: 7 days max (hold_days).'
# 'Min rest before the new duty: 10h (rest_hours_before).'
#
# A rule is read here whole or not at all. Its subject (the words before the list or the bound)
# is plain words only: no condition ('without deposit', 'unless …', 'for new customers'), no
# open category ('approved carriers'), no number, no negation; the bracket names the argument
# the subject phrase is about, which is the stated reason the subject words are read by the
# argument. Anything else is left to the other readings.

_NAME = r"[a-z][a-z0-9]*(?:[_.][a-z0-9]+)*"
_SUBJECT = r"[A-Za-z][A-Za-z\-' ]{0,60}?"
_LIST_ONLY_COLON = re.compile(
    rf"^(?P<subj>{_SUBJECT})\s+only\s*:\s*(?P<list>[^():;]+?)\s*\((?P<arg>{_NAME})\)\s*\.?\s*$"
)
_LIST_COLON_ONLY = re.compile(
    rf"^(?P<subj>{_SUBJECT})\s*:\s*(?P<list>[^():;]+?)\s+only\s*\((?P<arg>{_NAME})\)\s*\.?\s*$"
)
_LIST_BY_ONLY = re.compile(
    rf"^(?P<subj>{_SUBJECT})\s+(?P<prep>by|via|through|with|in|to)\s+(?P<list>[^():;]+?)\s+only\s*"
    rf"\((?P<arg>{_NAME})\)\s*\.?\s*$"
)
_PLACE_MUST = re.compile(
    rf"^(?:(?P<dom>domestic)\s+only\s*[-\u2013\u2014:]\s*)?(?P<subj>{_SUBJECT})\s+must\s+be\s+"
    rf"(?:in|located\s+in|based\s+in|from)\s+(?:the\s+)?(?P<list>[^():;]+?)\s*\((?P<arg>{_NAME})\)"
    r"\s*\.?\s*$",
    re.I,
)
_UNIT = (
    r"h|hrs?|hours?|d|days?|nights?|weeks?|wks?|months?|mos?|years?|yrs?|mins?|minutes?|pax|"
    r"people|persons?|guests?|seats?|%|percent|pct"
)
_NUM = r"\d+(?:\.\d+)?"
_BOUND_COLON = re.compile(
    rf"^(?P<subj>{_SUBJECT})\s*:\s*(?P<bound>[^():;]+?)\s*\((?P<arg>{_NAME})\)\s*\.?\s*$"
)
_BOUND_BARE = re.compile(
    rf"^(?P<subj>{_SUBJECT})\s+(?P<bound>{_NUM}\s*(?:-|\u2013|to)\s*{_NUM}\s*(?:{_UNIT})?"
    rf"(?:\s+inclusive)?)\s*\((?P<arg>{_NAME})\)\s*\.?\s*$",
    re.I,
)
# 'Flat override rate must be within 0-45 (%) (`override_rate_pct`)': a closed range the value must
# lie in, both ends allowed, the unit alone in brackets and the name in backticks (helper jrange)
_BOUND_WITHIN = re.compile(
    rf"^(?P<subj>{_SUBJECT})\s+(?:must|should|shall)\s+(?:be|stay|remain|lie)\s+within\s+"
    rf"(?P<bound>{_NUM}\s*(?:-|\u2013|to)\s*{_NUM}\s*(?:{_UNIT}|\(\s*(?:%|percent|pct)\s*\))?)"
    rf"\s*\(\s*`?(?P<arg>{_NAME})`?\s*\)\s*\.?\s*$",
    re.I,
)
_RANGE = re.compile(
    rf"^(?P<lo>{_NUM})\s*(?P<lounit>{_UNIT})?\s*(?:-|\u2013|to)\s*(?P<hi>{_NUM})\s*(?P<unit>{_UNIT})?"
    r"(?:\s+inclusive)?$",
    re.I,
)
_MAX_WORDS = r"max|maximum|at\s+most|up\s+to|no\s+more\s+than|not\s+more\s+than"
_MIN_WORDS = r"min|minimum|at\s+least|no\s+less\s+than|not\s+less\s+than"
_ONE_BOUND = re.compile(
    rf"^(?:(?P<pre>{_MAX_WORDS}|{_MIN_WORDS})\s+)?(?P<n>{_NUM})\s*(?P<unit>{_UNIT})?"
    rf"(?:\s+(?P<post>max|maximum|min|minimum|or\s+less|or\s+fewer|or\s+more|at\s+most|"
    r"at\s+least))?$",
    re.I,
)
# a total over time or over several things ('Cumulative refunds: 500 max', 'Annual leave: 25
# days max', 'Refunds a day: 3 max'): the bound is not on one request's argument
_AGGREGATE = (
    r"cumulative|aggregated?|aggregates|combined|stacked|lifetime|overall|annual|annually|"
    r"yearly|quarterly|hourly|rolling|running|ytd|mtd|sum|outstanding|concurrent|open"
)


def aggregate_qualifier(clause: str, name: str) -> bool:
    """The clause qualifies its measure as a total ('Annual leave: 25 days max (leave_days)')
    with a word the argument's name does not hold: the argument is one request's share, and
    the bound is not read as on it (compiler._named_measures)."""
    own = set(re.split(r"[_.]", name.lower()))
    outside = re.sub(r"\([^()]*\)", " ", clause)
    return any(
        m.group(0).lower() not in own for m in re.finditer(rf"\b(?:{_AGGREGATE})\b", outside, re.I)
    )


def names_under_a_total(text: str, every: list[Any]) -> list[str]:
    """The argument names in brackets of a rule that bounds a total ('Annual leave: 25 days max
    (leave_days)', 'Cumulative refunds (refund_amount) at most 500') when no check reads the
    total (a bound without a window of time): one request's argument is only its share, so
    the name is left unaccounted and the rule never decides on its own."""
    from webapp.judge.checks import NumericLimit
    from webapp.judge.namedchecks import NamedBound

    bounds = [
        c
        for c in every
        if isinstance(c, NamedBound)
        or (isinstance(c, NumericLimit) and not c.window and not c.counts_calls)
    ]
    if not bounds or any(isinstance(c, NumericLimit) and c.window for c in every):
        return []
    out: list[str] = []
    for m in re.finditer(r"\((?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\)", text):
        if aggregate_qualifier(text, m.group("name")) and m.group("name") not in out:
            out.append(m.group("name"))
    return out


def names_off_scale(every: list[Any]) -> list[str]:
    """The argument a bare-number limit names when the number may be on another scale than the
    argument ('LTV (ltv_ratio) at most 80', 'discount_pct: 0.2 max'): left unaccounted."""
    from webapp.judge.checks import NumericLimit

    return [
        c.named
        for c in every
        if isinstance(c, NumericLimit)
        and c.named
        and not c.currency
        and not c.unit_family
        and not _scale_agrees("", c.named, c.threshold)
    ]


# words a subject may not hold: a condition, a negation, a quantity of its own, a second rule
_SUBJECT_REFUSED = re.compile(
    r"\b(?:no|not|never|unless|except|if|when|while|where|without|with|only|per|each|every|"
    # a phrase after a preposition may narrow the subject ('for new customers'): not read here
    r"for|to|of|in|on|at|by|from|via|during|"
    r"daily|weekly|monthly|total|all|any|other|and\s+not|but|or\s+more|than|after|before|"
    r"within|outside|over|under|above|below|who|which|that|whose|"
    rf"{_AGGREGATE}|days?|weeks?|months?|years?|quarters?|hours?|"
    # a direction said inside the subject ('Hold minimum: 7 days max'): only a leading one is
    # read, as the bound's own
    r"min|minimum|max|maximum|floor|ceiling)\b|\d|[$\u20ac\u00a3]",
    re.I,
)
# words an item of a closed list may not hold: an open class or an example
_ITEM_REFUSED = re.compile(
    r"\b(?:etc|other|others|any|all|such|e\.?g|including|similar|like|approved|allowed|"
    r"permitted|authori[sz]ed|listed|sanctioned|restricted|high-risk|high\s+risk|risky|"
    r"embargoed|certain|some|not|no|"
    # a condition or a place after the list is no item ('RU, except on weekends')
    r"except|unless|if|when|while|where|without|with|for|on|at|in|by|during|after|before|"
    r"outside|inside|over|under|above|below|than|per|each|only)\b",
    re.I,
)
_TIME_UNITS = {
    "h": "hour", "hr": "hour", "hrs": "hour", "hour": "hour", "hours": "hour",
    "d": "day", "day": "day", "days": "day", "night": "night", "nights": "night",
    "week": "week", "weeks": "week", "wk": "week", "wks": "week",
    "month": "month", "months": "month", "mo": "month", "mos": "month",
    "year": "year", "years": "year", "yr": "year", "yrs": "year",
    "min": "minute", "mins": "minute", "minute": "minute", "minutes": "minute",
}  # fmt: skip
_NAME_UNITS = {
    "hours": "hour", "hour": "hour", "hrs": "hour", "h": "hour", "days": "day", "day": "day",
    "nights": "night", "weeks": "week", "months": "month", "mos": "month", "years": "year",
    "yrs": "year", "minutes": "minute", "mins": "minute", "min": "minute", "12m": "",
}  # fmt: skip


# -- the argument named first, then the closed list it must be one of --------------------------
#
# 'permissible_purpose - one of: credit_application, account_review, collection.'
# 'comp_category: F&B / spa / parking / room_night only'
# '`channel` in (web, app, kiosk)'     'ship_method not in {freight, pallet}'
# 'Allowed `commodity`: power, natural_gas, crude_oil. Anything else is prohibited.'
#
# The fourteenth session's first runs (holdout_52, holdout_53): read as prose, the name became the
# one listed value ("Deny unless an argument is permissible_purpose") or the list was read on any
# argument, so `comp_category: "minibar"` passed because `outlet` held "spa". The name is written
# as an argument (an underscore or a dot, or in backticks), or is one plain word before an explicit
# closed list ('channel: sms | email. Nothing else.', 'Format: csv or parquet only'), and the rule
# says nothing else, but for a tail on what happens to anything else: a refusal (deny) or
# someone's approval (review). A plain word no argument of the request is named exactly goes to a
# human (NamedList): it never binds another argument.
_LEAD_NAME = (
    r"(?:[-*\u2022]\s*)?(?:allowed\s+|permitted\s+|valid\s+)?(?P<tick>`?)(?P<arg>"
    + _NAME
    + r")(?P=tick)"
)
_LIST_BODY = r"(?P<list>[^():;{}\[\]]+?)"
_ARG_ONE_OF = re.compile(
    rf"^{_LEAD_NAME}\s*(?:\s[-\u2013\u2014]|:|\s+(?:must|should|shall)\s+be|\s+is)\s*"
    rf"(?:(?:one|any)\s+of|limited\s+to|restricted\s+to)\s*:?\s*{_LIST_BODY}\s*\.?\s*$",
    re.I,
)
_ARG_ONLY = re.compile(
    rf"^{_LEAD_NAME}\s*(?:\s[-\u2013\u2014]|:)\s*{_LIST_BODY}\s+only\s*\.?\s*$", re.I
)
_ARG_COLON = re.compile(rf"^{_LEAD_NAME}\s*:\s*{_LIST_BODY}\s*\.?\s*$", re.I)
_ARG_IN_SET = re.compile(rf"^{_LEAD_NAME}\s+(?:(?P<neg>not\s+in|\u2209)|in|\u2208)", re.I)
_SET_BODY = re.compile(r"\s*[({\[]\s*(?P<list>[^(){}\[\]]+?)\s*[)}\]]\s*\.?\s*$")
# what happens to any other value: a refusal, or someone's approval
_ELSE_TAIL = re.compile(
    # (jred28: or a dash, 'reason: outage, billing_error, goodwill — anything else → review'; read
    # as prose it was "Send to review when an argument is outage, billing_error or goodwill")
    r"(?:[.;]|\s[-\u2013\u2014])\s*(?:anything|everything|any\s+other\s+(?:value|one)|all\s+others?|others?)"
    r"(?:\s+else)?\s*(?:(?:is|are|=|->|=>|\u2192|:)\s*)?(?P<what>[^.;]{1,60}?)\s*\.?\s*$",
    re.I,
)
# 'Nothing else (no WhatsApp etc.)', 'Nothing else allowed.'
_NOTHING_ELSE = re.compile(
    r"(?:[.;]|\s[-\u2013\u2014])\s*(?:nothing|none)\s+else(?:\s+(?:is\s+)?(?:allowed|permitted|accepted))?"
    r"(?:\s*\([^()]{0,60}\))?\s*\.?\s*$",
    re.I,
)
# 'bank_transfer or paypal only. No crypto.': a value the list leaves out, refused again
_NO_VALUE_TAIL = re.compile(
    r"[.;]\s*no\s+(?P<what>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*)?)\s*\.?\s*$", re.I
)
# plain words with readings of their own (places, currencies, domains, who acts)
_OWN_READINGS = frozenset(
    "currency currencies ccy country countries region regions domain domains agent agents "
    "role roles owner owners contact note notes".split()
)
_ELSE_REFUSED = re.compile(
    r"^(?:(?:is\s+|are\s+)?(?:prohibited|forbidden|not\s+(?:allowed|permitted)|denied|blocked|"
    r"rejected|refused)|(?:den(?:y|ied)|decline[d]?|reject(?:ed)?|block(?:ed)?|refuse[d]?|no))$",
    re.I,
)
# jred27: a tail that takes the review away ('Others: no review needed', '-> auto approval',
# '-> approved without review') is no one's review: read as review it sent the listed values'
# opposite way, and `tier: "gold"` was approved where gold was the tier that needed it
_NO_ONE_REVIEWS = re.compile(
    r"\b(?:no|not|never|without|skip(?:ped)?|auto(?:matic(?:ally)?)?|self|system|bot|agent)\b",
    re.I,
)
_ELSE_REVIEWED = re.compile(
    r"^(?:needs?\s+|requires?\s+)?(?:(?:the\s+)?[a-z][\w&\-]*(?:\s+[a-z][\w&\-]*){0,3}\s+)?"
    r"(?:review|approval|sign-?off)(?:\s+(?:required|needed|first))?$",
    re.I,
)


def _argument_led_list(index: int, text: str, t: str) -> list[Any] | None:
    """A closed list on the argument named first ('permissible_purpose - one of: a, b, c'), read
    whole; None for any other shape, [] for the shape with an item that cannot be read."""
    from webapp.judge.namedchecks import NamedList

    shape = _led_shape(t)
    if shape is None:
        return None
    if not shape:
        return []
    effect, mode, arg, items, place = shape
    return [NamedList(index, text, effect, (), path=arg, values=items, place=place, mode=mode)]


@lru_cache(maxsize=4096)
def _led_shape(t: str) -> tuple[Any, ...] | None:
    """(effect, mode, argument, items, place) of an argument-led list, () when its shape is seen
    but an item cannot be read, None for any other shape. Kept per text: a rule's compile asks
    up to three times (named_argument_checks, unread_argument_led_list, argument_led_list_read)."""
    effect = "deny"
    refused_again = ""
    tail = _NOTHING_ELSE.search(t)
    if tail is not None:
        t = t[: tail.start()].strip()
    else:
        tail = _ELSE_TAIL.search(t)
    if tail is not None and tail.re is _NOTHING_ELSE:
        pass
    elif tail is None and _NO_VALUE_TAIL.search(t):
        tail = _NO_VALUE_TAIL.search(t)
        refused_again = tail.group("what")
        t = t[: tail.start()].strip()
    elif tail is not None:
        what = tail.group("what").strip()
        if _ELSE_REFUSED.match(what):
            effect = "deny"
        elif _ELSE_REVIEWED.match(what) and not _NO_ONE_REVIEWS.search(what):
            effect = "review"
        else:
            return None
        t = t[: tail.start()].strip()
    mode = "allow"
    m = _ARG_ONE_OF.match(t) or _ARG_ONLY.match(t)
    listed = m.group("list") if m else None
    if m is None:
        head = _ARG_IN_SET.match(t)
        body = _SET_BODY.fullmatch(t, head.end()) if head else None
        if body is not None:
            m, listed = head, body.group("list")
            if head.group("neg"):
                mode = "deny"
    if m is None and tail is not None:
        # 'comp_category: spa, parking. Anything else -> review': the tail says the list allows
        m = _ARG_COLON.match(t)
        listed = m.group("list") if m else None
    if m is None or listed is None:
        return None
    arg = m.group("arg") or ""
    shaped = m.group("tick") or _ARGUMENT_SHAPED.fullmatch(arg.replace(".", "_"))
    if not shaped:
        # a plain word, only before an explicit closed list ('Reason: …' alone may be prose;
        # 'Withdrawals: BTC or ETH only' names the act, not an argument) and in the singular
        # (the list readings bind a plural kind, 'Bureaus: …. Nothing else.', to `bureau`)
        explicit = m.re is not _ARG_ONLY or tail is not None
        if (
            not explicit
            or not re.fullmatch(r"[A-Za-z][a-z]+", arg)
            or arg.lower().endswith("s")
            or arg.lower() in _OWN_READINGS
        ):
            return None
        arg = arg.lower()
    if arg != arg.lower():
        return None
    # members written in quotes ("NOT IN ('prod', 'production')") are the words inside them
    listed = re.sub(r"([\"'`])([^\"'`,]*)\1", r"\2", listed)
    items = _items(re.sub(r"\s*\|\s*", " / ", listed), shared_noun=False)
    if items is None:
        # jred27: 'reason - one of: fraud, abuse, spam confirmed by T&S': the argument and its
        # closed list are plain, but an item is itself a condition. Read as prose, the item became
        # the whole rule ('Deny unless spam confirmed is T&S', harassment with confirmed_by T&S
        # approved): an empty shape says it was seen and left unread
        return ()
    if refused_again and (mode != "allow" or refused_again.lower() in {i.lower() for i in items}):
        return None  # 'No crypto' after a list holding crypto says something else
    place = _names_a_country(arg)
    if place:
        from webapp.judge.places import country_code

        if not all(country_code(i) for i in items):
            return None
    return (effect, mode, arg, tuple(items), place)


def argument_led_list_read(text: str) -> bool:
    """Whether `text` is a closed list after the argument it binds, read whole here."""
    return bool(_led_shape(re.sub(r"\s+", " ", text.strip())))


def unread_argument_led_list(text: str) -> bool:
    """A closed list written after the argument it binds whose items could not be read
    ('reason - one of: fraud, abuse, spam confirmed by T&S'): no other reading may decide it."""
    return _led_shape(re.sub(r"\s+", " ", text.strip())) == ()


_BOUNDARY_WORDS = frozenset(
    "inclusive exclusive incl excl inclusively exclusively both included excluded".split()
)


def named_argument_checks(index: int, text: str) -> list[Any] | None:
    """The checks of a rule that binds a list, a place or a bound to the argument it names in
    brackets, read whole; None when the rule is not one of these shapes."""
    from webapp.judge.namedchecks import NamedBound, NamedList

    t = re.sub(r"\s+", " ", text.strip())
    led = _argument_led_list(index, text, t)
    if led:
        return led
    for rx in (_LIST_ONLY_COLON, _LIST_COLON_ONLY, _LIST_BY_ONLY, _PLACE_MUST):
        m = rx.match(t)
        if m is None or not _plain_subject(m.group("subj")):
            continue
        items = _items(m.group("list"), shared_noun=False)
        if items is None:
            return None
        # a state's or a region's argument is no country's ('based in CA (installer_state)' is
        # California, not Canada): its values are compared as written
        place = _names_a_country(m.group("arg")) or (
            rx is _PLACE_MUST and not _names_a_subdivision(m.group("arg"))
        )
        if place:
            from webapp.judge.places import country_code

            # a country's argument with an item that is no country ('EU', 'the Americas'): a
            # region or a class, not read here (spelt as words, 'United States' was not 'US')
            if not all(country_code(i) for i in items):
                return None
            if rx is _PLACE_MUST and m.group("dom") and len({country_code(i) for i in items}) != 1:
                return None
        subject = m.group("subj")
        return [
            NamedList(
                index,
                text,
                "deny",
                _stems(subject),
                path=m.group("arg"),
                values=tuple(items),
                place=place,
                subject_words=subject.strip(),
            )
        ]
    eligible = _eligible_only(index, text, t)
    if eligible is not None:
        return eligible
    denied = _deny_list(index, text, t)
    if denied is not None:
        return denied
    refused = _prohibited_bound(index, text, t)
    if refused is not None:
        return refused
    tail = _REFUSAL_TAIL.search(t)
    head = t[: tail.start()] + "." if tail else t
    m = _BOUND_COLON.match(head) or _BOUND_BARE.match(head) or _BOUND_WITHIN.match(head)
    if m is None:
        return None
    subj, arg = m.group("subj"), m.group("arg")
    if arg in _BOUNDARY_WORDS:
        # '1. age 18–75 (inclusive)': the bracket says how the ends count, it names no argument
        # (read as one, every enrolment went to a human: "`inclusive` is not among the arguments").
        # A range, both ends in, on the one plain word before it, else not read here.
        if arg.startswith("excl") or not re.fullmatch(r"[a-z]+", subj.strip()):
            return None
        if not _RANGE.match(m.group("bound").strip()):
            return None
        arg = subj.strip()
    lead = re.match(r"^(?P<w>min|minimum|max|maximum)\b\s*", subj, re.I)
    direction = lead.group("w").lower()[:3] if lead else ""
    core = subj[lead.end() :] if lead else subj
    if not _plain_subject(core, allow_empty=True, name=arg):
        return None
    bound = m.group("bound").strip()
    if m.re is _BOUND_WITHIN:
        bound = re.sub(r"\(\s*(%|percent|pct)\s*\)", r"\1", bound, flags=re.I)
    rng = _RANGE.match(bound)
    if m.re is _BOUND_WITHIN and rng is None:
        return None  # 'within' says a range; a single bound after it is not read here
    if rng:
        if direction:
            return None
        low, high, unit = float(rng.group("lo")), float(rng.group("hi")), rng.group("unit")
        if low > high or not _same_unit(rng.group("lounit"), unit):
            return None  # '1 week to 30 days': the low end in a unit of its own
    else:
        one = _ONE_BOUND.match(bound)
        if one is None:
            return None
        said = [w for w in (one.group("pre"), one.group("post")) if w]
        kinds = {_direction(w) for w in said} | ({direction} if direction else set())
        if len(kinds) != 1:
            return None  # no direction, or two that disagree ('min 10 max')
        n, unit = float(one.group("n")), one.group("unit")
        low, high = (n, None) if kinds == {"min"} else (None, n)
    if not _unit_agrees(unit, arg) or not _scale_agrees(unit, arg, low, high):
        return None
    if tail and not _tail_restates(tail.group("side"), low, high):
        return None
    return [
        NamedBound(
            index,
            text,
            "deny",
            _stems(core),
            path=arg,
            low=low,
            high=high,
            unit=(unit or "").strip(),
            subject_words=core.strip(),
        )
    ]


def _direction(word: str) -> str:
    w = re.sub(r"\s+", " ", word.lower())
    if w in ("max", "maximum", "at most", "up to", "no more than", "not more than"):
        return "max"
    if w in ("or less", "or fewer"):
        return "max"
    return "min"


def _plain_subject(subject: str, allow_empty: bool = False, name: str = "") -> bool:
    s = subject.strip()
    if not s:
        return allow_empty
    # a word the argument's own name holds ('rest before the new duty', `rest_hours_before`)
    # is read by the argument, not a condition of its own
    own = set(re.split(r"[_.]", name.lower())) if name else set()
    refused = [m.group(0).lower() for m in _SUBJECT_REFUSED.finditer(s)]
    if any(r not in own for r in refused) or len(s.split()) > 6:
        return False
    if own:
        s = " ".join(w for w in s.split() if w.lower() not in own) or s
    from webapp.judge.coverage import category_phrases, condition_spans

    return not condition_spans(s) and not category_phrases(s)


# a conjunction inside a list's item: 'research and development, training' (a comma after the
# 'and'), 'hazard or flood insurance' (the noun said once for both): split there, 'development'
# and 'hazard' became listed values
_JOINED = r"\s*(?:/|\bor\b|\band\b)\s*"
# an item opening with an article names a class, not a value ('may not be a shell bank')
_ITEM_ARTICLE = re.compile(r"^(?:a|an|the)\s+\S")


def _country_code_item(p: str) -> bool:
    """jred27: a country's code written in capitals ('BY', 'IN', 'NO') is an item, not the word
    ('`country` not in (RU, BY)' had been left to readings that turned it around)."""
    if not re.fullmatch(r"[A-Z]{2}", p):
        return False
    from webapp.judge.places import country_code

    return country_code(p) == p


def _items(listed: str, shared_noun: bool = True) -> list[str] | None:
    """The items of a closed list, or None. `shared_noun`: the caller reads a noun said once for
    the items joined before it ('OTA or group-rate bookings', _deny_list); otherwise a shorter
    item joined to a longer last one ('hazard or flood insurance') is left unread."""
    commas = [c.strip(" .") for c in re.split(r"\s*[,;]\s*", listed)]
    if any(re.search(_JOINED, c) for c in commas[:-1] if c):
        return None
    last = [j.strip(" .") for j in re.split(_JOINED, commas[-1]) if j.strip(" .")]
    if (
        not shared_noun
        and len(last) > 1
        and len(last[-1].split()) > 1
        and any(len(j.split()) < len(last[-1].split()) for j in last[:-1])
    ):
        return None
    parts = [p.strip(" .") for p in re.split(r"\s*(?:,|/|;|\bor\b|\band\b)\s*", listed) if p]
    parts = [p for p in parts if p]
    if not parts or len(parts) > 30:
        return None
    for p in parts:
        if (
            (_ITEM_REFUSED.search(p) and not _country_code_item(p))
            or len(p.split()) > 4
            or re.search(r"\d{3,}|[()]", p)
        ):
            return None
        if _ITEM_ARTICLE.match(p):
            return None
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_\-&' ]*", p):
            return None
    return parts


def _names_a_country(arg: str) -> bool:
    """The argument's name says it holds a country ('payee_country', 'vendor_nation')."""
    return bool({"country", "nation", "jurisdiction"} & set(re.split(r"[_.]", arg.lower())))


def _names_a_subdivision(arg: str) -> bool:
    """The argument's name says it holds a part of a country ('site_state', 'ship_province')."""
    parts = set(re.split(r"[_.]", arg.lower()))
    return bool({"state", "province", "region", "county", "territory", "prefecture"} & parts)


def _stems(phrase: str) -> tuple[str, ...]:
    from webapp.judge.text import STOPWORDS

    return tuple(
        dict.fromkeys(stem(w.lower()) for w in words(phrase) if w.lower() not in STOPWORDS)
    )


def _unit_agrees(unit: str | None, arg: str) -> bool:
    """A time unit the rule writes is the one the argument's name carries, when it carries one;
    a time unit beside a name with none ('48 hours (notice)') is not the argument's, surely."""
    parts = re.split(r"[_.]", arg.lower())
    named = {_NAME_UNITS[p] for p in parts if p in _NAME_UNITS and _NAME_UNITS[p]}
    said = _TIME_UNITS.get((unit or "").strip().lower())
    if unit and unit.strip().lower() in ("%", "percent", "pct"):
        return bool({"pct", "percent", "percentage"} & set(parts))
    if said is None:
        return len(named) <= 1 if not unit else not named
    return named == {said}


def _same_unit(first: str | None, second: str | None) -> bool:
    """A range's two ends in one unit: the low end's unit, when written, is the high end's."""
    if not first:
        return True
    if not second:
        return False
    a, b = first.strip().lower(), second.strip().lower()
    return a == b or (_TIME_UNITS.get(a) is not None and _TIME_UNITS.get(a) == _TIME_UNITS.get(b))


def _scale_agrees(unit: str | None, arg: str, *bounds: float | None) -> bool:
    """A bare number beside a ratio ('LTV: 80 max (ltv_ratio)') or a fraction beside a percent
    ('Discount: 0.2 max (discount_pct)') may be written on the other scale: not read."""
    parts = set(re.split(r"[_.]", arg.lower()))
    said = [b for b in bounds if b is not None]
    if (unit or "").strip():
        return True
    if parts & {"ratio", "fraction", "rate", "share"} and any(b > 1 for b in said):
        return False
    if parts & {"pct", "percent", "percentage"} and any(0 < b < 1 for b in said):
        return False
    return True


# 'Less = FTL breach, reject.', 'More -> deny': what lies past a one-sided bound is refused,
# which the bound says already (a reason of a few words may stand between)
_REFUSAL_TAIL = re.compile(
    r"\.\s*(?P<side>less|fewer|shorter|lower|more|longer|higher|greater)\b\s*"
    r"(?:=|->|=>|\u2192|:|means|is)\s*(?:[A-Za-z][\w\-]*\s*){0,4},?\s*"
    r"(?:reject(?:ed)?|den(?:y|ied)|refused?|not\s+(?:permitted|allowed))\s*\.?\s*$",
    re.I,
)


def _tail_restates(side: str, low: float | None, high: float | None) -> bool:
    below = side.lower() in ("less", "fewer", "shorter", "lower")
    return (below and low is not None and high is None) or (
        not below and high is not None and low is None
    )


# 'Duty period (duty_hours) over 13h is not permitted.', 'Tickets older than 365 days
# (days_since_issue) cannot be refunded.': a comparison on the named argument, then a refusal
_CMP = (
    r"(?P<cmp>over|above|more\s+than|greater\s+than|longer\s+than|older\s+than|exceeding|"
    r"under|below|less\s+than|fewer\s+than|shorter\s+than|younger\s+than)"
)
_REFUSAL = (
    r"(?:is|are)\s+(?:not\s+(?:permitted|allowed|accepted)|prohibited|forbidden)|"
    r"(?:cannot|can\s*not|can't|may\s+not|must\s+not)\s+be\s+(?P<act>[a-z]+ed)"
)
_PROHIBITED_AFTER = re.compile(
    rf"^(?P<subj>{_SUBJECT})\s*\((?P<arg>{_NAME})\)\s+{_CMP}\s+(?P<n>{_NUM})\s*"
    rf"(?P<unit>{_UNIT})?\s+(?:{_REFUSAL})\s*\.?\s*$",
    re.I,
)
_PROHIBITED_BEFORE = re.compile(
    rf"^(?P<subj>{_SUBJECT})\s+{_CMP}\s+(?P<n>{_NUM})\s*(?P<unit>{_UNIT})?\s*"
    rf"\((?P<arg>{_NAME})\)\s+(?:{_REFUSAL})\s*\.?\s*$",
    re.I,
)


def _prohibited_bound(index: int, text: str, t: str) -> list[Any] | None:
    from webapp.judge.namedchecks import NamedBound

    m = _PROHIBITED_AFTER.match(t) or _PROHIBITED_BEFORE.match(t)
    if m is None:
        return None
    subj, arg, unit = m.group("subj"), m.group("arg"), m.group("unit")
    n = float(m.group("n"))
    if not _plain_subject(subj, name=arg) or not _unit_agrees(unit, arg):
        return None
    if not _scale_agrees(unit, arg, n, None):
        return None
    above = re.match(r"over|above|more|greater|longer|older|exceeding", m.group("cmp"), re.I)
    act = m.group("act")
    return [
        NamedBound(
            index,
            text,
            "deny",
            _stems(subj),
            path=arg,
            low=None if above else n,
            high=n if above else None,
            unit=(unit or "").strip(),
            subject_words=subj.strip(),
            act=stem(act.lower()) if act else "",
        )
    ]


# 'Sanctions: payee_country may not be IR, KP, SY, CU or RU.': the named argument, none of the
# values; 'No comps on OTA or group-rate bookings (rate_type).': an act refused for the values
_NAMED_NOT_IN = re.compile(
    rf"^(?:(?P<subj>{_SUBJECT})\s*:\s*)?(?P<arg>{_ARGUMENT_SHAPED.pattern})\s+"
    r"(?:may|must|can|shall)\s*(?:not|n't)\s+be\s+(?:one\s+of\s+|in\s+)?(?P<list>[^():;]+?)"
    r"\s*\.?\s*$"
)
_NO_ACT_ON = re.compile(
    rf"^no\s+(?P<act>[a-z]+)\s+(?:on|for|to)\s+(?P<list>[^():;]+?)\s*\((?P<arg>{_NAME})\)"
    r"\s*\.?\s*$",
    re.I,
)

# jlist: 'We don't accept gifts from tobacco, firearms or gambling companies (donor_industry)',
# 'Never ship orders to PO boxes or lockers (address_type)': a refused act on a thing, from or
# to the listed kinds of the argument named in brackets
_NEVER_ACT_ON = re.compile(
    r"^(?:we\s+)?(?:do\s+not|don't|never|will\s+not|won't|cannot|can't|may\s+not)\s+"
    r"(?P<act>[a-z]+)\s+(?P<thing>[a-z]+)\s+(?:from|to|for|on)\s+(?P<list>[^():;]+?)\s*"
    rf"\((?P<arg>{_NAME})\)\s*\.?\s*$",
    re.I,
)

_KIND_OF_PARTY = frozenset(
    "companies firms businesses vendors suppliers organisations organizations industries "
    "sectors brands donors merchants".split()
)


def _deny_list(index: int, text: str, t: str) -> list[Any] | None:
    from webapp.judge.namedchecks import NamedList
    from webapp.judge.places import country_code

    m = _NAMED_NOT_IN.match(t)
    act = ""
    subj = ""
    if m is not None:
        subj = m.group("subj") or ""
        if subj and not _plain_subject(subj):
            return None
        items = _items(m.group("list"), shared_noun=False)
    else:
        m = _NO_ACT_ON.match(t)
        thing = ""
        if m is None:
            m = _NEVER_ACT_ON.match(t)
            if m is None or not _plain_subject(m.group("thing")):
                return None
            thing = m.group("thing")
        act = m.group("act")
        items = _items(m.group("list"))
        if items and len(items) > 1 and len(items[-1].split()) == 2:
            # 'OTA or group-rate bookings': the last item's noun is what every item qualifies
            *head, noun = items[-1].split()
            if noun.lower().endswith("s") and all(len(i.split()) == 1 for i in items[:-1]):
                items[-1] = " ".join(head)
                subj = noun
        if thing and len(items) == 1 and len(items[0].split()) == 2:
            # 'from tobacco companies (donor_industry)': the noun says what the one item is
            first, noun = items[0].split()
            if noun.lower() in _KIND_OF_PARTY:
                items, subj = [first], noun
        subj = " ".join(w for w in (thing, subj) if w)
    if not items:
        return None
    place = (
        all(country_code(i) for i in items)
        and all(len(i) == 2 and i.isupper() for i in items)
        and not _names_a_subdivision(m.group("arg"))
    )
    if _names_a_country(m.group("arg")):
        # a country's argument: every item a country, matched by its code whatever the
        # spelling ('North Korea' is KP); otherwise 'a high risk jurisdiction' or 'embargoed'
        # had been a value no request holds, so every country passed
        if not all(country_code(i) for i in items):
            return None
        place = True
    return [
        NamedList(
            index,
            text,
            "deny",
            _stems(f"{act} {subj}"),
            path=m.group("arg"),
            values=tuple(items),
            place=place,
            subject_words=" ".join(w for w in (act, subj) if w),
            mode="deny",
            act=stem(act.lower().rstrip("s")) if act else "",
        )
    ]


# 'Eligible only when the outage lasted 24 hours or longer (outage_hours).': what the policy
# grants holds only past the bound on the named argument, whose name holds the thing measured
_ELIGIBLE_ONLY = re.compile(
    r"^(?:eligible|allowed|permitted|available)\s+only\s+(?:when|if)\s+(?:the\s+)?"
    r"(?P<subj>[a-z][a-z\-]*)\s+(?:lasted|lasts|is|was|has\s+been|ran|runs)\s+"
    rf"(?:(?P<pre>at\s+least|at\s+most)\s+)?(?P<n>{_NUM})\s*(?P<unit>{_UNIT})?"
    r"(?:\s+or\s+(?P<post>longer|more|over|above|greater|shorter|less|fewer|under|below))?\s*"
    rf"\((?P<arg>{_NAME})\)\s*\.?\s*$",
    re.I,
)


def _eligible_only(index: int, text: str, t: str) -> list[Any] | None:
    from webapp.judge.namedchecks import NamedBound

    m = _ELIGIBLE_ONLY.match(t)
    if m is None:
        return None
    subj, arg, unit = m.group("subj"), m.group("arg"), m.group("unit")
    pre, post = (m.group("pre") or "").lower(), (m.group("post") or "").lower()
    if bool(pre) == bool(post):
        return None  # no direction ('lasted 24 hours'), or two
    if stem(subj.lower()) not in {stem(w) for w in re.split(r"[_.]", arg.lower())}:
        return None  # the argument's name does not hold the thing the rule measures
    n = float(m.group("n"))
    if not _unit_agrees(unit, arg) or not _scale_agrees(unit, arg, n, None):
        return None
    at_least = pre.startswith("at least") or post in ("longer", "more", "over", "above", "greater")
    return [
        NamedBound(
            index,
            text,
            "deny",
            _stems(subj),
            path=arg,
            low=n if at_least else None,
            high=None if at_least else n,
            unit=(unit or "").strip(),
            subject_words=subj,
        )
    ]
