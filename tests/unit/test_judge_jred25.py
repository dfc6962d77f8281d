"""jred25: red team of numeric bounds written tersely, and of the argument a bound binds to.

A bound in a unit binds the argument measuring that unit, never money charged per unit of it
(`hourly_rate`, `monthly_rent`, `price_per_kg`); a bound with a currency on a noun bounds that
noun's money; a percentage bound on a named thing never reads another thing's percentage; a
count never binds an argument in a unit not named for the counted noun; a counted plural before
a colon with 'per order' counts what one request holds.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.checks import _money_per_unit
from webapp.judge.compiler import compile_rule

LEASE = "1. Lease term ≤ 36 months."


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # money per unit of the measure is never the measure
        (LEASE, "lease.create", {"monthly_rent": 30, "lease_term": 48}, "denied"),
        (LEASE, "lease.create", {"monthly_rent": 3000, "lease_term": 24}, "approved"),
        (
            "Max 40 hours per timesheet.",
            "timesheet.submit",
            {"hourly_rate": 30, "hours_worked": 45},
            "denied",
        ),
        (
            "Max 40 hours per timesheet.",
            "timesheet.submit",
            {"hourly_rate": 55, "hours_worked": 38},
            "approved",
        ),
        (
            "Freight: max 1,000 kg per consignment.",
            "freight.book",
            {"price_per_kg": 2, "gross_weight_kg": 1500},
            "denied",
        ),
        (
            "Freight: max 1,000 kg per consignment.",
            "freight.book",
            {"price_per_kg": 2400, "gross_weight_kg": 900},
            "approved",
        ),
        (
            "Equipment hire: up to 4 weeks.",
            "hire.book",
            {"weekly_rate": 400, "hire_weeks": 3},
            "approved",
        ),
        (
            "Overtime > 10 hrs/week -> HR review.",
            "timesheet.submit",
            {"overtime_hourly_rate": 45, "overtime_hours": 8},
            "approved",
        ),
        (
            "Overtime > 10 hrs/week -> HR review.",
            "timesheet.submit",
            {"overtime_hourly_rate": 6, "overtime_hours": 12},
            "pending_review",
        ),
        # a duration after a money event stays a duration
        (
            "Refunds requested more than 90 days after the charge go to the Billing Lead.",
            "refunds_create",
            {"refund_amount": 40, "currency": "USD", "days_since_charge": 90},
            "approved",
        ),
        # a currency on a counted noun bounds its money
        (
            "Max 500 USD credits.",
            "account.credit",
            {"credits": 50, "credit_amount": 600, "currency": "USD"},
            "denied",
        ),
        (
            "Max 500 USD credits.",
            "account.credit",
            {"credits": 900, "credit_amount": 300, "currency": "USD"},
            "approved",
        ),
        # another thing's percentage is not the rule's
        (
            "Discount cap 15%.",
            "sales.book",
            {"tax_rate": 8, "discount": 25, "amount": 100},
            "pending_review",
        ),
        (
            "Discount cap 15%.",
            "sales.book",
            {"commission_pct": 30, "discount_pct": 10, "amount": 100},
            "approved",
        ),
        (
            "Price increase max 10%.",
            "pricing.update",
            {"old_price": 100, "new_price": 130, "tax_pct": 5},
            "pending_review",
        ),
        # a count never binds an argument in another unit
        (
            "Passwords: min 12 chars.",
            "iam.set_password",
            {"length": 10, "max_age_days": 90},
            "pending_review",
        ),
        (
            "Passwords: min 12 chars.",
            "iam.set_password",
            {"password_length": 14, "max_age_days": 90},
            "approved",
        ),
        # a counted head per order is what one order holds
        (
            "Seats: at most 50 per order.",
            "license.order",
            {"seats": 40, "order_total": 3},
            "approved",
        ),
        (
            "Seats: at most 50 per order.",
            "license.order",
            {"seats": 60, "order_total": 3},
            "denied",
        ),
    ],
)
def test_bound_binds_its_own_argument(rule, tool, args, expected):
    assert outcome_beside_ticket(rule, tool, args) == expected


def test_readings_say_what_is_bounded():
    credits = compile_rule(0, "c:r0", "Max 500 USD credits.")
    assert credits.understanding == "understood"
    assert "the amount of credits is above 500 USD" in credits.checks[0].reading()
    seats = compile_rule(0, "c:r0", "Seats: at most 50 per order.")
    assert seats.understanding == "understood"
    assert "per order" not in seats.checks[0].reading()


@pytest.mark.parametrize(
    ("path", "rated"),
    [
        ("hourly_rate", True),
        ("monthly_rent", True),
        ("day_rate", True),
        ("price_per_kg", True),
        ("monthly_payment", True),
        ("rental_period", False),
        ("hours_worked", False),
        ("days_since_charge", False),
        ("payment_terms_days", False),
        ("total_hours", False),
    ],
)
def test_money_per_unit(path, rated):
    assert _money_per_unit(path) is rated


PERIOD = st.sampled_from(["hourly", "daily", "weekly", "monthly", "yearly"])
MONEY = st.sampled_from(["rate", "rent", "fee", "cost", "price", "payment", "wage"])


@settings(max_examples=60, deadline=None)
@given(period=PERIOD, money=MONEY, rate=st.integers(0, 1_000_000), term=st.integers(1, 120))
def test_a_rate_never_decides_a_duration(period, money, rate, term):
    """Whatever money per period sits beside the term, only the term decides the bound."""
    args = {f"{period}_{money}": rate, "term_months": term}
    got = outcome_beside_ticket("Lease term max 36 months.", "lease.create", args)
    assert got == ("denied" if term > 36 else "approved")


@settings(max_examples=60, deadline=None)
@given(
    other=st.sampled_from(["tax", "vat", "commission", "fee", "interest"]),
    suffix=st.sampled_from(["pct", "rate", "percent"]),
    other_value=st.integers(0, 100),
    discount=st.integers(0, 40),
)
def test_another_share_never_decides_a_percentage(other, suffix, other_value, discount):
    args = {f"{other}_{suffix}": other_value, "discount_pct": discount, "amount": 100}
    got = outcome_beside_ticket("Discount cap 15%.", "sales.book", args)
    assert got == ("denied" if discount > 15 else "approved")


def test_a_rolling_window_is_no_counted_noun():
    rule = compile_rule(0, "c:r0", "Refunds: max USD 2,000 rolling 7 days.")
    assert not rule.decides
    assert all("of rolling" not in ch.reading() for ch in rule.checks)
