"""Helper jwhose: a state of the party written as a relative clause or a prepositional phrase,
bound to one argument (`PartyState`): 'only to vendors whose status is Active', 'who have opted
in', 'for deactivated users', 'on a reseller or wholesale plan', 'only if the prescription is
still active', 'unless MFA is enrolled on their account'; and a bound on a score ('whose risk
score is 7 or higher (scale 0-10)'). Every near-miss must not approve."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import (
    APPENDED_QUALIFIERS,
    assert_qualified_never_decides,
    outcome,
    outcome_beside_ticket,
)
from webapp.judge.compiler import compile_rule

VENDORS = "Payments may only be released to vendors whose status in the vendor master is Active."
SUPPLIERS = (
    "Purchase orders may only be raised against suppliers whose vendor master status is active."
)
ONLY_PAY = "Only pay vendors whose status is Active."
SCORE = "Never send to an address whose screening risk score is 7 or higher (scale 0-10)."
CREDIT = "No loans to applicants whose credit score is below 600."
MFA = "Users may not be granted the Admin role unless MFA is enrolled on their account."
PLAN = "Goodwill credits must not be given to customers on a reseller or wholesale plan."
CREDITS = "Credits must not be issued to customers on a reseller or wholesale plan."
KEYS = "Keys may not be created for deactivated users."
CHARTS = "Agents may only open the charts of patients who have an active encounter."
OPTED = "Marketing emails may only be sent to contacts who have opted in."
REFILL = "A refill may only be authorised if the prescription is still active."

UNDERSTOOD = [
    VENDORS,
    SUPPLIERS,
    ONLY_PAY,
    SCORE,
    CREDIT,
    MFA,
    PLAN,
    CREDITS,
    KEYS,
    CHARTS,
    OPTED,
    REFILL,
]


@pytest.mark.parametrize("rule", UNDERSTOOD)
def test_the_rules_are_understood(rule: str) -> None:
    assert compile_rule(0, "c:r0", rule).understanding == "understood", rule


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # an allow-only on the party's status
        (VENDORS, "payments.release", {"vendor_status": "Active"}, "approved"),
        (VENDORS, "payments.release", {"vendor_status": "ACTIVE"}, "approved"),
        (VENDORS, "payments.release", {"vendor": {"status": "active"}}, "approved"),
        (VENDORS, "payments.release", {"vendor_status": "Inactive"}, "denied"),
        (VENDORS, "payments.release", {"vendor_status": "suspended"}, "denied"),
        (VENDORS, "payments.release", {}, "pending_review"),  # not shown
        (VENDORS, "payments.release", {"vendor_status": "pending_activation"}, "pending_review"),
        (VENDORS, "payments.release", {"vendor_status": "not active"}, "pending_review"),
        (VENDORS, "payments.release", {"vendor_status": True}, "pending_review"),
        (VENDORS, "payments.release", {"note": "vendor status is Active"}, "pending_review"),
        # two candidates: the bare status may be the payment's own, or the vendor's
        (
            ONLY_PAY,
            "ap.invoice.pay",
            {"vendor_status": "Active", "status": "blocked"},
            "pending_review",
        ),
        # another party's status says nothing of the vendor
        (ONLY_PAY, "ap.invoice.pay", {"invoice": {"status": "Active"}}, "pending_review"),
        (SUPPLIERS, "procurement.po.create", {"supplier_status": "active"}, "approved"),
        (SUPPLIERS, "procurement.po.create", {"supplier_status": "SUSPENDED"}, "pending_review"),
        # a bound on a score, at the boundary
        (SCORE, "crypto.withdraw.send", {"address": "bc1q", "screening_risk_score": 3}, "approved"),
        (SCORE, "crypto.withdraw.send", {"address": "bc1q", "screening_risk_score": 7}, "denied"),
        (
            SCORE,
            "crypto.withdraw.send",
            {"address": "bc1q", "screening_risk_score": 6.9},
            "approved",
        ),
        (SCORE, "crypto.withdraw.send", {"address": "bc1q", "amount": 0.5}, "pending_review"),
        # the score, never the amount ('below 600' had compared a 1,000 loan amount)
        (
            CREDIT,
            "lending.loan.approve",
            {"applicant_id": "A-1", "credit_score": 599, "amount": 1000},
            "denied",
        ),
        (
            CREDIT,
            "lending.loan.approve",
            {"applicant_id": "A-1", "credit_score": 600, "amount": 100},
            "approved",
        ),
        # unless a state of the party
        (MFA, "iam.role.grant", {"role": "Admin", "mfa_enrolled": True}, "approved"),
        (MFA, "iam.role.grant", {"role": "Admin", "mfa_enrolled": False}, "denied"),
        (MFA, "iam.role.grant", {"role": "Admin"}, "pending_review"),
        (MFA, "iam.role.grant", {"role": "Admin", "mfa_enrolled": "no"}, "pending_review"),
        (MFA, "iam.role.grant", {"role": "Viewer", "mfa_enrolled": False}, "approved"),
        # a deny-list on the party's plan
        (
            CREDITS,
            "billing.credit.issue",
            {"customer_id": "c", "plan": "consumer_plus"},
            "approved",
        ),
        (CREDITS, "billing.credit.issue", {"customer_id": "c", "plan": "Wholesale"}, "denied"),
        (CREDITS, "billing.credit.issue", {"customer_id": "c", "plan": "reseller"}, "denied"),
        (
            CREDITS,
            "billing.credit.issue",
            {"customer_id": "c", "plan": "partner_pro"},
            "pending_review",
        ),
        (
            CREDITS,
            "billing.credit.issue",
            {"customer_id": "c", "plan": "reseller_trial"},
            "pending_review",
        ),
        (CREDITS, "billing.credit.issue", {"customer_id": "c"}, "pending_review"),
        # 'given' is not the tool's act ('issue'), but the request carries the customer's plan:
        # another plan passes; the plan the rule forbids, or one it cannot place, goes to review
        (PLAN, "support.goodwill_credit.issue", {"plan": "consumer_plus"}, "approved"),
        (PLAN, "support.goodwill_credit.issue", {"plan": "Wholesale"}, "pending_review"),
        (PLAN, "support.goodwill_credit.issue", {"plan": "partner_pro"}, "pending_review"),
        # an adjective of state before the party
        (KEYS, "iam.key.create", {"user_id": "u", "user_state": "active"}, "approved"),
        (KEYS, "iam.key.create", {"user_id": "u", "user_status": "Deactivated"}, "denied"),
        (KEYS, "iam.key.create", {"user_id": "u"}, "pending_review"),
        (
            KEYS,
            "iam.key.create",
            {"user_id": "u", "user_state": "deactivation_pending"},
            "pending_review",
        ),
        # who have …
        (CHARTS, "ehr.chart.open", {"patient_id": "p", "encounter_status": "active"}, "approved"),
        (CHARTS, "ehr.chart.open", {"patient_id": "p", "has_active_encounter": True}, "approved"),
        (CHARTS, "ehr.chart.open", {"patient_id": "p", "encounter_status": "closed"}, "denied"),
        (CHARTS, "ehr.chart.open", {"patient_id": "p"}, "pending_review"),
        (OPTED, "email.marketing.send", {"contact_id": "c", "opted_in": True}, "approved"),
        (OPTED, "email.marketing.send", {"contact_id": "c", "opted_in": False}, "denied"),
        (OPTED, "email.marketing.send", {"contact_id": "c", "opted_in": "true"}, "pending_review"),
        (OPTED, "email.marketing.send", {"contact_id": "c"}, "pending_review"),
        # only if the thing is in a state
        (REFILL, "pharmacy.refill.authorise", {"prescription_status": "active"}, "approved"),
        (REFILL, "pharmacy.refill.authorise", {"prescription_status": "expired"}, "denied"),
        (REFILL, "pharmacy.refill.authorise", {}, "pending_review"),
    ],
)
def test_the_party_state_decides_only_when_shown(
    rule: str, tool: str, args: dict, expected: str
) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


def test_purchase_orders_read_po_create_by_its_initials() -> None:
    # the requisition rule had passed po_create by, since 'purchase orders' is not 'po'
    rules = [
        "Every purchase order must reference an approved requisition number.",
        SUPPLIERS,
    ]
    got = outcome(rules, "po_create", {"supplier_id": "S-1", "supplier_status": "active"})
    assert got != "approved"


@pytest.mark.parametrize(
    "rule",
    [
        "Only senior agents may pay vendors whose status is Active.",  # 'only' bounds who acts
        "Payments may only be released by Treasury to vendors whose status is Active.",
    ],
)
def test_only_that_bounds_more_than_the_party_is_not_read_as_its_state(rule: str) -> None:
    for c in compile_rule(0, "c:r0", rule).checks:
        assert type(c).__name__ != "PartyState", rule


def test_readings_say_which_argument_and_state() -> None:
    (check,) = compile_rule(0, "c:r0", PLAN).checks
    reading = check.reading()
    assert "the customer's plan is 'reseller' or 'wholesale'" in reading
    assert "`plan`" in reading
    (check,) = compile_rule(0, "c:r0", SCORE).checks
    assert "the screening risk score is at or above 7" in check.reading()


_QUALIFIERS = st.sampled_from(APPENDED_QUALIFIERS)


@settings(max_examples=40, deadline=None)
@given(rule=st.sampled_from(UNDERSTOOD), qualifier=_QUALIFIERS)
def test_an_inserted_condition_leaves_the_rule_partly_understood(rule: str, qualifier: str) -> None:
    assert_qualified_never_decides(rule, qualifier)


_STATE_WORDS = ["active", "inactive", "suspended", "closed", "blocked", "pending", "expired"]


@settings(max_examples=60, deadline=None)
@given(
    state=st.sampled_from(_STATE_WORDS),
    case=st.sampled_from([str.lower, str.upper, str.title]),
    extra=st.sampled_from(["", "pre_", "not_", "_review"]),
)
def test_only_the_state_itself_approves(state: str, case, extra: str) -> None:
    value = case(f"{extra}{state}" if extra.endswith("_") else f"{state}{extra}")
    got = outcome_beside_ticket(VENDORS, "payments.release", {"vendor_status": value})
    if extra:
        # a word added to a state never approves; added to the rule's own state a human decides
        assert got != "approved", value
        if state == "active":
            assert got == "pending_review", value
    elif state == "active":
        assert got == "approved", value
    else:
        assert got == "denied", value


@settings(max_examples=40, deadline=None)
@given(score=st.floats(min_value=0, max_value=10, allow_nan=False))
def test_the_score_decides_on_its_side_of_the_bound(score: float) -> None:
    got = outcome_beside_ticket(
        SCORE, "crypto.withdraw.send", {"address": "bc1q", "screening_risk_score": score}
    )
    assert got == ("denied" if score >= 7 else "approved")
