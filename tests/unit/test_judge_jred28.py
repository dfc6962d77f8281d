"""jred28: red team of "understood" readings in domains the bench had not seen (veterinary
clinics, ticketing, car rental, freight brokerage, dental practices, school districts, coworking,
wine distribution).

Closed here: an amount of money written as a span ('1 month's rent') is no duration; a 'min'
suffix after a span word is minutes; two place codes joined by a slash are two members; the
argument named before 'not to exceed' is the one bounded; a recipient closing a bounded subject
('… to consumers') is not read as one more subject word; 'anything deeper -> someone' after a cap
gives the cap that effect; an argument-led list closed by a dash and its else branch is read
whole; a list check firing on the values an else branch lets pass is not trusted.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome
from webapp.judge.compiler import compile_rule


def _rule(text: str):
    return compile_rule(0, "p:r0", text)


def _reading(text: str) -> str:
    return "; ".join(c.reading() for c in _rule(text).checks)


# -- an amount written as a span of time ----------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Credits capped at 1 month's rent; hard cap $2,000.",
        "Deposit: at least 1 month\u2019s fee (`deposit`).",
        "Refunds capped at two weeks' pay.",
    ],
)
def test_money_span_is_no_duration(text: str) -> None:
    assert _rule(text).understanding == "partly_understood"


def test_money_span_unsafe_and_false_denial_closed() -> None:
    deposit = ["Deposit: at least 1 month's fee (`deposit`)."]
    args = {"deposit": 400, "currency": "USD", "monthly_fee": 800}
    assert outcome(deposit, "cowork.set_membership", args) == "pending_review"
    credits = ["Credits capped at 1 month's rent; hard cap $2,000."]
    args = {"credit_amount": 150, "currency": "USD", "months_active": 8}
    assert outcome(credits, "cowork.apply_credit", args) == "pending_review"


@pytest.mark.parametrize(
    "text",
    [
        "Disconnections require at least 10 days' written notice.",
        "Dispenses must not be for more than 30 days' supply.",
    ],
)
def test_span_of_a_lasting_thing_stays_a_duration(text: str) -> None:
    assert "duration" in _reading(text)
    assert not any("days'" in w for w in _rule(text).unaccounted)


# -- a span in minutes named 'duration_min' ----------------------------------------------------------
APPT = "- Appointments longer than 3 hrs (duration_min) need doctor sign-off."


@pytest.mark.parametrize(
    ("minutes", "expected"),
    [(240, "pending_review"), (181, "pending_review"), (60, "approved"), (180, "approved")],
)
def test_minutes_suffix_after_a_span_word(minutes: int, expected: str) -> None:
    assert outcome([APPT], "dental.book_appointment", {"duration_min": minutes}) == expected


def test_min_suffix_elsewhere_is_no_unit() -> None:
    from webapp.judge.request_view import _path_stems

    assert _path_stems("duration_min")[2] == ("time", 60.0)
    assert _path_stems("order_min")[2] is None
    assert _path_stems("price_min")[2] is None


# -- place codes joined by a slash ---------------------------------------------------------------------
TRIP = "- Out-of-state destinations (anything other than OR/WA) → superintendent review."


@pytest.mark.parametrize(
    ("state", "expected"),
    [("ID", "pending_review"), ("CA", "pending_review"), ("WA", "approved"), ("OR", "approved")],
)
def test_slash_joined_place_codes(state: str, expected: str) -> None:
    assert "OR or WA" in _reading(TRIP)
    assert outcome([TRIP], "district.approve_field_trip", {"destination_state": state}) == expected


def test_slash_joined_other_codes_stay_one_value() -> None:
    from webapp.judge.misreadings import _place_code

    assert _place_code("WA") and _place_code("OR") and _place_code("DE")
    assert not _place_code("N") and not _place_code("TCP") and not _place_code("wa")


# -- 'x_pct not to exceed 25' --------------------------------------------------------------------------
FUEL = "3) fuel_surcharge_pct not to exceed 25."


@pytest.mark.parametrize(("pct", "expected"), [(31, "denied"), (25, "approved"), (18, "approved")])
def test_named_before_not_to_exceed(pct: int, expected: str) -> None:
    assert "`fuel_surcharge_pct`" in _reading(FUEL)
    args = {"rate_per_mile": 2.85, "currency": "USD", "fuel_surcharge_pct": pct}
    assert outcome([FUEL], "freight.quote_rate", args) == expected


# -- a recipient closing a bounded subject ----------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "- Max 12 cases per shipment to consumers.",
        "- Max 12 cases per order to retailers.",
        "Discounts above 20% to resellers need approval.",
    ],
)
def test_recipient_qualifier_is_not_a_subject_word(text: str) -> None:
    assert _rule(text).understanding == "partly_understood"


def test_recipient_qualified_further_is_left_to_other_readers() -> None:
    rule = "Refunds above $100 to customers with open disputes need review"
    assert not any("to customers" in w for w in _rule(rule).unaccounted)


def test_trade_shipment_not_refused_by_consumer_cap() -> None:
    rules = ["- Max 12 cases per shipment to consumers."]
    args = {"cases": 40, "recipient_type": "licensed_retailer"}
    assert outcome(rules, "wine.ship_order", args) != "denied"


# -- 'anything deeper -> someone' ----------------------------------------------------------------------
PROMO = "1) Promo discount ≤ 25% (discount_pct); anything deeper → marketing director."


@pytest.mark.parametrize(
    ("pct", "expected"), [(30, "pending_review"), (25, "approved"), (10, "approved")]
)
def test_anything_past_the_bound_takes_the_arrow_effect(pct: int, expected: str) -> None:
    assert _reading(PROMO).startswith("Send to review when `discount_pct` is above 25%")
    assert outcome([PROMO], "tickets.create_promo", {"discount_pct": pct}) == expected


# -- an argument-led list closed by a dash ------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("reason: outage, billing_error, goodwill — anything else → review.", "chargeback", "pending_review"),
        ("reason: outage, billing_error, goodwill — anything else → review.", "goodwill", "approved"),
        ("reason: outage | billing_error | goodwill - anything else → review.", "billing_error", "approved"),
        ("reason: outage | billing_error | goodwill – nothing else.", "chargeback", "denied"),
    ],
)  # fmt: skip
def test_dash_closed_list(text: str, value: str, expected: str) -> None:
    assert 'unless `reason` is one of "outage", "billing_error", "goodwill"' in _reading(text)
    assert outcome([text], "cowork.apply_credit", {"reason": value}) == expected


def test_list_read_backwards_is_not_trusted() -> None:
    rule = "Carriers FedEx, UPS – all others need logistics approval."
    assert _rule(rule).understanding != "understood" or "unless" in _reading(rule)
    assert outcome([rule], "freight.book", {"carriers": "USPS"}) != "approved"


# -- properties ----------------------------------------------------------------------------------------
_NUMS = st.sampled_from(["1", "2", "3", "one", "two", "a"])
_SPANS = st.sampled_from(["month", "week", "year", "day"])
_MONEY = st.sampled_from(["rent", "fee", "fees", "pay", "salary", "membership fee", "premium"])
_SUBJ = st.sampled_from(["Credits", "Deposits", "Refunds", "Waivers"])
_BOUND = st.sampled_from(["capped at", "at least", "max", "up to", "no more than"])


@settings(max_examples=60, deadline=None)
@given(_SUBJ, _BOUND, _NUMS, _SPANS, _MONEY)
def test_property_money_span_never_decides(subj, bound, n, span, money) -> None:
    plural = "s'" if n not in ("1", "one", "a") else "'s"
    text = f"{subj} {bound} {n} {span}{plural} {money}."
    rule = _rule(text)
    assert rule.understanding != "understood" or not any(
        getattr(c, "unit_family", None) == "time" for c in rule.checks
    )


_PARTIES = st.sampled_from(["consumers", "retailers", "resellers", "distributors", "minors"])
_CAPS = st.sampled_from(
    ["Max 12 cases per shipment", "Discounts above 20%", "Orders over $5,000", "Max 6 per order"]
)
_TAILS = st.sampled_from([".", " need approval.", " -> review.", ""])


@settings(max_examples=60, deadline=None)
@given(_CAPS, st.sampled_from(["to", "for"]), _PARTIES, _TAILS)
def test_property_recipient_after_bound_never_decides(cap, prep, party, tail) -> None:
    text = f"{cap} {prep} {party}{tail}"
    assert _rule(text).understanding != "understood"


# -- a total after the act ------------------------------------------------------------------------------
EXT = "2. Total rental after extension ≤ 28 days."


@pytest.mark.parametrize("text", [EXT, "New balance after the top-up must not exceed $5,000."])
def test_total_after_the_act_never_decides(text: str) -> None:
    assert _rule(text).understanding == "partly_understood"


def test_total_after_extension_unsafe_closed() -> None:
    args = {"extra_days": 3, "current_total_days": 26}
    assert outcome([EXT], "rental.extend", args) == "pending_review"
