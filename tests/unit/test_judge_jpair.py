"""Two arguments compared, and status values on a named argument (helper jpair, pairs.py).

Vectors: rule text + request -> outcome and reading, for each shape read and each near-miss
(values that differ only by case or white space, one argument missing, both empty, a sum off by
one cent, a status close to a listed one). Properties: an inserted clause or qualifier leaves the
rule partly understood; a value just off the listed one or just off the other sum is never
approved.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import assert_never_decides, outcome_beside_ticket
from webapp.judge.compiler import compile_rule
from webapp.judge.wrongreads import compare_values

SOD = "preparer_id must differ from approver_id (SoD)"
REFUND = "1) refund_method must match original_method"
JE = "JE must balance (total_debits == total_credits); unbalanced = reject"
PAYOUT = "payout_amount must equal invoice_amount - no partials, no overpaying"
SELF = "An approver can't sign off their own claim - approver_id must not equal submitter_id."
ROLES = "requester and approver must not be the same person"
CHANGE = "author_id != reviewer_id  (no self-review)"
GRANT = "No payments to grantees whose grantee_status is suspended or under_investigation"
VENDOR = "Only vendors with vendor_status = approved (not pending, not blocked)"
UTIL = "Never adjust accounts in collections or shutoff_pending status"
STATE = "account_state must be active"
ROLE_GRANT = "Role assignment requires user_status == active; disabled or locked users -> deny"
ON_HOLD = "user_status != on_hold"
CASES = "Payments must not be issued to cases in Closed status."
CREDITS = "Credits to accounts in collections status are prohibited."


def _reading(text: str) -> list[str]:
    rule = compile_rule(0, "c:r0", text)
    assert rule.understanding == "understood", (text, rule.unaccounted)
    return [c.reading() for c in rule.checks]


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        (SOD, "Deny when `preparer_id` and `approver_id` hold the same value"),
        (REFUND, "Deny when `refund_method` and `original_method` hold different values"),
        (JE, "Deny when `total_debits` and `total_credits` hold different values"),
        (PAYOUT, "Deny when `payout_amount` and `invoice_amount` hold different values"),
        (SELF, "Deny when `approver_id` and `submitter_id` hold the same value"),
        (CHANGE, "Deny when `author_id` and `reviewer_id` hold the same value"),
        (ROLES, "Deny when the requester and the approver"),
        (GRANT, "Deny when `grantee_status` is suspended or under_investigation"),
        (VENDOR, "Deny unless `vendor_status` is approved"),
        (UTIL, "Deny when the account's status (an argument named `status` or `account_status`)"),
        # read by inline.py, which owns it ('offer_status must be extended or accepted')
        (STATE, 'Deny unless `account_state` is "active"'),
        (ROLE_GRANT, "Deny unless `user_status` is active"),
        (ON_HOLD, "Deny when `user_status` is on_hold"),
        ("3. invoice_currency must be the same as po_currency", "hold different values"),
    ],
)
def test_reading(text: str, reading: str) -> None:
    assert any(r.startswith(reading) or reading in r for r in _reading(text))


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        # two arguments that must differ
        (SOD, {"preparer_id": "u-1021", "approver_id": "u-3310"}, "approved"),
        (SOD, {"preparer_id": "u-1021", "approver_id": "u-1021"}, "denied"),
        # the same id up to case or white space is the same person: deny, never approve
        (SOD, {"preparer_id": "JSmith", "approver_id": " jsmith"}, "denied"),
        (SOD, {"preparer_id": "J  Smith", "approver_id": "j smith"}, "denied"),
        # one id written with other separators: one person or two, a human decides
        (SOD, {"preparer_id": "u-1021", "approver_id": "u_1021"}, "pending_review"),
        (SOD, {"preparer_id": "u-1021"}, "pending_review"),
        (SOD, {"preparer_id": "", "approver_id": ""}, "pending_review"),
        (SOD, {"preparer_id": "u-1", "approver_id": None}, "pending_review"),
        (SOD, {"preparer_id": ["u-1"], "approver_id": "u-1"}, "pending_review"),
        (CHANGE, {"author_id": "dev-4", "reviewer_id": "dev-4"}, "denied"),
        (CHANGE, {"author_id": "dev-4", "reviewer_id": "dev-9"}, "approved"),
        (SELF, {"submitter_id": "emp-77", "approver_id": "EMP-77"}, "denied"),
        (SELF, {"submitter_id": "emp-77", "approver_id": "emp-12"}, "approved"),
        (ROLES, {"requester_id": "alice", "approver_id": "alice"}, "denied"),
        (ROLES, {"requester_email": "A@x.com", "approver_email": "a@x.com"}, "denied"),
        (ROLES, {"requester_id": "alice", "approver_id": "bob"}, "approved"),
        (ROLES, {"requester_id": "alice"}, "pending_review"),
        # two arguments for one role: which one is the approver is a human's call
        (ROLES, {"requester_id": "a", "approver_id": "b", "approver_email": "a"}, "pending_review"),
        # two arguments that must match
        (REFUND, {"refund_method": "card", "original_method": "card"}, "approved"),
        (REFUND, {"refund_method": "Card ", "original_method": "card"}, "approved"),
        (REFUND, {"refund_method": "store_credit", "original_method": "card"}, "denied"),
        (REFUND, {"refund_method": "card"}, "pending_review"),
        (REFUND, {"refund_method": "", "original_method": ""}, "pending_review"),
        (REFUND, {"method": "card", "amount": 5}, "pending_review"),
        # sums compare as numbers
        (JE, {"total_debits": 15230.40, "total_credits": 15230.40}, "approved"),
        (JE, {"total_debits": 15230.4, "total_credits": "15230.40"}, "approved"),
        (JE, {"total_debits": 15230.40, "total_credits": 15230.39}, "denied"),
        (JE, {"total_debits": 15230.40}, "pending_review"),
        (JE, {"total_debits": "1,000.00", "total_credits": 1000}, "pending_review"),
        (JE, {"total_debits": True, "total_credits": True}, "pending_review"),
        (PAYOUT, {"payout_amount": 980.01, "invoice_amount": 980.00}, "denied"),
        (PAYOUT, {"payout_amount": 980, "invoice_amount": 980.00}, "approved"),
        # a deny-list of states
        (GRANT, {"grantee_status": "active"}, "approved"),
        (GRANT, {"grantee_status": "SUSPENDED"}, "denied"),
        (GRANT, {"grantee_status": "Under Investigation"}, "denied"),
        (GRANT, {"grantee_status": "suspended_pending"}, "pending_review"),
        (GRANT, {"grantee_status": "not_suspended"}, "pending_review"),
        (GRANT, {"grantee_status": ""}, "pending_review"),
        (GRANT, {"grantee_id": "ORG-5"}, "pending_review"),
        (
            GRANT,
            {"grantee_status": "active", "payee_grantee_status": "suspended"},
            "pending_review",
        ),
        # an allow-list of one state, restated by its bracket
        (VENDOR, {"vendor_status": "approved"}, "approved"),
        (VENDOR, {"vendor_status": "pending"}, "denied"),
        (VENDOR, {"vendor_status": "unapproved"}, "denied"),
        (VENDOR, {"vendor_status": "approved_pending_review"}, "pending_review"),
        (VENDOR, {"vendor_status": "preapproved"}, "pending_review"),
        (VENDOR, {"vendor_id": "V-1"}, "pending_review"),
        (VENDOR, {"vendor_status": 1}, "pending_review"),
        # the status argument sought
        (UTIL, {"account_status": "active"}, "approved"),
        (UTIL, {"account_status": "collections"}, "denied"),
        (UTIL, {"account_status": "pre_collections"}, "pending_review"),
        (UTIL, {"account_id": "UA-1"}, "pending_review"),
        (UTIL, {"account_status": "active", "status": "collections"}, "pending_review"),
        # inline.py compares the value as written: another case is a human's
        (STATE, {"account_state": "Active"}, "pending_review"),
        (STATE, {"account_state": "inactive"}, "denied"),
        (STATE, {"account_state": "dormant"}, "denied"),
        (ROLE_GRANT, {"user_status": "locked"}, "denied"),
        (ON_HOLD, {"user_status": "On_Hold"}, "denied"),
        (ON_HOLD, {"user_status": "active"}, "approved"),
    ],
)
def test_outcome(rule: str, args: dict, expected: str) -> None:
    # the act a rule names ('adjust', 'payments', 'role assignment') is the tool's
    tool = {
        UTIL: "billing.adjust_account",
        GRANT: "grants.disburse_payment",
        ROLE_GRANT: "iam.assign_role",
    }.get(rule, "ops.payments.submit")
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        (CASES, {"case_status": "Closed"}, "denied"),
        (CASES, {"case_status": "open"}, "approved"),
        (CASES, {"case_status": "closed_pending"}, "pending_review"),
        (CASES, {"case_id": "C-1"}, "pending_review"),
        (CREDITS, {"account_status": "collections"}, "denied"),
        (CREDITS, {"account_status": "current"}, "approved"),
    ],
)
def test_act_to_party_in_status(rule: str, args: dict, expected: str) -> None:
    tool = "benefits.issue_payment" if rule == CASES else "billing.issue_credit"
    assert outcome_beside_ticket(rule, tool, args) == expected


def test_bare_status_on_another_things_tool() -> None:
    # a bare `status` on a tool named for another thing may be that thing's: it shows a listed
    # state (deny), it rules none out (review)
    assert outcome_beside_ticket(UTIL, "billing.credit.adjust", {"status": "active"}) == (
        "pending_review"
    )
    assert outcome_beside_ticket(UTIL, "billing.adjust_account", {"status": "active"}) == (
        "approved"
    )


@pytest.mark.parametrize(
    "text",
    [
        "ship_to_country must equal billing_country unless the customer passed manual KYC",
        "requester and approver must not be the same person for prod roles",
        "payment_method must equal bank_transfer",
        "Foreign JEs must balance (total_debits == total_credits)",
        "refund_method must match original_method (SoD)",
    ],
)
def test_left_partly_understood(text: str) -> None:
    assert_never_decides(text)


_INSERTS = (
    " for privileged vendors",
    " unless the CFO approves",
    " when the amount is over 500 USD",
    " except for intercompany runs",
    " if the customer asks",
    " within 30 days",
)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(
        [SOD, REFUND, JE, GRANT, VENDOR, UTIL, STATE, ROLES, CHANGE, ON_HOLD, CASES, CREDITS]
    ),
    st.sampled_from(_INSERTS),
)
def test_inserted_clause_leaves_rule_partly_understood(rule: str, insert: str) -> None:
    assert_never_decides(rule.rstrip(".") + insert)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=10**9), st.integers(min_value=1, max_value=99))
def test_sum_off_by_cents_never_approved(cents: int, off: int) -> None:
    debits = cents / 100
    credits = (cents + off) / 100
    got = outcome_beside_ticket(
        JE, "gl.post_journal", {"total_debits": debits, "total_credits": credits}
    )
    assert got != "approved"


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["suspended", "under_investigation"]),
    st.sampled_from(["_pending", "_review", "pre_", "x", "_2"]),
)
def test_status_near_a_listed_one_never_approved(state: str, extra: str) -> None:
    value = extra + state if extra.endswith("_") else state + extra
    got = outcome_beside_ticket(GRANT, "grants.disburse_payment", {"grantee_status": value})
    assert got != "approved"


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abcXYZ019-_ ", min_size=1, max_size=12))
def test_same_value_never_passes_a_pair_that_must_differ(value: str) -> None:
    # the same value on both sides, however written, is never approved
    got = outcome_beside_ticket(SOD, "ap.run", {"preparer_id": value, "approver_id": value.upper()})
    assert got != "approved"


def test_compare_values() -> None:
    assert compare_values("Card ", "card") is True
    assert compare_values("u-1", "u_1") is None
    assert compare_values(1, "1.0") is True
    assert compare_values("001", "1") is False
    assert compare_values(None, None) is None
    assert compare_values(True, True) is None
