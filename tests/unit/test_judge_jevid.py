"""Required references and approvals evidenced in the request (helper jevid, dev set dev_jevid).

- An approval the rule asks for is given when the request evidences it: in the argument the rule
  names ('put the approval ticket in treasury_approval_id', '(sre_approver)') or in one named for
  the approver and the approval ('a manager's approval' and `manager_approval`). Missing, empty,
  a stand-in, pending, refused, a flag, another role or the requesting agent keeps the review.
- The approval must be the rule's one obligation: a second one, a negation or a second approver
  reads as before (the review it had been covering stays).
- Either of two references ('a support ticket or the invoice number'), two references after
  'need' ('the order id AND tracking number'), 'may be issued only where it references X'.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket, policy
from webapp.judge.checks import AnyReference, ApprovalEvidence, NumericLimit
from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery

WIRE = (
    "Wires over $25,000 need Treasury sign-off - put the approval ticket in treasury_approval_id."
)
CREDIT = "Account credits of at least $200 need a manager's approval."
SRE = "Deploys of tier-1 services need an SRE approver listed (sre_approver)."
LEGAL = (
    "Where the refund amount is at least 750 USD, the refund may be processed only following the "
    "written approval of a payments manager, which must be evidenced in the request."
)
EITHER = (
    "A credit may be issued only where it references a support ticket or the invoice number to "
    "which it relates."
)
BOTH = "evidence submissions need the order id AND tracking number, no exceptions"

WIRE_ARGS = {"amount": 40000, "currency": "USD", "beneficiary": {"name": "T KK", "country": "JP"}}
CREDIT_ARGS = {"account_id": "acct_1", "amount": 350, "currency": "USD"}
GOOD = {"approved_by": "j.okafor", "approver_role": "Support Manager", "approval_id": "APR-1"}


def _alone(rule: str, tool: str, args: dict) -> str:
    """The clearance status of `tool(args)` under `rule` alone (a ticket rule beside it would
    give 'a support ticket' its `ticket_id`)."""
    v = evaluate(
        ClearanceQuery(tool, args, "agent"), [policy([rule])], StaticHistory.from_dict(None)
    )
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


def _rule(text: str):
    return compile_rule(0, "c:r0", text)


# -- readings


def test_an_evidenced_approval_is_understood_and_keeps_its_check_kind():
    rule = _rule(WIRE)
    assert rule.understanding == "understood"
    (check,) = rule.checks
    assert isinstance(check, NumericLimit) and isinstance(check, ApprovalEvidence)
    assert check.reading() == (
        "Send to review when the amount is above 25,000 USD (about: wires), unless "
        "`treasury_approval_id` evidences the approval (a value that is no stand-in and states no "
        "pending or refused outcome; an approver's role, when given, must be the treasury's)"
    )


def test_an_approval_found_by_its_name_says_whose_it_is():
    (check,) = _rule(CREDIT).checks
    assert "an argument named for the manager's approval evidences it" in check.reading()
    assert "at or above 200 USD" in check.reading()


def test_a_legalistic_approval_reads_its_condition_and_its_evidence():
    rule = _rule(LEGAL)
    assert rule.understanding == "understood", rule.unaccounted
    (check,) = rule.checks
    assert "at or above 750 USD" in check.reading()  # 'Where …' is a condition, not a floor
    assert "payments manager's approval" in check.reading()


def test_either_reference_and_both_references():
    rule = _rule(EITHER)
    assert rule.understanding == "understood", rule.unaccounted
    (check,) = rule.checks
    assert isinstance(check, AnyReference)
    assert check.reading() == (
        "Deny when `support ticket` and `invoice number` are all missing or empty (about: credit)"
    )
    both = _rule(BOTH)
    assert [c.reading() for c in both.checks] == [
        "Deny when `order id` is missing or empty (about: evidence)",
        "Deny when `tracking number` is missing or empty (about: evidence)",
    ]


# -- decisions


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (WIRE, "payments.wire.create", {**WIRE_ARGS, "treasury_approval_id": "TRS-1"}, "approved"),
        (WIRE, "payments.wire.create", WIRE_ARGS, "pending_review"),
        (WIRE, "payments.wire.create", {**WIRE_ARGS, "amount": 20000}, "approved"),
        (WIRE, "payments.wire.create", {**WIRE_ARGS, "amount": 25000}, "approved"),
        (WIRE, "payments.wire.create", {**WIRE_ARGS, "amount": 25001}, "pending_review"),
        (CREDIT, "billing.credits.issue", {**CREDIT_ARGS, "manager_approval": GOOD}, "approved"),
        (CREDIT, "billing.credits.issue", {**CREDIT_ARGS, "amount": 200}, "pending_review"),
        (CREDIT, "billing.credits.issue", {**CREDIT_ARGS, "amount": 199}, "approved"),
        (SRE, "deploy.release", {"service_tier": "tier-1", "sre_approver": "k.liu"}, "approved"),
        (SRE, "deploy.release", {"service_tier": "tier-1"}, "pending_review"),
        # no check reads the grade 'tier-1' (jred6: a numbered grade dropped from a reading
        # leaves the rule partly understood), so a tier-2 deploy is for a human, not approved
        (SRE, "deploy.release", {"service_tier": "tier-2"}, "pending_review"),
        (EITHER, "billing.credits.issue", {"amount": 50, "ticket_ref": "SUP-1"}, "approved"),
        (EITHER, "billing.credits.issue", {"amount": 50, "invoice_number": "INV-1"}, "approved"),
        (EITHER, "billing.credits.issue", {"amount": 50, "po_number": "PO-1"}, "denied"),
        (EITHER, "billing.credits.issue", {"amount": 50, "ticket_ref": "N/A"}, "pending_review"),
        (
            BOTH,
            "disputes.submit_evidence",
            {"evidence": {"order_id": "O", "tracking_number": "1Z"}},
            "approved",
        ),
        (BOTH, "disputes.submit_evidence", {"evidence": {"order_id": "O"}}, "denied"),
    ],
)
def test_decisions(rule, tool, args, expected):
    assert _alone(rule, tool, args) == expected


# -- near misses: the evidence is doubtful, or the approval is not the rule's one obligation


@pytest.mark.parametrize(
    ("rule", "args"),
    [
        (WIRE, {**WIRE_ARGS, "treasury_approval_id": ""}),
        (WIRE, {**WIRE_ARGS, "treasury_approval_id": None}),
        (WIRE, {**WIRE_ARGS, "treasury_approval_id": "pending"}),
        (WIRE, {**WIRE_ARGS, "treasury_approval_id": "N/A"}),
        (
            WIRE,
            {**WIRE_ARGS, "treasury_approval_id": "T-1", "treasury_approval_status": "rejected"},
        ),
        (CREDIT, {**CREDIT_ARGS, "manager_approval": "requested"}),
        (CREDIT, {**CREDIT_ARGS, "manager_approval": True}),
        (CREDIT, {**CREDIT_ARGS, "manager_approval": "yes"}),
        (CREDIT, {**CREDIT_ARGS, "manager_approval": ["APR-1"]}),
        (CREDIT, {**CREDIT_ARGS, "manager_approval": {**GOOD, "status": "pending"}}),
        (CREDIT, {**CREDIT_ARGS, "manager_approval": {**GOOD, "approver_role": "Support Agent"}}),
        (CREDIT, {**CREDIT_ARGS, "manager_approval": {**GOOD, "approved_by": ""}}),
        (CREDIT, {**CREDIT_ARGS, "manager_approval": {**GOOD, "approved_by": "agent"}}),
        (CREDIT, {**CREDIT_ARGS, "approval": GOOD}),  # whose approval?
        (CREDIT, {**CREDIT_ARGS, "sales_manager_approval": "APR-1"}),  # another manager
        (CREDIT, {**CREDIT_ARGS, "approved_by": "j.okafor"}),
        (
            "Refunds over $500 need approval from two managers.",
            {**CREDIT_ARGS, "amount": 800, "manager_approval_id": "APR-1"},
        ),
        (
            "Account credits of at least $200 need a manager's sign-off and a CFO approval.",
            {**CREDIT_ARGS, "manager_signoff": "M-1"},
        ),
    ],
)
def test_a_doubtful_approval_keeps_the_review(rule, args):
    tool = "payments.wire.create" if rule == WIRE else "billing.credits.issue"
    if rule.startswith("Refunds"):
        tool = "billing.refunds.create"
    assert outcome_beside_ticket(rule, tool, args) == "pending_review"


SECOND_OBLIGATIONS = (
    " and a callback verification",
    ", never for closed accounts",
    ", and never on Fridays",
    " unless the customer is new",
    " or a director",
)


@settings(max_examples=40, deadline=None)
@given(
    tail=st.sampled_from(SECOND_OBLIGATIONS),
    amount=st.integers(min_value=201, max_value=100_000),
)
def test_a_second_obligation_keeps_the_evidence_from_approving(tail, amount):
    """Property: an approval rule with anything after the approval (a second obligation, a
    condition, another approver) never approves on the evidence alone."""
    rule = "Account credits of at least $200 need a manager's approval" + tail + "."
    args = {**CREDIT_ARGS, "amount": amount, "account_status": "closed", "manager_approval": GOOD}
    assert outcome_beside_ticket(rule, "billing.credits.issue", args) != "approved"
    assert not any(isinstance(c, ApprovalEvidence) for c in _rule(rule).checks)


@settings(max_examples=40, deadline=None)
@given(amount=st.integers(min_value=1, max_value=100_000), evidenced=st.booleans())
def test_the_boundary_and_the_evidence_decide_together(amount, evidenced):
    """Property: at or above the bound only the evidence approves; below it the rule holds."""
    args = {**CREDIT_ARGS, "amount": amount}
    if evidenced:
        args["manager_approval"] = GOOD
    got = outcome_beside_ticket(CREDIT, "billing.credits.issue", args)
    assert got == ("approved" if amount < 200 or evidenced else "pending_review")


# -- a rule judged as text: its one obligation, an approval recorded in the argument it names,
# is met whatever its (unread) gate

GRANT = "Granting privileged roles needs approval from the Security team (security_approval_id)."


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        (GRANT, {"role": "Security Admin", "security_approval_id": "SEC-1"}, "approved"),
        (GRANT, {"role": "Security Admin"}, "pending_review"),
        (GRANT, {"role": "Security Admin", "security_approval_id": "pending"}, "pending_review"),
        (GRANT, {"role": "Security Admin", "security_approval_id": True}, "pending_review"),
        (GRANT, {"role": "Owner", "security_approval_id": "agent"}, "pending_review"),
        (
            "Granting privileged roles needs approval from the Security team and HR "
            "(security_approval_id).",
            {"role": "Owner", "security_approval_id": "SEC-1"},
            "pending_review",
        ),
        (
            "Granting privileged roles needs approval from Legal (security_approval_id).",
            {"role": "Owner", "security_approval_id": "SEC-1"},
            "pending_review",
        ),
    ],
)
def test_an_approval_named_in_brackets_meets_a_text_rule(rule, args, expected):
    assert _rule(rule).understanding == "partly_understood"
    assert outcome_beside_ticket(rule, "org.roles.assign", args) == expected


def test_a_gloss_whose_head_is_also_a_verb_is_read_whole():
    rule = _rule(
        "Prod deploys need a green CI run (ci_status = passed) and a linked change ticket."
    )
    assert [c.reading() for c in rule.checks] == [
        'Deny when `ci_status` (a green CI run) is not "passed" (about: prod deploys)',
        "Deny when `linked change ticket` is missing or empty (about: prod deploys)",
    ]
    args = {"environment": "production", "ci_status": "passed", "change_ticket": "CHG-1"}
    text = "Prod deploys need a green CI run (ci_status = passed) and a linked change ticket."
    assert _alone(text, "deploy.release", args) == "approved"
    assert _alone(text, "deploy.release", {**args, "ci_status": "running"}) == "denied"
    # the rule's act after a modal is never a gloss
    assert _rule("Jobs must run (queue = batch).").checks[0].reading().startswith("Deny when")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"amount": 5, "invoice_no": "INV-1"}, "approved"),
        ({"amount": 5, "ticket_id": "T-1"}, "approved"),
        ({"amount": 5, "invoice_date": "2025-01-01"}, "denied"),  # a date is no invoice number
        ({"amount": 5, "ticket_id": "TBD"}, "pending_review"),
        ({"amount": 5}, "denied"),
    ],
)
def test_a_headed_terse_either_reference(args, expected):
    rule = "credits: cite a ticket id or invoice no."
    assert _rule(rule).understanding == "understood"
    assert _alone(rule, "billing.credits.issue", args) == expected
