"""Fail-safes the lead added in the seventh session, found on seen case files, never on the
sealed blind sets (bench/README.md, "Seventh session").

- A sentence with no modal the engine knows ('has to be signed off', 'refunds >500 EUR ->
  manager', 'Receipts are mandatory') was labelled informational and skipped, so the other rules
  of its policy approved what it forbids. Only a purpose, a definition or a note is
  informational now; any other such sentence is kept as text.
- 'Never text contacts that have unsubscribed' did not match `send_sms` (the action words are a
  vocabulary), so a request carrying `unsubscribed: true` passed it by. When a flag named only for
  the rule's state qualifier shows the forbidden state, the rule is unknown for that tool: review.
- 'Purchase orders over 25,000 EUR or from new vendors need committee sign-off' was read as the
  amount condition with 'vendors' taken for a subject word: a 900 EUR order to a new vendor
  passed. A second condition joined by 'or' after an amount stays unaccounted.
- A request that no rule of its governing policy speaks to was allowed at 0.60, which a tenant on
  the 'medium' bucket approves; it is 0.55 now, under that cut-off.
- After the merges: 'Payouts over $10,000 need review and payouts to new sellers for 7 days' was
  understood as the amount alone (the words of the second subject are vocabulary the subject
  reading accepts). A number no check holds, and what is joined after the review a rule asks
  for, stay unaccounted.
- After holdout_13's first run (the lead looked at its one unsafe approval): 'Service accounts
  with access to production systems need Cloud Security review' was read with 'access' as the
  rule's act, so `iam.service_account.create` was another act and the rule passed it by. A word
  after 'with', 'without' or 'having' is a thing the subject has, never the rule's act.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.test_judge_fourth_round import _policy
from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery


def _outcome(rules: list[str], tool: str, args: dict) -> str:
    v = evaluate(
        ClearanceQuery(tool, args, "agent"), [_policy(rules)], StaticHistory.from_dict(None)
    )
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


@pytest.mark.parametrize(
    "rule",
    [
        "Any payment of $2,000 or more has to be signed off by finance.",
        "payments >2000 USD -> finance",
        "It is against policy to pay vendors above 2,000 USD without finance.",
        "Payments above 2,000 USD are a matter for the finance team.",
    ],
)
def test_an_obligation_without_a_known_modal_is_not_skipped(rule):
    # the other rule of the policy is satisfied; before, it alone approved the payment
    rules = ["Payments must include an invoice number.", rule]
    args = {"vendor_id": "V-3", "amount": 5000, "currency": "USD", "invoice_number": "INV-1"}
    assert compile_rule(0, "c:r1", rule).understanding != "informational"
    assert _outcome(rules, "pay_vendor", args) == "pending_review"


@pytest.mark.parametrize(
    "sentence",
    [
        "Purpose - keep vendor payments auditable.",
        "Background - duplicate payments cost us in 2024.",
        "This policy exists to keep vendor payments honest.",
        "See the treasury handbook for details.",
        "A vendor means a supplier in the master file.",
    ],
)
def test_a_purpose_a_definition_or_a_note_is_informational(sentence):
    assert compile_rule(0, "c:r0", sentence).understanding == "informational"
    rules = ["Payments must include an invoice number.", sentence]
    args = {"vendor_id": "V-3", "amount": 50, "currency": "USD", "invoice_number": "INV-1"}
    assert _outcome(rules, "pay_vendor", args) == "approved"


_WORDS = st.sampled_from(
    [
        "payments",
        "vendor",
        "finance",
        "over",
        "2,000",
        "USD",
        "large",
        "treasury",
        "team",
        "-",
        "->",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_WORDS, min_size=2, max_size=8))
def test_a_sentence_without_a_purpose_or_definition_marker_is_never_skipped(tokens):
    # whatever such a sentence says, the engine reads it or keeps it as text: never informational
    compiled = compile_rule(0, "c:r1", " ".join(tokens))
    assert compiled.understanding != "informational"


_MESSAGING = ["Messages must include a campaign id."]


@pytest.mark.parametrize(
    ("rule", "tool", "flags"),
    [
        ("Never text contacts that have unsubscribed", "send_sms", {"unsubscribed": True}),
        ("Never email customers who opted out.", "sms.send", {"opted_out": True}),
        ("Never SMS contacts who have unsubscribed.", "messaging.send", {"unsubscribed": True}),
    ],
)
def test_a_flag_named_for_the_forbidden_state_is_not_passed_by(rule, tool, flags):
    args = {"phone": "+15550100", "campaign_id": "C1", **flags}
    assert _outcome([*_MESSAGING, rule], tool, args) == "pending_review"
    # the state the rule does not forbid: the rule is not about this request
    cleared = {k: False for k in flags}
    assert _outcome([*_MESSAGING, rule], tool, {**args, **cleared}) == "approved"


def test_a_flag_that_only_shares_a_word_with_the_qualifier_changes_nothing():
    rule = "Never text contacts that have unsubscribed"
    args = {"phone": "+15550100", "campaign_id": "C1", "unsubscribed_list_version": True}
    assert _outcome([*_MESSAGING, rule], "send_sms", args) == "approved"


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Purchase orders over 25,000 EUR or from new vendors need procurement committee "
            "sign-off.",
            "procurement.create_po",
            {"vendor": "Nordlicht GmbH", "amount": 900, "currency": "EUR", "new_vendor": True},
        ),
        (
            "Bill adjustments above 500 USD or to new sellers require a supervisor, except "
            "meter-read corrections.",
            "adjust_bill",
            {"account_id": "A-1", "amount": 120, "currency": "USD", "seller_is_new": True},
        ),
        (
            "Bans on accounts with more than 1M followers or to new sellers require director "
            "approval.",
            "accounts.ban",
            {"account_id": "U-1", "follower_count": 1200},
        ),
    ],
)
def test_a_condition_joined_by_or_after_an_amount_is_never_dropped(rule, tool, args):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "partly_understood"
    assert any(w.startswith("or ") for w in compiled.unaccounted)
    assert _outcome([rule], tool, args) == "pending_review"


@pytest.mark.parametrize(
    "rule",
    [
        "Refunds of 500 EUR or more need a manager.",
        "Refunds of $500 or less are fine.",
        "Orders of 10 units or more need approval.",
        "Trades must not exceed 5,000 units, other than funds MMF1 or MMF2",
        "Resources may only be created in eu-west-1 or eu-central-1.",
    ],
)
def test_a_boundary_or_a_list_after_an_amount_is_no_disjunct(rule):
    assert not any(w.startswith("or ") for w in compile_rule(0, "c:r0", rule).unaccounted)


def test_a_request_no_rule_speaks_to_is_under_the_medium_bucket():
    # the policy governs the tool; its one rule is about deleting buckets, the request lists them
    v = evaluate(
        ClearanceQuery("aws.s3.list_buckets", {}, "agent"),
        [_policy(["Agents must never delete S3 buckets."])],
        StaticHistory.from_dict(None),
    )
    assert v.decision == "allow" and v.reason_code == "approved_by_policy"
    assert v.confidence < 0.60  # CONTRACT §3: the 'medium' bucket starts at 0.60


_TICKET = "Every request must include a ticket_id."


@pytest.mark.parametrize(
    "rule",
    [
        "Payouts over $10,000 need review and payouts to new sellers.",
        "Payouts over $10,000 are held for review, new sellers' payouts for 7 days.",
        "Payouts over $10,000 need approval as well as any payout to a new seller.",
        "Payouts over $10,000 need sign-off; first payouts too.",
    ],
)
def test_a_second_subject_after_the_review_is_never_dropped(rule):
    args = {"seller_id": "S-1", "amount": 50, "currency": "USD", "ticket_id": "T-1"}
    assert compile_rule(0, "c:r1", rule).understanding == "partly_understood"
    assert _outcome([_TICKET, rule], "payouts.create", args) == "pending_review"


@pytest.mark.parametrize(
    ("rule", "unread"),
    [
        ("Transfers over 1,000 EUR are blocked for 3 days.", "3 days"),
        ("Accounts may not be closed with a balance over 0 EUR for 90 days.", "90 days"),
    ],
)
def test_a_number_no_check_holds_stays_unaccounted(rule, unread):
    assert unread.lower() in [w.lower() for w in compile_rule(0, "c:r0", rule).unaccounted]


@pytest.mark.parametrize(
    "rule",
    [
        "Refunds over 500 EUR need review.",
        "Max 3 nights lodging, $200/night or less.",
        "Payment rail (rail-sepa-2) is in a change freeze through 30 Jun.",
        "Tenants must have a current 12(b) insurance certificate on file.",
        "Refunds over 500 EUR need a manager's approval, unless the customer is VIP.",
    ],
)
def test_numbers_and_tails_a_check_reads_leave_a_rule_as_it_was(rule):
    assert compile_rule(0, "c:r0", rule).understanding == "understood"


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Service accounts with access to production systems need Cloud Security review.",
            "iam.service_account.create",
            {"name": "svc-sync", "scopes": ["billing-db-primary:write"]},
        ),
        (
            "Contractors with access to payroll data need HR approval.",
            "hr.onboard_contractor",
            {"name": "J. Doe", "systems": ["payroll-db"]},
        ),
        (
            "Vendors without encryption at rest may not receive exports.",
            "vendors.register",
            {"vendor": "Acme Ltd", "encryption": "unknown"},
        ),
    ],
)
def test_a_word_after_with_is_what_the_subject_has_not_the_rules_act(rule, tool, args):
    assert _outcome([_TICKET, rule], tool, {**args, "ticket_id": "T-1"}) == "pending_review"
