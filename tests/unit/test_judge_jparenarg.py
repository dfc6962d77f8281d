"""An argument named beside a list, a place or a bound (webapp/judge/namedargs.py).

'Escrow pays only: property taxes, hazard insurance, flood insurance, HOA dues
(disbursement_type)', 'Group size 10-60 pax (pax_count)', 'validity_months: 12 max': the list,
the place or the bound is bound to the named argument, never to the amount, and the argument's
name is never a value. A missing argument, a value close to a listed one, or a value of another
type is review, never an approval.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import (
    APPENDED_QUALIFIERS,
    assert_never_decides,
    assert_qualified_never_decides,
    outcome_beside_ticket,
)
from webapp.judge.compiler import compile_rule
from webapp.judge.namedchecks import NamedBound, NamedList

ESCROW = (
    "Escrow pays only: property taxes, hazard insurance, flood insurance, HOA dues "
    "(disbursement_type)."
)
CARRIERS = "Shipping carriers: UPS, FedEx or DHL only (carrier)."
METHOD = "Pay by bank_transfer only (method)."
DOMESTIC = "Domestic only - beneficiary bank must be in the US (beneficiary_country)."
LEASE = "New or renewed lease terms: 6 to 24 months inclusive (term_months)."
GROUP = "Group size 10-60 pax (pax_count)."
HOLDS = "Holds: 7 days max (hold_days)."
REST = "Min rest before the new duty: 10h (rest_hours_before). Less = FTL breach, reject."
DUTY = "Duty period (duty_hours) over 13h is not permitted."
TICKETS = "Tickets older than 365 days (days_since_issue) cannot be refunded."
SANCTIONS = "Sanctions: payee_country may not be IR, KP, SY, CU or RU."
COMPS = "No comps on OTA or group-rate bookings (rate_type)."
OUTAGE = "Eligible only when the outage lasted 24 hours or longer (outage_hours)."

UNDERSTOOD = [
    ESCROW,
    CARRIERS,
    METHOD,
    DOMESTIC,
    LEASE,
    GROUP,
    HOLDS,
    REST,
    DUTY,
    TICKETS,
    SANCTIONS,
    COMPS,
    OUTAGE,
]


@pytest.mark.parametrize("rule", UNDERSTOOD)
def test_named_argument_rules_are_understood(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert all(isinstance(c, NamedBound | NamedList) for c in compiled.checks)


@pytest.mark.parametrize(
    ("rule", "reading"),
    [
        (
            ESCROW,
            'Deny unless `disbursement_type` (Escrow pays) is one of "property taxes", '
            '"hazard insurance", "flood insurance", "HOA dues"',
        ),
        (
            LEASE,
            "Deny when `term_months` (New or renewed lease terms) is not between 6 and 24 "
            "months (inclusive)",
        ),
        (DUTY, "Deny when `duty_hours` (Duty period) is above 13 h"),
        (SANCTIONS, 'Deny when `payee_country` (Sanctions) is one of "IR", "KP", "SY", "CU", "RU"'),
    ],
)
def test_readings_are_rendered_from_structure(rule: str, reading: str) -> None:
    assert compile_rule(0, "c:r0", rule).checks[0].reading() == reading


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (ESCROW, "escrow.disburse", {"disbursement_type": "property_tax"}, "approved"),
        (ESCROW, "escrow.disburse", {"disbursement_type": "HOA-dues"}, "approved"),
        (ESCROW, "escrow.disburse", {"disbursement_type": "windstorm_insurance"}, "pending_review"),
        (ESCROW, "escrow.disburse", {"disbursement_type": "borrower_refund"}, "denied"),
        (ESCROW, "escrow.disburse", {"disbursement_type": "disbursement_type"}, "denied"),
        (ESCROW, "escrow.disburse", {"amount": 10}, "pending_review"),
        (ESCROW, "escrow.disburse", {"disbursement_type": 3}, "pending_review"),
        (CARRIERS, "ship.label", {"carrier": "fedex"}, "approved"),
        (CARRIERS, "ship.label", {"carrier": "DHL Freight"}, "pending_review"),
        (METHOD, "ap.pay", {"method": "card"}, "denied"),
        (DOMESTIC, "wire.send", {"beneficiary_country": "US", "purpose": "x"}, "approved"),
        (DOMESTIC, "wire.send", {"beneficiary_country": "MX", "purpose": "US"}, "denied"),
        (DOMESTIC, "wire.send", {"beneficiary_country": "PR"}, "pending_review"),
        (LEASE, "lease.create", {"term_months": 24}, "approved"),
        (LEASE, "lease.create", {"term_months": 25}, "denied"),
        (LEASE, "lease.create", {"term_months": "12"}, "approved"),
        (LEASE, "lease.create", {"term_months": True}, "pending_review"),
        (GROUP, "group.book", {"pax_count": 9}, "denied"),
        (REST, "crew.assign", {"rest_hours_before": 10}, "approved"),
        (REST, "crew.assign", {"rest_hours_before": 9.9}, "denied"),
        (DUTY, "crew.assign", {"duty_hours": 13}, "approved"),
        (DUTY, "crew.assign", {"duty_hours": 13.5}, "denied"),
        (TICKETS, "ticket.refund", {"days_since_issue": 366}, "denied"),
        (TICKETS, "ticket.exchange", {"days_since_issue": 366}, "pending_review"),
        (SANCTIONS, "pay.send", {"payee_country": "KP"}, "denied"),
        (SANCTIONS, "pay.send", {"payee_country": "FR"}, "approved"),
        (COMPS, "comp.issue", {"rate_type": "group_rate"}, "denied"),
        (COMPS, "comp.issue", {"rate_type": "group"}, "pending_review"),
        (COMPS, "comp.issue", {"rate_type": "bar"}, "approved"),
        (OUTAGE, "credit.issue", {"outage_hours": 24}, "approved"),
        (OUTAGE, "credit.issue", {"outage_hours": 23.9}, "denied"),
        (OUTAGE, "credit.issue", {"hours": 30}, "pending_review"),
    ],
)
def test_outcomes(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        (
            "validity_months: 12 max",
            {"validity_months": 12, "amount": 150, "currency": "EUR"},
            "approved",
        ),
        (
            "validity_months: 12 max",
            {"validity_months": 13, "amount": 5, "currency": "EUR"},
            "denied",
        ),
        ("validity_months: 12 max", {"amount": 5, "currency": "EUR"}, "pending_review"),
        ("Vendor codes: duration_hours <= 72.", {"duration_hours": 72}, "approved"),
        ("Vendor codes: duration_hours <= 72.", {"duration_hours": 73}, "denied"),
    ],
)
def test_a_labelled_bound_compares_the_named_argument_not_the_amount(
    rule: str, args: dict, expected: str
) -> None:
    tool = "access.grant_vendor_code" if "Vendor" in rule else "voucher.issue"
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize(
    "rule",
    [
        "R4 - No block billing (block_billed_entries must be 0).",
        "Only approved payment rails (rail).",
        "Escrow pays only the listed items (disbursement_type).",
    ],
)
def test_an_argument_name_is_never_a_value(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert not compiled.decides, compiled.checks


def test_a_list_of_values_in_brackets_is_not_an_argument_name() -> None:
    rule = "Do not export data to personal email addresses (gmail.com, yahoo.com, hotmail.com)."
    assert compile_rule(0, "c:r0", rule).understanding == "understood"


@pytest.mark.parametrize(
    "rule",
    [
        "Holds without deposit: 7 days max (hold_days).",
        "Trial length: 14 days max (trial_days) unless sales director approves.",
        "Shipping carriers: approved carriers only (carrier).",
        "Min notice for maintenance: 48 hours (notice_days).",
    ],
)
def test_what_the_grammar_does_not_read_never_decides(rule: str) -> None:
    assert not any(
        isinstance(c, NamedBound | NamedList) for c in compile_rule(0, "c:r0", rule).checks
    )


@settings(max_examples=80, deadline=None)
@given(rule=st.sampled_from(UNDERSTOOD), qualifier=st.sampled_from(APPENDED_QUALIFIERS))
def test_an_appended_qualifier_leaves_the_rule_partly_understood(rule: str, qualifier: str) -> None:
    assert_qualified_never_decides(rule, qualifier)


_CONDITIONS = st.sampled_from(
    ["without deposit", "for new customers", "unless waived", "when flagged", "except VIP"]
)


@settings(max_examples=60, deadline=None)
@given(rule=st.sampled_from([ESCROW, CARRIERS, LEASE, HOLDS]), cond=_CONDITIONS)
def test_a_condition_in_the_subject_is_never_dropped(rule: str, cond: str) -> None:
    head, colon, tail = rule.partition(":")
    assert_never_decides(f"{head} {cond}{colon}{tail}")


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(min_value=0, max_value=40),
    low=st.integers(min_value=1, max_value=15),
    span=st.integers(min_value=0, max_value=15),
)
def test_a_range_is_inclusive_at_both_ends(n: int, low: int, span: int) -> None:
    high = low + span
    rule = f"Lease terms: {low} to {high} months inclusive (term_months)."
    got = outcome_beside_ticket(rule, "lease.create", {"term_months": n})
    assert got == ("approved" if low <= n <= high else "denied"), (rule, n)
