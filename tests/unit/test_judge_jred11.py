"""Compound restrictions labelled understood with one part dropped (jred11).

A rule with two restrictions was read as one of them: the party after 'only … by' ('Payments
may only be released by Treasury to vendors whose status is Active' read as the status alone),
the actor opening 'Only senior agents may …' (read as a value of an argument), 'Include no
customer PII.' (read as a prohibition of requests about PII, or a required field), a bare 'not
over $100 - supervisor' (read as a cap), a category before ': max …' ('Blacklisted exports: max
50k rows'), the party's state behind a preposition ('customers with open disputes', where the
dispute's state ruled the customer out), and a prohibited act dropped from a prohibition ('never
issue refunds' denied refund_status_get, a read). Each is now read whole or left partly
understood, so the part that was read never decides alone.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_support import outcome, outcome_beside_ticket, policy

from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery

TREASURY = "Payments may only be released by Treasury to vendors whose status is Active"
SENIOR = "Only senior agents may pay vendors whose status is Active"
DISPUTES = "Refunds above $100 to customers with open disputes need review"
TRIAL = "Discounts may not exceed 20% for customers in the trial tier"


def _as(agent: str, rules: list[str], tool: str, args: dict) -> str:
    v = evaluate(ClearanceQuery(tool, args, agent), [policy(rules)], StaticHistory.from_dict(None))
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # the party after 'only … by' is unread: the status alone never approves
        (TREASURY, "release_payment", {"vendor_status": "Active", "amount": 100}, "pending_review"),
        (TREASURY, "release_payment", {"vendor_status": "Suspended", "amount": 100}, "pending_review"),
        ("Reserve holds are set only by Risk for sellers whose status is Flagged", "set_hold",
         {"seller_status": "Flagged", "amount": 10}, "pending_review"),
        ("Vendor bank details may be changed only by Procurement, and only for vendors whose "
         "status is Active.", "update_vendor_bank", {"vendor_status": "Active"}, "pending_review"),
        # the actor opening the rule is unread: the status is no value of 'agents'
        (SENIOR, "pay_vendor", {"vendor_status": "Pending", "amount": 100}, "pending_review"),
        (SENIOR, "pay_vendor", {"vendor_status": "Active", "amount": 100}, "pending_review"),
        # what the content must not hold
        ("Include no customer PII.", "send_email",
         {"to": "a@example.com", "body": "Your SSN 123-45-6789 is on file"}, "pending_review"),
        ("Replies must include no customer PII.", "send_reply", {"body": "Fixed it."},
         "pending_review"),
        ("Exports should have no SSNs", "export_data", {"columns": ["name"]}, "pending_review"),
        # a bare negated bound and its role
        ("Waivers not over $100 - supervisor.", "issue_waiver", {"amount": 50}, "pending_review"),
        ("Credits not above 50 EUR: team lead.", "issue_credit", {"amount": 20, "currency": "EUR"},
         "pending_review"),
        # a category before a colon and a bound
        ("Blacklisted exports: max 50k rows", "export_data", {"rows": 100}, "pending_review"),
        ("High-risk payouts: at most $1,000", "create_payout", {"amount": 500}, "pending_review"),
        # the party's state behind a preposition
        (DISPUTES, "issue_refund", {"amount": 500, "dispute_status": "open"}, "pending_review"),
        (DISPUTES, "issue_refund", {"amount": 50, "dispute_status": "open"}, "approved"),
        ("Refunds above $100 for customers with open disputes are forbidden", "issue_refund",
         {"amount": 500, "dispute_status": "open"}, "pending_review"),
        (TRIAL, "apply_discount", {"discount_pct": 30, "tier": "trial"}, "pending_review"),
        (TRIAL, "apply_discount", {"discount_pct": 10, "tier": "trial"}, "approved"),
        ("Credits over $50 may not be issued to accounts on probation", "issue_credit",
         {"amount": 500, "account_status": "probation"}, "denied"),
        ("Credits over $50 may not be issued to accounts on probation", "issue_credit",
         {"amount": 500, "account_status": "active"}, "approved"),
        # the act carried into 'but not to <party>'
        ("Agents may issue refunds up to $100 but not to customers flagged for fraud",
         "issue_refund", {"amount": 50, "fraud_flag": True}, "denied"),
        ("Agents may issue refunds up to $100 but not to customers flagged for fraud",
         "issue_refund", {"amount": 50, "fraud_flag": False}, "approved"),
        ("Agents may issue refunds up to $100 but not to customers flagged for fraud",
         "issue_refund", {"amount": 150, "fraud_flag": False}, "denied"),
        # a time next to an event, clock times as values
        ("Trades over 1M are forbidden in the last hour before close", "place_trade",
         {"notional": 2000000}, "pending_review"),
        ("Deploys are allowed only on weekdays between 9:00 and 17:00", "deploy",
         {"env": "prod", "time": "9:00"}, "pending_review"),
        # the qualified party of a bounded permission
        ("Support may refund up to $75 on orders placed with a credit card", "issue_refund",
         {"amount": 50, "payment_method": "paypal"}, "pending_review"),
        ("Waive late fees up to $30 for customers with no prior waivers", "waive_fee",
         {"amount": 20, "prior_waivers": 3}, "pending_review"),
        ("Bots may approve invoices up to $2,000 from approved vendors", "approve_invoice",
         {"amount": 1000, "vendor_status": "pending"}, "pending_review"),
        ("Agents may issue refunds up to $100", "issue_refund", {"amount": 50}, "approved"),
        # 'only' on the amount of what goes somewhere, not on the place
        ("Only transfers under $1,000 may go to Belarus", "wire_transfer",
         {"amount": 5000, "country": "BY"}, "pending_review"),
        ("Only orders under $500 may ship to Mexico", "ship_order", {"amount": 900, "country": "MX"},
         "pending_review"),
        ("Orders under $500 may only ship to the US", "ship_order", {"amount": 300, "country": "MX"},
         "denied"),
    ],
)  # fmt: skip
def test_no_part_of_a_compound_rule_is_dropped(rule, tool, args, expected):
    assert outcome([rule], tool, args) == expected


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # a read of the thing is not the forbidden act
        ("Agents must never issue refunds", "refund_status_get", {"refund_id": "r1"}, "approved"),
        ("Bots may not approve invoices", "get_invoice", {"invoice_id": "i1"}, "approved"),
        ("Never approve refunds", "refund_lookup", {"refund_id": "r1"}, "approved"),
        # the act itself, and a read that also acts, still are
        ("Agents must never issue refunds", "issue_refund", {"amount": 5}, "denied"),
        ("Bots may not approve invoices", "approve_invoice", {"invoice_id": "i1"}, "denied"),
        ("Agents must never issue refunds", "get_and_issue_refund", {"refund_id": "r1"}, "denied"),
        # 'Include no customer PII' beside a satisfied rule: the message with an SSN is reviewed
        ("Include no customer PII.", "send_email",
         {"to": "a@example.com", "body": "Your SSN 123-45-6789 is on file"}, "pending_review"),
    ],
)  # fmt: skip
def test_beside_a_satisfied_rule(rule, tool, args, expected):
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize(
    ("rules", "agent", "args", "expected"),
    [
        # the rules read whole as before: a closed list the 'by' phrase gives is still read
        (["Employee records may only be viewed by requesters in the hr-ops group."], "hr-agent",
         {"employee_id": "E-9", "requester_group": "hr-ops"}, "approved"),
        (["Employee records may only be viewed by requesters in the hr-ops group."], "hr-agent",
         {"employee_id": "E-9", "requester_group": "finance"}, "denied"),
    ],
)  # fmt: skip
def test_a_party_read_as_a_list_stays_read(rules, agent, args, expected):
    assert _as(agent, rules, "view_employee_record", args) == expected


def test_contain_no_more_than_is_a_cap():
    """'contain no more than N' is the limit, never a content restriction left unread."""
    rule = "Exports must contain no more than 1,000 rows"
    assert compile_rule(0, "c:r0", rule).understanding == "understood"
    assert outcome([rule], "export_data", {"rows": 5000}) == "denied"
    assert outcome([rule], "export_data", {"rows": 500}) == "approved"


def test_readings_name_what_is_left():
    for rule, left in (
        (TREASURY, {"by", "treasury"}),
        (SENIOR, {"only", "senior", "agents"}),
        ("Include no customer PII.", {"include", "no"}),
        ("Waivers not over $100 - supervisor.", {"not"}),
        ("Blacklisted exports: max 50k rows", {"blacklisted"}),
    ):
        compiled = compile_rule(0, "c:r0", rule)
        assert compiled.understanding == "partly_understood", rule
        assert left <= {w.lower() for w in compiled.unaccounted}, (rule, compiled.unaccounted)


_PARTIES = ("Treasury", "Risk", "the AP team", "Procurement", "treasury-bot", "a support lead")
_ACTS = ("released", "paid", "approved", "changed", "issued")
_STATES = ("Active", "Verified", "Approved", "Open")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_PARTIES), st.sampled_from(_ACTS), st.sampled_from(_STATES))
def test_a_party_after_only_by_never_leaves_the_state_to_decide(party, act, state):
    """Whoever the party, the act and the state, a request showing the state alone is never
    approved by a rule reserving the act to a party ('… may only be <act> by <party> to vendors
    whose status is <state>')."""
    rule = f"Payments may only be {act} by {party} to vendors whose status is {state}"
    got = outcome([rule], "release_payment", {"vendor_status": state, "amount": 100})
    assert got != "approved", rule
    # read whole only when the party is an agent id the request shows; otherwise left unread
    compiled = compile_rule(0, "c:r0", rule)
    if "-" not in party:
        assert not compiled.decides, rule
    if not compiled.decides:
        assert got == "pending_review", rule


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(("customers", "sellers", "accounts", "vendors")),
    st.sampled_from(("with", "in", "on", "under")),
    st.sampled_from(("open disputes", "a pending review", "the trial tier", "open chargebacks")),
)
def test_a_partys_state_never_rules_the_party_out(party, prep, state):
    """A bound on requests 'to <party> <prep> <state>' never approves an amount over it when
    the request shows the state's argument holding the state's own word."""
    rule = f"Refunds above $100 to {party} {prep} {state} are forbidden"
    word = state.split()[-2] if len(state.split()) > 1 else state
    key = state.split()[-1].rstrip("s") + "_status"
    got = outcome([rule], "issue_refund", {"amount": 500, key: word})
    assert got != "approved", (rule, key, word)
