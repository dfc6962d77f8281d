"""Helper jinline: prose rules with an argument condition written inline, without brackets
(`webapp/judge/inline.py`): 'No port-out while balance_due_cents > 0 unless payment_arrangement
= true', 'NEVER upgrade if sanctions_screen = hit OR pending', 'lock_reason fraud -> never via
agent', 'kyc_tier 2+ only', 'id_verified must be TRUE before any swap'. The condition is exact on
the named argument (missing, another type or case: review); an act word holds only for a stated
reason (the tool name, the request's kind argument, `<noun>_type` for a qualifier); anything the
structure does not read leaves the rule partly understood."""

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

PORT = "No port-out while balance_due_cents > 0 unless payment_arrangement = true"
UPGRADE = "NEVER upgrade if sanctions_screen = hit OR pending."
MARGIN = "If liquidation_flag is true -> NO margin changes at all, of any kind."
FRAUD = "lock_reason fraud -> NEVER via agent."
AML = "lock_reason aml_hold -> MLRO approval required"
RESET = "2FA reset where account_balance_usd > 50k: second approver"
GOODWILL = "credit_type goodwill -> only if tenure_months >= 12"
SWAP = "id_verified must be TRUE before any swap"
TIER = "kyc_tier 2+ only"
RESTOCK = "If item_condition = damaged -> restock must be false"
REHIRE = "rehire_eligible must be false when termination_type = for_cause"
MARKET = "Market orders where notional_usd > 500k -> desk head sign-off"
CANCEL = "No cancellation while open_claims > 0"
DOWNGRADE = (
    "Downgrade mid-contract (contract_months_left > 0) -> customer_ack_etf must be true, "
    "otherwise DO NOT process"
)
SIM = "SIM swap blocked if account_status is suspended, collections or fraud_review."
ERASURE = "no erasure without identity_verified=true"
HOLD = "if legal_hold = true, no closure"
DELETES = "deletes: not while legal_hold is on"
EARLY = "Early release only if hold_reason is risk_review_cleared or manual_verification_complete."
PAYOUT = "account_verification must be 'passed' before any payout."
BARE = "restock must be false"
HOSTED = "Hosted refunds: never if chargeback_open is true"
CLOSE = "never close the account if balance_cents != 0"
OFFER = "offer_status must be extended or accepted"
DENY_FIRST = "Deny refunds if chargeback_open = true"
HOLD_FIRST = "Hold payouts while kyc_status = pending"
NEEDS = "Refunds need manager approval if refund_amount > 500"

UNDERSTOOD = [
    PORT,
    UPGRADE,
    MARGIN,
    FRAUD,
    AML,
    RESET,
    GOODWILL,
    SWAP,
    TIER,
    RESTOCK,
    REHIRE,
    MARKET,
    CANCEL,
    DOWNGRADE,
    SIM,
    ERASURE,
    HOLD,
    DELETES,
    EARLY,
    PAYOUT,
    BARE,
    HOSTED,
    CLOSE,
    OFFER,
    DENY_FIRST,
    HOLD_FIRST,
    NEEDS,
]


