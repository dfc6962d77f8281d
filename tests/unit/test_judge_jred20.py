"""Red-team of identified.py (jident) and pairs.py (jpair) (helper jred20).

Each vector is a rule beside the satisfied ticket rule, so a misreading shows as an approval.
Closed: a gloss naming the argument's owner rather than the argument ('the customer's export
licence (customer_id)'), a flag whose truth the rule may refuse read as "must be true"
('`is_blocked` mandatory'), a list of references with a blank or stand-in member, two ids that
differ only by a domain, directory or prefix ('jsmith', 'jsmith@corp.com'), a second witness of
the compared argument or status ('refund.method', 'grantee.status', 'service_status'), and
status values read as the rule's acts ('vendor_status = approved (not pending, not blocked),
except for new vendors').
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.compiler import compile_rule
from webapp.judge.wrongreads import compare_values

SOD = "preparer_id must differ from approver_id (SoD)"
ROLES = "requester and approver must not be the same person"
REFUND = "refund_method must match original_method"
GRANT = "No payments to grantees whose grantee_status is suspended or under_investigation"
VENDOR = "Only vendors with vendor_status = approved (not pending, not blocked)"
UTIL = "Never adjust accounts in collections or shutoff_pending status"
CREDITS = "Credits to accounts in collections status are prohibited."
ROLE_GRANT = "Role assignment requires user_status == active; disabled or locked users -> deny"


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # a gloss naming the owner, not the argument
        ("Shipments need the customer's export licence (customer_id)", "shipments.create",
         {"customer_id": "C-1"}, "pending_review"),
        ("Deny unless the vendor's insurance certificate is attached (`vendor_id`)",
         "vendors.pay", {"vendor_id": "V-1"}, "pending_review"),
        ("Refunds require the manager's approval (manager_id)", "refunds.issue",
         {"manager_id": "M-1"}, "pending_review"),
        ("Wires need a callback to the beneficiary - beneficiary_id", "wires.send",
         {"beneficiary_id": "B-1"}, "pending_review"),
        # still read: the gloss names the argument
        ("No shipment without a customs broker - broker_id must be filled in",
         "shipments.create", {"broker_id": "B-1182"}, "approved"),
        ("Batch release requires a Qualified Person - qp_id", "batches.release",
         {"qp_id": "QP-7"}, "approved"),
        # a flag whose truth the rule may refuse
        ("`is_blocked` mandatory", "ops.run", {"is_blocked": True}, "pending_review"),
        ("`kyc_passed` mandatory", "ops.run", {"kyc_passed": True}, "approved"),
        # a value that names no record, sent for a reference
        ("No shipment without a customs broker - broker_id must be filled in",
         "shipments.create", {"broker_id": "-1"}, "pending_review"),
        ("No shipment without a customs broker - broker_id must be filled in",
         "shipments.create", {"broker_id": "undefined"}, "pending_review"),
        ("Signed NDA required (nda_ref)", "contracts.share", {"nda_ref": True}, "pending_review"),
        ("`change_ticket` mandatory", "deploys.run", {"change_ticket": "verbal ok"},
         "pending_review"),
        ("`change_ticket` mandatory", "deploys.run", {"change_ticket": "yes"}, "pending_review"),
        ("`change_ticket` mandatory", "deploys.run", {"change_ticket": "CHG-20931"}, "approved"),
        ("approver_id must be provided", "vendors.pay", {"approver_id": "self"},
         "pending_review"),
        ("approver_id must be provided", "vendors.pay", {"approver_id": "jsmith"}, "approved"),
        # the requesting agent (the helper asks as 'agent') approving its own request
        ("approver_id must be provided", "vendors.pay", {"approver_id": "agent"},
         "pending_review"),
        # a list with a blank or stand-in member
        ("approver_id must be provided", "vendors.pay", {"approver_id": ["A-1", ""]},
         "pending_review"),
        ("approver_id must be provided", "vendors.pay", {"approver_id": ["A-1", "TBD"]},
         "pending_review"),
        ("approver_id must be provided", "vendors.pay", {"approver_id": ["A-1", "A-2"]},
         "approved"),
        # one person under two logins
        (SOD, "gl.post", {"preparer_id": "jsmith", "approver_id": "jsmith@corp.com"},
         "pending_review"),
        (SOD, "gl.post", {"preparer_id": "jsmith", "approver_id": "CORP\\jsmith"},
         "pending_review"),
        (SOD, "gl.post", {"preparer_id": "E1021", "approver_id": "1021"}, "pending_review"),
        (SOD, "gl.post", {"preparer_id": "jsmith", "approver_id": "mjones"}, "approved"),
        (ROLES, "access.grant", {"requester_email": "jsmith@corp.com", "approver_id": "jsmith"},
         "pending_review"),
        (ROLES, "access.grant",
         {"requester_id": "jsmith", "approver_id": "mjones", "approvers": ["jsmith"]},
         "pending_review"),
        (ROLES, "access.grant", {"requester_id": "jsmith", "approver_id": "mjones"}, "approved"),
        # a second witness of the compared argument or state
        (REFUND, "refunds.issue",
         {"refund_method": "card", "original_method": "card", "refund": {"method": "cash"}},
         "pending_review"),
        (REFUND, "refunds.issue", {"refund_method": "card", "original_method": "card"},
         "approved"),
        (GRANT, "grants.pay",
         {"grantee_status": "active", "grantee": {"status": "suspended"}, "amount": 100},
         "pending_review"),
        (GRANT, "grants.pay", {"grantee_status": "active", "status": "suspended", "amount": 1},
         "pending_review"),
        (GRANT, "grants.pay", {"grantee_status": "active", "amount": 100}, "approved"),
        (VENDOR, "vendors.pay", {"vendor_status": "approved", "vendor": {"status": "blocked"}},
         "pending_review"),
        (VENDOR, "vendors.pay", {"vendor_status": "approved", "payment_status": "blocked"},
         "approved"),
        (UTIL, "accounts.adjust",
         {"account_status": "active", "service_status": "shutoff_pending"}, "pending_review"),
        (UTIL, "accounts.adjust", {"status": "active", "billing_status": "collections"},
         "pending_review"),
        (UTIL, "accounts.adjust", {"account_status": "active"}, "approved"),
        (CREDITS, "accounts.credit",
         {"account_status": "active", "collection_status": "collections"}, "pending_review"),
        (ROLE_GRANT, "roles.assign", {"user_status": "active", "user_state": "locked"},
         "pending_review"),
        ("user_status != on_hold", "users.update",
         {"user_status": "active", "account_status": "on_hold"}, "approved"),
        # round 3: a second witness says otherwise
        ("Payouts only after KYC (kyc_passed = true)", "payouts.send",
         {"kyc_passed": True, "kyc_status": "failed"}, "pending_review"),
        ("Payouts only after KYC (kyc_passed = true)", "payouts.send",
         {"kyc_passed": True, "kyc_status": "cleared"}, "approved"),
        ("W-9 on file (`w9_on_file`) before any contractor payment", "payments.contractor",
         {"w9_on_file": True, "w9_status": "expired"}, "pending_review"),
        ("No shipment without a customs broker - broker_id must be filled in",
         "shipments.create", {"broker_id": "B-1", "broker_status": "revoked"}, "pending_review"),
        (SOD, "gl.post", {"preparer_id": "jsmith", "approver_id": "mjones",
                          "approved_by": "jsmith"}, "pending_review"),
        (ROLES, "access.grant", {"requester_id": "jsmith", "approver_id": "mjones",
                                 "approved_by": "jsmith"}, "pending_review"),
        ("consent_status must be granted", "data.share",
         {"consent_status": "granted", "consent_state": "withdrawn"}, "pending_review"),
        ("consent_status must be granted", "data.share", {"consent_status": "granted"},
         "approved"),
        (GRANT, "grants.pay", {"grantee_status": "active",
                               "grantee_flags": ["under_investigation"]}, "pending_review"),
        # round 4: a witness under another name
        ("`dry_run` must be true unless approved_by_cab = true", "ops.run",
         {"dry_run": False, "approved_by_cab": True, "cab_status": "rejected"}, "pending_review"),
        ("`dry_run` must be true unless approved_by_cab = true", "ops.run",
         {"dry_run": False, "approved_by_cab": True}, "approved"),
        ("Deny unless the receipt has been voided (`receipt_voided`)", "receipts.refund",
         {"receipt_voided": True, "receipt_status": "active"}, "pending_review"),
        (REFUND, "refunds.issue", {"refund_method": "card", "original_method": "card",
                                   "refund_methods": ["card", "cash"]}, "pending_review"),
        ("author_id != reviewer_id  (no self-review)", "code.merge",
         {"author_id": "jsmith", "reviewer_id": "mjones", "reviewers": ["jsmith", "mjones"]},
         "pending_review"),
        (VENDOR, "vendors.pay", {"vendor_status": "approved", "vendor_flags": ["blocked"]},
         "pending_review"),
        # status values are no acts of the rule
        (VENDOR + ", except for new vendors", "vendors.pay", {"vendor_status": "pending"},
         "pending_review"),
    ],
)  # fmt: skip
def test_vectors(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Shipments need the customer's export licence (customer_id)",
        "`is_blocked` mandatory",
    ],
)
def test_owner_gloss_and_refusable_flag_are_not_understood(text: str) -> None:
    assert not compile_rule(0, "c:r0", text).decides


def test_readings_kept() -> None:
    rule = compile_rule(0, "c:r0", "Batch release requires a Qualified Person - qp_id")
    assert rule.understanding == "understood"
    assert "`qp_id` (a Qualified Person) is missing" in rule.checks[0].reading()


_LOGIN = st.from_regex(r"[a-z]{3,8}", fullmatch=True)
_DOMAIN = st.sampled_from(["@corp.com", "@example.org", ""])
_DIRECTORY = st.sampled_from(["CORP\\", "user:", "ad/", ""])


@settings(max_examples=60, deadline=None)
@given(_LOGIN, _DOMAIN, _DIRECTORY)
def test_one_login_written_two_ways_is_never_told_apart(login: str, dom: str, dr: str) -> None:
    other = dr + login + dom
    if other != login:
        assert compare_values(login, other) is None
        assert (
            outcome_beside_ticket(SOD, "gl.post", {"preparer_id": login, "approver_id": other})
            != "approved"
        )


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["status", "service_status", "billing_status", "account.status"]),
    st.sampled_from(["collections", "shutoff_pending", "Collections", "shutoff-pending"]),
)
def test_a_listed_state_on_any_status_argument_is_never_approved(arg: str, state: str) -> None:
    args: dict = {"account_status": "active"}
    if arg == "account.status":
        args["account"] = {"status": state}
    else:
        args[arg] = state
    assert outcome_beside_ticket(UTIL, "accounts.adjust", args) != "approved"


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["the customer's", "the vendor's", "the owner's"]),
    st.sampled_from(["export licence", "insurance certificate", "approval", "signed waiver"]),
)
def test_a_thing_of_the_arguments_owner_is_never_approved_by_the_id(owner: str, thing: str) -> None:
    who = owner.split()[1].removesuffix("'s")
    rule = f"Shipments need {owner} {thing} ({who}_id)"
    assert outcome_beside_ticket(rule, "shipments.create", {f"{who}_id": "X-1"}) != "approved"
