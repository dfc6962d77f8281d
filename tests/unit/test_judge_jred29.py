"""jred29: red team of "understood" readings in card issuing, payroll, mortgage servicing, PBM,
incident response, marketplace payouts, fleet telematics and subscription billing.

Closed here: a bound excepted by a condition is bound to the argument named right before it
('(hours_to_cutoff below 24) unless the run is flagged urgent' had read 'the amount'); 'N
percentage points' / 'N basis points' are a percentage, not a count of 'percentage'; 'limited
to N (arg) and require a <thing>' requires the thing (it had become a subject word); a bound in
business days is left unread (it had read as a count of 'business', or as an amount).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome
from webapp.judge.compiler import compile_rule

CUTOFF = (
    "No payroll run is submitted after the cutoff (hours_to_cutoff below 24) unless the run is "
    "flagged urgent."
)
RATE = (
    "Interest rate reductions of more than 2 percentage points are not permitted unless the "
    "borrower is in active hardship (hardship_flag = Y)."
)
BPS = "Rate cuts above 150 basis points need credit committee review."
EXPORT = (
    "Location history exports are limited to 30 days (range_days) and require a data "
    "protection ticket."
)
DPA = "Payroll exports are limited to 500 records (record_count) and require a DPA reference."
LOC = {"command": "location_export"}
NOTICE = "The borrower must be notified in writing within 5 business days (notice_days)."


def _reading(rule: str) -> tuple[str, str]:
    r = compile_rule(0, "c", rule)
    return r.understanding, "; ".join(c.reading() for c in r.checks)


# -- a bound excepted by a condition, bound to its named argument --------------------------------
def test_cutoff_reading_names_the_argument():
    state, reading = _reading(CUTOFF)
    assert state == "understood"
    assert "`hours_to_cutoff` is below 24" in reading
    assert "amount" not in reading


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"amount": 250000, "currency": "USD", "hours_to_cutoff": 5, "urgent": False}, "denied"),
        ({"amount": 20, "currency": "USD", "hours_to_cutoff": 100, "urgent": False}, "approved"),
        ({"amount": 250000, "currency": "USD", "hours_to_cutoff": 24, "urgent": False}, "approved"),
        ({"amount": 250000, "currency": "USD", "hours_to_cutoff": 5, "urgent": True}, "approved"),
    ],
)
def test_cutoff_outcomes(args, expected):
    assert outcome([CUTOFF], "payroll.run", args) == expected


# -- percentage points and basis points ----------------------------------------------------------
def test_percentage_points_reading():
    state, reading = _reading(RATE)
    assert "number of percentage" not in reading
    assert "above 2%" in reading


def test_basis_points_reading():
    state, reading = _reading(BPS)
    assert "above 1.50%" in reading


@pytest.mark.parametrize(
    ("rule", "args", "allowed"),
    [
        (RATE, {"rate_reduction_pct": 2.5, "hardship_flag": "N"}, ("denied", "pending_review")),
        (RATE, {"rate_reduction_pct": 1.5, "hardship_flag": "N"}, ("approved",)),
        (RATE, {"rate_reduction_pct": 2.5, "hardship_flag": "Y"}, ("approved",)),
        (BPS, {"rate_cut_pct": 1.6}, ("pending_review",)),
        (BPS, {"rate_cut_pct": 1.0}, ("approved",)),
    ],
)
def test_points_outcomes(rule, args, allowed):
    assert outcome([rule], "loan.modify", args) in allowed


# -- a second requirement joined to a bound -------------------------------------------------------
def test_bound_and_requirement_reading():
    state, reading = _reading(EXPORT)
    assert state == "understood"
    assert "`data protection ticket` is missing or empty" in reading
    assert "(about: location history exports)" in reading


@pytest.mark.parametrize(
    ("rule", "tool", "args", "allowed"),
    [
        (EXPORT, "vehicle.command", {**LOC, "range_days": 10}, ("denied", "pending_review")),
        (
            EXPORT,
            "vehicle.command",
            {**LOC, "range_days": 10, "data_protection_ticket": "D-1"},
            ("approved",),
        ),
        (
            EXPORT,
            "vehicle.command",
            {**LOC, "range_days": 45, "data_protection_ticket": "D-2"},
            ("denied",),
        ),
        (DPA, "payroll.export", {"record_count": 100}, ("denied",)),
        (DPA, "payroll.export", {"record_count": 100, "dpa_reference": ""}, ("denied",)),
        (DPA, "payroll.export", {"record_count": 100, "dpa_reference": "DPA-7"}, ("approved",)),
        (DPA, "payroll.export", {"record_count": 900, "dpa_reference": "DPA-7"}, ("denied",)),
    ],
)
def test_bound_and_requirement_outcomes(rule, tool, args, allowed):
    assert outcome([rule], tool, args) in allowed


def test_approval_after_bound_is_not_read_as_an_argument():
    # 'and require CFO approval' is something a person gives: not turned into a required field
    _, reading = _reading(
        "Exports are limited to 500 records (record_count) and require CFO approval."
    )
    assert "`CFO approval` is missing" not in reading


# -- business days --------------------------------------------------------------------------------
def test_business_days_left_unread():
    state, _ = _reading(NOTICE)
    assert state == "partly_understood"
    assert outcome([NOTICE], "loan.modify", {"notice_days": 8}) == "pending_review"
    assert (
        outcome(["Refunds must be issued within 5 business days."], "refund.create", {"amount": 9})
        != "approved"
    )


# -- property: a late run is never approved without the urgent flag --------------------------------
@settings(max_examples=60, deadline=None)
@given(
    hours=st.integers(min_value=0, max_value=23),
    amount=st.integers(min_value=0, max_value=10_000_000),
)
def test_late_run_never_approved(hours, amount):
    args = {"amount": amount, "currency": "USD", "hours_to_cutoff": hours, "urgent": False}
    assert outcome([CUTOFF], "payroll.run", args) != "approved"


@settings(max_examples=60, deadline=None)
@given(count=st.integers(min_value=0, max_value=500))
def test_export_without_reference_never_approved(count):
    assert outcome([DPA], "payroll.export", {"record_count": count}) != "approved"


# -- a review bound asked only under a second bound -----------------------------------------------
ONBOARD = (
    "A contractor payout over USD 15000 requires finance controller review if the contractor "
    "has been onboarded less than 30 days ago."
)


def test_review_if_bound_reading():
    state, reading = _reading(ONBOARD)
    assert state == "understood"
    assert reading.startswith("When the duration is below 30 days: Send to review when the amount")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"amount": 20000, "currency": "USD", "days_since_onboarding": 10}, "pending_review"),
        ({"amount": 20000, "currency": "USD", "days_since_onboarding": 200}, "approved"),
        ({"amount": 2000, "currency": "USD", "days_since_onboarding": 10}, "approved"),
        ({"amount": 20000, "currency": "USD"}, "pending_review"),
    ],
)
def test_review_if_bound_outcomes(args, expected):
    assert outcome([ONBOARD], "payroll.pay_contractor", args) == expected


@settings(max_examples=60, deadline=None)
@given(
    amount=st.integers(min_value=15001, max_value=10_000_000),
    days=st.integers(min_value=0, max_value=29),
)
def test_new_contractor_big_payout_never_approved(amount, days):
    args = {"amount": amount, "currency": "USD", "days_since_onboarding": days}
    assert outcome([ONBOARD], "payroll.pay_contractor", args) != "approved"


# -- a state joined by 'or' to a bound --------------------------------------------------------------
FIRMWARE = (
    "Firmware updates are not pushed to vehicles in motion or with a battery_level below 20%."
)


def test_state_or_bound_left_unread():
    state, _ = _reading(FIRMWARE)
    assert state == "partly_understood"
    args = {"vehicle_id": "V-2", "in_motion": False, "battery_level_pct": 10}
    assert outcome([FIRMWARE], "vehicle.firmware_update", args) != "approved"
    args = {"vehicle_id": "V-2", "in_motion": True, "battery_level_pct": 80}
    assert outcome([FIRMWARE], "vehicle.firmware_update", args) != "approved"


def test_comparison_reading_names_the_identifier():
    _, reading = _reading("The payout amount must not exceed the seller's available_balance.")
    assert "seller's `available_balance`" in reading
    rule = ["The payout amount must not exceed the seller's available_balance."]
    assert outcome(rule, "seller.payout", {"amount": 1500, "available_balance": 1000}) == "denied"
    assert outcome(rule, "seller.payout", {"amount": 900, "available_balance": 1000}) == "approved"