@pytest.mark.parametrize("rule", UNDERSTOOD)
def test_the_rules_are_understood(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", (rule, compiled.unaccounted)
    assert [c.kind for c in compiled.checks] == ["inline"]


@pytest.mark.parametrize(
    ("rule", "reading"),
    [
        (
            PORT,
            "Deny when the request is \u201cport-out\u201d (its tool name or kind argument says "
            "so) and `balance_due_cents` is above 0, unless `payment_arrangement` is true",
        ),
        (
            UPGRADE,
            "Deny when the request is \u201cupgrade\u201d (its tool name or kind argument says "
            "so) and `sanctions_screen` is one of hit, pending",
        ),
        (FRAUD, 'Deny when `lock_reason` is "fraud"'),
        (AML, 'Send to review when `lock_reason` is "aml_hold"'),
        (
            GOODWILL,
            'Deny when `credit_type` is "goodwill", unless `tenure_months` is at or above 12',
        ),
        (TIER, "Deny unless `kyc_tier` is at or above 2"),
        (RESTOCK, 'Deny when `item_condition` is "damaged", unless `restock` is false'),
        (BARE, "Deny unless `restock` is false"),
        (
            SIM,
            "Deny when the request is \u201cSIM swap\u201d (its tool name or kind argument says "
            "so) and `account_status` is one of suspended, collections, fraud_review",
        ),
    ],
)
def test_readings_render_the_structure(rule: str, reading: str) -> None:
    assert [c.reading() for c in compile_rule(0, "c:r0", rule).checks] == [reading]


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # 'while … unless …' on the tool's act
        (
            PORT,
            "telecom.port_out",
            {"balance_due_cents": 0, "payment_arrangement": False},
            "approved",
        ),
        (
            PORT,
            "telecom.port_out",
            {"balance_due_cents": 1, "payment_arrangement": False},
            "denied",
        ),
        (
            PORT,
            "telecom.port_out",
            {"balance_due_cents": 9, "payment_arrangement": True},
            "approved",
        ),
        (PORT, "telecom.port_out", {"payment_arrangement": False}, "pending_review"),
        (
            PORT,
            "telecom.port_out",
            {"balance_due_cents": 9, "payment_arrangement": "yes"},
            "pending_review",
        ),
        (
            PORT,
            "telecom.port_out",
            {"balance_due_cents": "9", "payment_arrangement": False},
            "pending_review",
        ),
        # the act named by the tool, the kind argument, or nobody
        (UPGRADE, "kyc.upgrade_tier", {"sanctions_screen": "clear"}, "approved"),
        (UPGRADE, "kyc.upgrade_tier", {"sanctions_screen": "hit"}, "denied"),
        (UPGRADE, "kyc.upgrade_tier", {"sanctions_screen": "pending"}, "denied"),
        (UPGRADE, "kyc.upgrade_tier", {"sanctions_screen": "Hit"}, "pending_review"),
        (UPGRADE, "kyc.upgrade_tier", {}, "pending_review"),
        (
            UPGRADE,
            "kyc.set_tier",
            {"direction": "downgrade", "sanctions_screen": "hit"},
            "approved",
        ),
        (UPGRADE, "kyc.set_tier", {"direction": "upgrade", "sanctions_screen": "hit"}, "denied"),
        (
            UPGRADE,
            "kyc.set_tier",
            {"direction": "Upgrade", "sanctions_screen": "hit"},
            "pending_review",
        ),
        (UPGRADE, "kyc.set_tier", {"sanctions_screen": "hit"}, "pending_review"),
        # a compound kind may name the act another way: unknown, never ruled out
        (
            UPGRADE,
            "kyc.set_tier",
            {"change_type": "tier_increase", "sanctions_screen": "hit"},
            "pending_review",
        ),
        (UPGRADE, "kyc.set_tier", {"direction": "up", "sanctions_screen": "hit"}, "pending_review"),
        (UPGRADE, "kyc.set_tier", {"sanctions_screen": "clear"}, "approved"),
        # a listed value that is also an argument of the request: a flag, or a value?
        (
            "NEVER upgrade if sanctions_screen = hit or pep_match",
            "kyc.upgrade_tier",
            {"sanctions_screen": "clear", "pep_match": True},
            "pending_review",
        ),
        # a flag after 'is true'
        (MARGIN, "margin.change_limit", {"liquidation_flag": False}, "approved"),
        (MARGIN, "margin.change_limit", {"liquidation_flag": True}, "denied"),
        (MARGIN, "margin.change_limit", {"liquidation_flag": "TRUE"}, "pending_review"),
        (MARGIN, "margin.set_limit", {"liquidation_flag": True}, "pending_review"),
        # an argument and its value, no operator
        (FRAUD, "account.unlock", {"lock_reason": "fraud"}, "denied"),
        (FRAUD, "account.unlock", {"lock_reason": "Fraud"}, "pending_review"),
        (FRAUD, "account.unlock", {"lock_reason": "too_many_attempts"}, "approved"),
        (FRAUD, "account.unlock", {}, "pending_review"),
        (AML, "account.unlock", {"lock_reason": "aml_hold"}, "pending_review"),
        (AML, "account.unlock", {"lock_reason": "fraud"}, "approved"),
        # a gate named by an act and a condition, exclusive boundary
        (RESET, "account.reset_2fa", {"account_balance_usd": 50000}, "approved"),
        (RESET, "account.reset_2fa", {"account_balance_usd": 50001}, "pending_review"),
        (RESET, "account.unlock", {"account_balance_usd": 90000}, "pending_review"),
        (RESET, "account.unlock", {"account_balance_usd": 100}, "approved"),
        # only if, inclusive
        (GOODWILL, "billing.credit", {"credit_type": "goodwill", "tenure_months": 12}, "approved"),
        (GOODWILL, "billing.credit", {"credit_type": "goodwill", "tenure_months": 11}, "denied"),
        (GOODWILL, "billing.credit", {"credit_type": "outage", "tenure_months": 1}, "approved"),
        (GOODWILL, "billing.credit", {"credit_type": "goodwill"}, "pending_review"),
        # a requirement before an act
        (SWAP, "telecom.sim_swap", {"id_verified": True}, "approved"),
        (SWAP, "telecom.sim_swap", {"id_verified": False}, "denied"),
        (SWAP, "telecom.sim_swap", {}, "pending_review"),
        (SWAP, "telecom.sim_swap", {"id_verified": "Yes"}, "pending_review"),
        # a floor written 'N+ only'
        (TIER, "withdraw.crypto", {"kyc_tier": 2}, "approved"),
        (TIER, "withdraw.crypto", {"kyc_tier": 1}, "denied"),
        (TIER, "withdraw.crypto", {"kyc_tier": "2"}, "pending_review"),
        (TIER, "withdraw.crypto", {}, "pending_review"),
        (TIER, "withdraw.crypto", {"kyc_tier": 2, "kyc_tier_override": 1}, "pending_review"),
        # a requirement under a condition
        (RESTOCK, "returns.process", {"item_condition": "damaged", "restock": True}, "denied"),
        (RESTOCK, "returns.process", {"item_condition": "unopened", "restock": True}, "approved"),
        (RESTOCK, "returns.process", {"item_condition": "damaged"}, "pending_review"),
        (
            REHIRE,
            "hr.separate",
            {"termination_type": "for_cause", "rehire_eligible": True},
            "denied",
        ),
        (
            REHIRE,
            "hr.separate",
            {"termination_type": "voluntary", "rehire_eligible": True},
            "approved",
        ),
        # a qualifier of the act: false only by the kind of what the act names
        (MARKET, "order.place", {"order_type": "market", "notional_usd": 600000}, "pending_review"),
        (MARKET, "order.place", {"order_type": "limit", "notional_usd": 600000}, "pending_review"),
        (MARKET, "order.place", {"order_type": "limit", "notional_usd": 400000}, "approved"),
        (
            "Large orders where notional_usd > 500k -> desk head sign-off",
            "order.place",
            {"order_type": "limit", "notional_usd": 600000},
            "pending_review",
        ),
        (MARKET, "order.place", {"order_type": "mkt", "notional_usd": 600000}, "pending_review"),
        (MARKET, "order.place", {"notional_usd": 600000}, "pending_review"),
        (MARKET, "order.place", {"type": "limit", "notional_usd": 600000}, "pending_review"),
        (
            "Mkt orders where notional_usd > 500k -> desk head sign-off",
            "order.place",
            {"order_type": "market", "notional_usd": 600000},
            "pending_review",
        ),
        # the act in another form ('cancellation' for policy.cancel)
        (CANCEL, "policy.cancel", {"open_claims": 2}, "denied"),
        (CANCEL, "policy.cancel", {"open_claims": 0}, "approved"),
        # a hyphenated qualifier glossed by a bracket
        (
            DOWNGRADE,
            "telecom.plan_change",
            {"change_type": "downgrade", "contract_months_left": 7, "customer_ack_etf": False},
            "denied",
        ),
        (
            DOWNGRADE,
            "telecom.plan_change",
            {"change_type": "upgrade", "contract_months_left": 7, "customer_ack_etf": False},
            "approved",
        ),
        (
            DOWNGRADE,
            "telecom.plan_change",
            {"change_type": "downgrade", "contract_months_left": 7, "customer_ack_etf": True},
            "approved",
        ),
        (
            DOWNGRADE,
            "telecom.plan_change",
            {"contract_months_left": 7, "customer_ack_etf": False},
            "pending_review",
        ),
        # lists after 'is'
        (SIM, "telecom.sim_swap", {"account_status": "collections"}, "denied"),
        (SIM, "telecom.sim_swap", {"account_status": "active"}, "approved"),
        (EARLY, "payouts.early_release", {"hold_reason": "risk_review_cleared"}, "approved"),
        (EARLY, "payouts.early_release", {"hold_reason": "velocity"}, "denied"),
        (ERASURE, "privacy.erasure", {"identity_verified": False}, "denied"),
        (ERASURE, "privacy.erasure", {"identity_verified": True}, "approved"),
        (HOLD, "account.closure", {"legal_hold": True}, "denied"),
        (DELETES, "files.delete", {"legal_hold": True}, "denied"),
        (DELETES, "files.delete", {"legal_hold": "on"}, "pending_review"),
        (PAYOUT, "payouts.create", {"account_verification": "passed"}, "approved"),
        (PAYOUT, "payouts.create", {"account_verification": "failed"}, "denied"),
        (BARE, "returns.process", {"restock": False}, "approved"),
        (BARE, "returns.process", {}, "pending_review"),
        # a verb and its object: the verb is the act, the object qualifies it
        (CLOSE, "accounts.close", {"balance_cents": 5}, "denied"),
        (CLOSE, "accounts.close", {"balance_cents": 0}, "approved"),
        (CLOSE, "accounts.close", {}, "pending_review"),
        (CLOSE, "accounts.update", {"action": "close", "balance_cents": 5}, "denied"),
        (CLOSE, "accounts.update", {"action": "rename", "balance_cents": 5}, "approved"),
        # a requirement of one of several values
        (OFFER, "hr.order_check", {"offer_status": "accepted"}, "approved"),
        (OFFER, "hr.order_check", {"offer_status": "draft"}, "denied"),
        (OFFER, "hr.order_check", {"offer_status": "Accepted"}, "pending_review"),
        (OFFER, "hr.order_check", {}, "pending_review"),
        # the effect first, then the act and its condition
        (DENY_FIRST, "refunds.issue", {"chargeback_open": True}, "denied"),
        (DENY_FIRST, "refunds.issue", {"chargeback_open": False}, "approved"),
        (HOLD_FIRST, "payouts.create", {"kyc_status": "pending"}, "pending_review"),
        (HOLD_FIRST, "payouts.create", {"kyc_status": "verified"}, "approved"),
        (NEEDS, "refunds.issue", {"refund_amount": 501}, "pending_review"),
        (NEEDS, "refunds.issue", {"refund_amount": 500}, "approved"),
        (NEEDS, "refunds.issue", {"amount": 900}, "pending_review"),
        # a qualifier before a colon: the kind of refund must say it
        (HOSTED, "refunds.issue", {"chargeback_open": True}, "pending_review"),
        (HOSTED, "refunds.issue", {"chargeback_open": True, "refund_type": "hosted"}, "denied"),
        (
            HOSTED,
            "refunds.issue",
            {"chargeback_open": True, "refund_type": "card"},
            "pending_review",
        ),
        (HOSTED, "refunds.issue", {"chargeback_open": False}, "approved"),
    ],
)
def test_vectors(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize(
    "rule",
    [
        # a qualifier the structure does not read
        f"{PORT} for business lines",
        "NEVER upgrade to premium if sanctions_screen = hit",
        "Tier 2 and above requires proof_of_address_verified = true",
        "GOODWILL -> only if tenure_months >= 12. new customers get nothing.",
        # a plural noun after an argument's name is no value of it
        "exec_office escalations -> Support Director approves first.",
        # a condition in words the grammar does not read
        "NEVER upgrade if sanctions_screen = hit or the customer is new",
        "No refunds over 100 if chargeback_open is true",
        "lock_reason fraud -> never via agent, escalate to risk",
        "kyc_tier 2+ only for withdrawals",
        "Refunds need no approval if refund_amount < 50",
        "status must be active or pending",
        "Deny refunds to new customers if chargeback_open = true",
    ],
)
def test_what_the_structure_does_not_read_stays_unread(rule: str) -> None:
    assert_never_decides(rule)


_QUALIFIERS = st.sampled_from(
    (*APPENDED_QUALIFIERS, "for business lines", "or the customer is new", "and a manager agrees")
)


@settings(max_examples=60, deadline=None)
@given(rule=st.sampled_from(UNDERSTOOD), qualifier=_QUALIFIERS)
def test_an_appended_qualifier_leaves_the_rule_partly_understood(rule: str, qualifier: str) -> None:
    assert_qualified_never_decides(rule, qualifier)
    assert_never_decides(f"{rule.rstrip('.')} {qualifier}")


# Conditions with a spot inside them where a clause can be inserted ('{}')
_INSIDE = (
    "No port-out while balance_due_cents > 0{} unless payment_arrangement = true",
    "No port-out while balance_due_cents > 0 unless payment_arrangement = true{}",
    "NEVER upgrade if sanctions_screen = hit OR pending{}.",
    "lock_reason fraud{} -> NEVER via agent.",
    "credit_type goodwill -> only if tenure_months >= 12{}",
    "2FA reset where account_balance_usd > 50k{}: second approver",
    "If item_condition = damaged{} -> restock must be false",
    "offer_status must be extended or accepted{}",
    "Refunds need manager approval if refund_amount > 500{}",
)


@settings(max_examples=60, deadline=None)
@given(
    template=st.sampled_from(_INSIDE),
    clause=st.sampled_from(
        (
            " for new customers",
            " on weekends",
            " and the customer is a minor",
            " or a manager says so",
            " for privileged vendors",
            " in the EU",
        )
    ),
)
def test_a_clause_inserted_in_the_condition_leaves_it_partly_understood(
    template: str, clause: str
) -> None:
    assert_never_decides(template.format(clause))


@settings(max_examples=40, deadline=None)
@given(qualifier=st.sampled_from(("business", "premium", "bulk", "weekend", "hosted")))
def test_a_qualifier_of_the_act_binds_only_for_a_stated_reason(qualifier: str) -> None:
    """'No business port-out while …': the word is read as a qualifier of the act, which the
    request must state (its tool name or `port_type`); a request that does not, or says another
    kind (a qualifier is never ruled out: 'Large' is no port type), is never decided on the rest
    of the rule."""
    rule = f"No {qualifier} port-out while balance_due_cents > 0 unless payment_arrangement = true"
    firing = {"balance_due_cents": 5, "payment_arrangement": False}
    assert outcome_beside_ticket(rule, "telecom.port_out", firing) == "pending_review"
    assert outcome_beside_ticket(rule, f"telecom.{qualifier}_port_out", firing) == "denied"
    assert (
        outcome_beside_ticket(rule, "telecom.port_out", {**firing, "port_type": "other"})
        == "pending_review"
    )
    assert (
        outcome_beside_ticket(rule, "telecom.port_out", {**firing, "port_type": qualifier})
        == "denied"
    )


@settings(max_examples=60, deadline=None)
@given(balance=st.integers(min_value=-5, max_value=5), arrangement=st.booleans())
def test_the_unless_branch_is_the_exception(balance: int, arrangement: bool) -> None:
    got = outcome_beside_ticket(
        PORT,
        "telecom.port_out",
        {"balance_due_cents": balance, "payment_arrangement": arrangement},
    )
    assert got == ("denied" if balance > 0 and not arrangement else "approved")
