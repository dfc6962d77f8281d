"""jred31: red team of a numeric bound bound to the wrong argument, beside a money decoy
('qty_units | max 50' compared `amount_usd`, 'Group size must not exceed 8' compared
`price_usd`)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome
from webapp.judge.compiler import compile_rule
from webapp.judge.quantities import find_quantities
from webapp.judge.request_view import RequestView


def decide(rule: str, tool: str, args: dict) -> str:
    return outcome([rule], tool, args)


# a named argument beside a separator, a bound in other words, the name after 'Maximum for'
NAMED_SHAPES = [
    "qty_units | max 50",
    "qty_units | <= 50",
    "qty_units — max 50",
    "qty_units - max 50",
    "qty_units => max 50",
    "qty_units (max 50)",
    "qty_units, max 50",
    "Maximum for qty_units: 50",
    "qty_units limited to 50",
    "qty_units may go no higher than 50",
    "qty_units should never go beyond 50",
]


@pytest.mark.parametrize("text", NAMED_SHAPES)
def test_the_named_argument_is_what_the_bound_compares(text):
    # each read "Deny when the amount is above 50": 80 units passed on 10 USD, and 40 units
    # were denied on 900 USD
    assert decide(text, "order.create", {"qty_units": 80, "amount_usd": 10}) == "denied"
    assert decide(text, "order.create", {"qty_units": 40, "amount_usd": 900}) == "approved"


@pytest.mark.parametrize(
    "text",
    ["qty_units max 50 and amount_usd max 1000", "qty_units: at most 50; amount_usd: at most 1000"],
)
@pytest.mark.parametrize(
    ("qty", "amount", "expected"),
    [(80, 10, "denied"), (40, 1500, "denied"), (40, 900, "approved"), (50, 1000, "approved")],
)
def test_two_bounds_on_two_named_arguments_are_paired_by_their_numbers(text, qty, amount, expected):
    args = {"qty_units": qty, "amount_usd": amount}
    assert decide(text, "order.create", args) == expected


@pytest.mark.parametrize(
    ("text", "arg", "bad", "good"),
    [
        ("Group size must not exceed 8.", "group_size", 12, 6),
        ("Crew size at most 20.", "crew_size", 25, 18),
        ("Quantity must not exceed 500.", "quantity", 800, 400),
        ("Pallet count must not exceed 26.", "pallet_count", 30, 24),
    ],
)
def test_a_described_thing_that_names_an_argument_is_that_argument(text, arg, bad, good):
    assert decide(text, "tour.book", {arg: bad, "price_usd": 5}) == "denied"
    assert decide(text, "tour.book", {arg: good, "price_usd": 4800}) == "approved"


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ("Headcount capped at 8.", {"guests": 12, "price_usd": 5}),
        ("Class size is capped at 20.", {"enrolled": 25, "fee_usd": 5}),
        ("Max pallets: 26", {"pallets": 30, "amount_usd": 5}),
    ],
)
def test_a_bound_on_a_count_never_passes_on_the_money(text, args):
    assert decide(text, "booking.create", args) != "approved"


@pytest.mark.parametrize(
    ("text", "args", "expected"),
    [
        # the money thing's own name never takes the bound from the money
        ("Orders over 500 are denied.", {"order_count": 3, "amount_usd": 800}, "denied"),
        ("Orders over 500 are denied.", {"orders": 3, "amount_usd": 800}, "denied"),
        (
            "Transfers exceeding 5000 are blocked.",
            {"transfer_number": 3, "amount_usd": 8000},
            "denied",
        ),
        (
            "Bonus over 1000 needs approval.",
            {"bonus_count": 1, "amount_usd": 3000},
            "pending_review",
        ),
        ("Orders over 500 are denied.", {"order_count": 3, "amount_usd": 100}, "approved"),
    ],
)
def test_a_money_bound_keeps_its_money(text, args, expected):
    assert decide(text, "order.create", args) == expected


def test_a_bracket_pointing_at_an_argument_is_no_value():
    text = "Orders above 50 (by qty_units) are denied."
    assert compile_rule(0, "c0", text).understanding != "understood"
    assert decide(text, "order.create", {"qty_units": 80, "amount_usd": 10}) != "approved"


def test_a_required_name_before_a_money_bound_is_not_the_bounded_argument():
    text = "Refunds must include reason_code, max 500 USD per refund."
    assert decide(text, "order.refund", {"reason_code": "R1", "amount_usd": 900}) != "approved"


@pytest.mark.parametrize(("tonnes", "expected"), [(6000, "denied"), (4000, "approved")])
def test_a_daily_bound_on_a_named_argument_is_no_count_of_requests(tonnes, expected):
    text = "Daily ore_tonnage must stay below 5000."
    assert decide(text, "mine.plan", {"ore_tonnage": tonnes, "cost_usd": 10}) == expected


@pytest.mark.parametrize(("depth", "expected"), [(40, "denied"), (20, "approved")])
def test_a_spaced_m_beside_a_length_is_metres(depth, expected):
    # read as 30,000,000 a 40 m dive passed
    assert decide("Dive depth max 30 m", "dive.plan", {"depth_m": depth}) == expected


def test_a_spaced_m_with_no_length_is_not_a_million():
    assert not find_quantities("Runs over 30 m are flagged")
    assert find_quantities("Payouts above 1.5m need a CFO")[0].value == 1_500_000


@pytest.mark.parametrize(
    ("path", "family", "factor"),
    [
        ("clearance_mm", "length", 0.001),
        ("route_mi", "length", 1609.344),
        ("term_yrs", "time", 31536000.0),
        ("weight_oz", "mass", 0.028349523125),
        ("depth_m", "length", 1.0),
    ],
)
def test_argument_unit_suffixes(path, family, factor):
    (leaf, _), *_ = RequestView("t", {path: 1}, "a", None).numeric_leaves()
    assert leaf.unit == (family, factor)


def test_an_ambiguous_m_is_never_compared_in_the_rules_unit():
    # 'reel_m' is metres, minutes or months: never 900 feet
    (leaf, _), *_ = RequestView("t", {"session_m": 1}, "a", None).numeric_leaves()
    assert leaf.unit is None
    assert decide("Film reels up to 2000 ft.", "film.reel", {"reel_m": 900, "cost_usd": 5}) != (
        "approved"
    )


NAMES = st.sampled_from(["qty_units", "dogs_per_run", "burn_count", "items_out", "shoot_days"])
SEPARATORS = st.sampled_from([" | max ", " — max ", " (max ", ", max ", " limited to ", ": max "])


@settings(max_examples=60, deadline=None)
@given(
    name=NAMES,
    sep=SEPARATORS,
    bound=st.integers(min_value=2, max_value=400),
    over=st.integers(min_value=1, max_value=300),
    decoy=st.integers(min_value=0, max_value=5000),
)
def test_property_a_named_bound_never_passes_an_excess_on_a_decoy(name, sep, bound, over, decoy):
    # whatever the money decoy, a value over the named bound is never approved
    text = f"{name}{sep}{bound}" + (")" if sep.strip().startswith("(") else "")
    args = {name: bound + over, "amount_usd": decoy}
    assert decide(text, "ops.request", args) != "approved"


@pytest.mark.parametrize(("tonnes", "expected"), [(6000, "denied"), (4000, "approved")])
def test_a_daily_measure_that_is_no_count_of_requests(tonnes, expected):
    # counted as requests, 6,000 tonnes passed as "request number 4 today"
    text = "Daily ore tonnage must stay below 5000."
    assert decide(text, "mine.plan", {"ore_tonnage": tonnes, "cost_usd": 10}) == expected


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("pass_count must be 6 or fewer.", 5, "approved"),
        ("pass_count must be 6 or fewer.", 7, "denied"),
        ("pass_count must be 6 or more.", 7, "approved"),
        ("pass_count must be 6 or more.", 5, "denied"),
        ("pass_count must be 6.", 5, "denied"),
    ],
)
def test_a_value_with_its_bound_after_it_is_a_bound_not_an_equality(text, value, expected):
    # read "Deny when `pass_count` is not 6", 5 passes were denied
    assert decide(text, "sat.downlink", {"pass_count": value, "data_mb": 900}) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"overtime": 14, "shift_hours": 8}, "pending_review"),
        ({"overtime": 10, "shift_hours": 8}, "approved"),
        ({"overtime_minutes": 800, "shift_hours": 8}, "denied"),
    ],
)
def test_an_argument_the_unit_chose_for_another_thing_never_passes_the_named_one(args, expected):
    # the hours unit chose `shift_hours: 8` and 14 hours of overtime passed
    assert decide("Overtime capped at 12 hours.", "crew.schedule", args) == expected
