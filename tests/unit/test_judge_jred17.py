"""Red team of the named-argument readings (namedargs.py, namedchecks.py; helper jred17).

What the readings approved that a careful officer would not: a country deny-list written as
names passed the codes ('North Korea' and KP), a class read as a value ('may not be a high
risk jurisdiction', 'embargoed', 'a shell bank'), an item split at a conjunction inside it
('research and development', 'hazard or flood insurance'), an abbreviation written out
('online_travel_agency' for 'OTA'), a name written for two countries ('Korea'), and a bound on
a total read as on one request ('Cumulative refunds: 500 max (refund_amount)', 'Annual leave:
25 days max (leave_days)').
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.compiler import compile_rule

SANCTION_NAMES = "Sanctions: payee_country may not be Iran, North Korea, Syria, Cuba or Russia."
SANCTION_CODES = "Sanctions: payee_country may not be IR, KP, SY, CU or RU."
COMPS = "No comps on OTA or group-rate bookings (rate_type)."
VENDORS = "Vendors: US or Canada only (vendor_country)."


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (SANCTION_NAMES, "payments.send", {"payee_country": "KP"}, "denied"),
        (SANCTION_NAMES, "payments.send", {"payee_country": "RU"}, "denied"),
        (SANCTION_NAMES, "payments.send", {"payee_country": "DPRK"}, "denied"),
        (SANCTION_NAMES, "payments.send", {"payee_country": "Syria"}, "denied"),
        (SANCTION_NAMES, "payments.send", {"payee_country": "Germany"}, "approved"),
        (SANCTION_NAMES, "payments.send", {"payee_country": "DE"}, "approved"),
        (SANCTION_CODES, "payments.send", {"payee_country": "Korea"}, "pending_review"),
        (SANCTION_CODES, "payments.send", {"payee_country": "North Korea"}, "denied"),
        (VENDORS, "vendors.pay", {"vendor_country": "United States"}, "approved"),
        (VENDORS, "vendors.pay", {"vendor_country": "Mexico"}, "denied"),
        (COMPS, "hotel.comp_room", {"rate_type": "online_travel_agency"}, "denied"),
        (COMPS, "hotel.comp_room", {"rate_type": "rack"}, "approved"),
        (
            "Pay by ACH or card only (method).",
            "payments.pay",
            {"method": "automated_clearing_house"},
            "approved",
        ),
        (
            "Grants only: research and development, training (grant_type).",
            "grants.award",
            {"grant_type": "development"},
            "pending_review",
        ),
        (
            "Escrow pays only: hazard or flood insurance (disbursement_type).",
            "escrow.disburse",
            {"disbursement_type": "hazard"},
            "pending_review",
        ),
        (
            "Sanctions: payee_country may not be a high risk jurisdiction.",
            "payments.send",
            {"payee_country": "IR"},
            "pending_review",
        ),
        (
            "Sanctions: payee_country may not be embargoed.",
            "payments.send",
            {"payee_country": "CU"},
            "pending_review",
        ),
        (
            "Payouts: payee_bank may not be a shell bank.",
            "payments.send",
            {"payee_bank": "Banco Atlantico"},
            "pending_review",
        ),
        (
            "Cumulative refunds: 500 max (refund_amount).",
            "refunds.issue",
            {"refund_amount": 300},
            "pending_review",
        ),
        (
            "Annual leave: 25 days max (leave_days).",
            "hr.request_leave",
            {"leave_days": 5},
            "pending_review",
        ),
        (
            "Combined discounts: 30% max (discount_pct).",
            "quotes.issue",
            {"discount_pct": 20},
            "pending_review",
        ),
        ("Refunds: 500 max (refund_amount).", "refunds.issue", {"refund_amount": 300}, "approved"),
        ("Refunds: 500 max (refund_amount).", "refunds.issue", {"refund_amount": 600}, "denied"),
    ],
)
def test_red_team_vectors(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


def test_a_total_over_a_window_is_still_read() -> None:
    compiled = compile_rule(0, "c:r0", "Yearly refunds: 500 USD max (refund_amount).")
    assert compiled.understanding == "understood"
    assert "year's total of `refund_amount`" in compiled.checks[0].reading()


TOTALS = ("Cumulative", "Annual", "Combined", "Lifetime", "Aggregate", "Outstanding", "Overall")


@settings(max_examples=40, deadline=None)
@given(
    total=st.sampled_from(TOTALS),
    noun=st.sampled_from(("refunds", "credits", "holds", "leave", "discounts")),
    n=st.integers(min_value=2, max_value=900),
    unit=st.sampled_from(("", " days", "%")),
)
def test_a_bound_on_a_total_never_decides(total: str, noun: str, n: int, unit: str) -> None:
    arg = {"": "item_count", " days": "item_days", "%": "item_pct"}[unit]
    rule = f"{total} {noun}: {n}{unit} max ({arg})."
    compiled = compile_rule(0, "c:r0", rule)
    assert not compiled.decides, rule
    assert outcome_beside_ticket(rule, "items.apply", {arg: n - 1}) != "approved", rule


COUNTRIES = {
    "North Korea": ("KP", "DPRK", "north korea"),
    "Iran": ("IR", "iran"),
    "Russia": ("RU", "Russian Federation"),
    "Cuba": ("CU", "cuba"),
}


@settings(max_examples=40, deadline=None)
@given(
    listed=st.lists(st.sampled_from(sorted(COUNTRIES)), min_size=1, max_size=4, unique=True),
    data=st.data(),
)
def test_a_listed_country_is_refused_however_spelt(listed: list[str], data: st.DataObject) -> None:
    rule = f"Sanctions: payee_country may not be {', '.join(listed)}."
    spelt = data.draw(st.sampled_from(COUNTRIES[data.draw(st.sampled_from(listed))]))
    assert outcome_beside_ticket(rule, "payments.send", {"payee_country": spelt}) == "denied"


@settings(max_examples=30, deadline=None)
@given(
    cls=st.sampled_from(
        ("a high risk jurisdiction", "an embargoed country", "the watch list", "a shell company")
    ),
    arg=st.sampled_from(("payee_country", "payee_bank", "vendor_name")),
)
def test_a_class_after_may_not_be_never_decides(cls: str, arg: str) -> None:
    compiled = compile_rule(0, "c:r0", f"Payouts: {arg} may not be {cls}.")
    assert not compiled.decides


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        ("Notice: 1 week to 30 days (notice_days).", "rooms.book", {"notice_days": 3}),
        ("Loan term: 1 year to 60 months (term_months).", "loans.originate", {"term_months": 6}),
        ("LTV: 80 max (ltv_ratio).", "loans.originate", {"ltv_ratio": 0.95}),
        ("LTV (ltv_ratio) at most 80.", "loans.originate", {"ltv_ratio": 0.95}),
        ("ltv_ratio: 80 max", "loans.originate", {"ltv_ratio": 0.95}),
        ("Discount: 20 max (discount_rate).", "quotes.issue", {"discount_rate": 0.35}),
        ("discount_pct: 0.2 max", "quotes.issue", {"discount_pct": 0.15}),
        (COMPS, "hotel.comp_room", {"rate_type": "*"}),
        (COMPS, "hotel.comp_room", {"rate_type": "any"}),
        (COMPS, "hotel.comp_room", {"rate_type": "rack|OTA"}),
    ],
)
def test_a_unit_or_a_scale_of_its_own_never_approves(rule: str, tool: str, args: dict) -> None:
    assert outcome_beside_ticket(rule, tool, args) != "approved"


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        ("Notice: 7 to 30 days (notice_days).", {"notice_days": 10}, "approved"),
        ("Notice: 7 days to 30 days (notice_days).", {"notice_days": 3}, "denied"),
        ("LTV: 80% max (ltv_pct).", {"ltv_pct": 75}, "approved"),
        ("LTV: 0.8 max (ltv_ratio).", {"ltv_ratio": 0.95}, "denied"),
    ],
)
def test_one_unit_and_one_scale_are_still_read(rule: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, "loans.apply", args) == expected


@settings(max_examples=40, deadline=None)
@given(
    low=st.integers(min_value=1, max_value=5),
    high=st.integers(min_value=6, max_value=90),
    units=st.sampled_from((("week", "days"), ("year", "months"), ("day", "hours"))),
)
def test_a_range_in_two_units_never_decides(low: int, high: int, units: tuple) -> None:
    first, second = units
    arg = {"days": "notice_days", "months": "term_months", "hours": "wait_hours"}[second]
    rule = f"Term: {low} {first} to {high} {second} ({arg})."
    assert not compile_rule(0, "c:r0", rule).decides, rule


def test_a_negative_value_under_a_cap_goes_to_a_human() -> None:
    rule = "Refunds: 500 max (refund_amount)."
    assert outcome_beside_ticket(rule, "refunds.issue", {"refund_amount": -1000}) == (
        "pending_review"
    )
    group = "Group size 10-60 pax (pax_count)."
    assert outcome_beside_ticket(group, "events.book", {"pax_count": -5}) == "denied"


def test_america_is_not_surely_the_us() -> None:
    rule = "Domestic only - beneficiary bank must be in the US (beneficiary_country)."
    args = {"beneficiary_country": "America"}
    assert outcome_beside_ticket(rule, "wires.send", args) == "pending_review"


@pytest.mark.parametrize(
    ("rule", "value", "expected"),
    [
        ("Tiers: A or B only (vendor_tier).", "B-", "pending_review"),
        ("Tiers: A or B only (vendor_tier).", "A+", "pending_review"),
        ("Tiers: A or B only (vendor_tier).", "b", "approved"),
        ("Vendors: vendor_tier may not be C or D.", "D+", "pending_review"),
        ("Vendors: vendor_tier may not be C or D.", "c", "denied"),
    ],
)
def test_a_sign_at_an_end_is_part_of_the_value(rule: str, value: str, expected: str) -> None:
    assert outcome_beside_ticket(rule, "vendors.pay", {"vendor_tier": value}) == expected


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        ("Installers must be based in CA (installer_state).", {"installer_state": "Canada"}, "p"),
        ("Sites must be located in DE (site_state).", {"site_state": "Germany"}, "p"),
        ("Sites: CA or NY only (site_state).", {"site_state": "Canada"}, "p"),
        ("Shipments: ship_state may not be CA or NY.", {"ship_state": "California"}, "p"),
        ("Shipments: ship_state may not be CA or NY.", {"ship_state": "NY"}, "denied"),
        ("Shipments: ship_state may not be CA or NY.", {"ship_state": "TX"}, "approved"),
        (
            "Installers must be based in CA (installer_state).",
            {"installer_state": "CA"},
            "approved",
        ),
    ],
)
def test_a_state_code_is_no_country(rule: str, args: dict, expected: str) -> None:
    got = outcome_beside_ticket(rule, "jobs.assign", args)
    assert got == ("pending_review" if expected == "p" else expected)
