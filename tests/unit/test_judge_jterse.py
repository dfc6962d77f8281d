"""Caps, floors and approval thresholds written tersely (jterse).

Staff write a limit with a colon, a dash or a unit and no verb: 'Waivers over $100 -
supervisor.', 'Above 25%: deal desk.', 'Max order size: 500,000 per order.', 'Min instances for
prod services: 2.', 'API keys must have an expiry of 90 days or less.'. Each was left as text (a
review of every request) or misread. They are now said again as the sentence the numeric reading
knows; the bound, the boundary and the unit decide, and a request that does not clearly show the
quantity goes to review.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_support import outcome

from webapp.judge.compiler import compile_rule

WAIVER = "Waivers over $100 - supervisor."
DISCOUNT = "Above 25%: deal desk."
CREDITS = "Credits over $500: manager sign-off; credits below that: agent discretion."
REFUND = "Per-refund limit for agents: 250 USD."
ORDER = "Max order size: 500,000 per order."
SHARES = "Max shares per order: 10,000."
BLOCK = "Block trades are limited to 500,000 per ticket."
INSTANCES = "Min instances for prod services: 2."
REPLICAS = "Minimum replicas: 3."
DEPROVISION = "Bulk deprovisioning is limited to 50 accounts per call."
BATCH = "Batch size: up to 25 users per request."
API_KEYS = "API keys must have an expiry of 90 days or less."
SA_KEYS = "Service-account keys expire in 30 days or less."
LIFETIME = "Max lifetime ninety (90) days from issue."
ROWS = "Row limit per export: 1,000,000."
OFF_PEAK = "Exports over 50,000 rows must run off-peak (22:00-06:00 UTC)."


def _users(n: int) -> list[str]:
    return [f"u{i}" for i in range(n)]


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # a dash or a colon after a bound is the effect
        (WAIVER, "billing.issue_waiver", {"amount": 101, "currency": "USD"}, "pending_review"),
        (WAIVER, "billing.issue_waiver", {"amount": 100, "currency": "USD"}, "approved"),  # not over
        (WAIVER, "billing.issue_waiver", {"amount": 90, "currency": "EUR"}, "pending_review"),
        (WAIVER, "billing.issue_waiver", {"currency": "USD"}, "pending_review"),  # no amount
        (DISCOUNT, "crm.apply_discount", {"discount_percent": 26}, "pending_review"),
        (DISCOUNT, "crm.apply_discount", {"discount_percent": 25}, "approved"),
        (DISCOUNT, "crm.apply_discount", {"discount_amount": 20, "currency": "USD"}, "pending_review"),
        (CREDITS, "support.issue_credit", {"amount": 120, "currency": "USD"}, "approved"),
        (CREDITS, "support.issue_credit", {"amount": 500, "currency": "USD"}, "pending_review"),
        (CREDITS, "support.issue_credit", {"amount": 501, "currency": "USD"}, "pending_review"),
        ("Write-offs of $1,000 or more: finance approval.", "ar.write_off",
         {"amount": 1000, "currency": "USD"}, "pending_review"),  # inclusive
        ("Write-offs of $1,000 or more: finance approval.", "ar.write_off",
         {"amount": 999.99, "currency": "USD"}, "approved"),
        ("Discounts 25%+: deal desk.", "crm.apply_discount", {"discount_percent": 25},
         "pending_review"),  # '+' is 'or more'
        ("Discounts 25%+: deal desk.", "crm.apply_discount", {"discount_percent": 24}, "approved"),
        ("Credits up to $50: agent discretion; above that: team lead.", "support.issue_credit",
         {"amount": 50, "currency": "USD"}, "approved"),
        ("Credits up to $50: agent discretion; above that: team lead.", "support.issue_credit",
         {"amount": 51, "currency": "USD"}, "pending_review"),
        ("Credits up to $50: agent discretion; above that: team lead.", "support.issue_credit",
         {"amount": 5, "currency": "EUR"}, "pending_review"),
        ("Refunds over $100: manager, over $1,000: director.", "payments.refund",
         {"amount": 50, "currency": "USD"}, "approved"),
        ("Refunds over $100: manager, over $1,000: director.", "payments.refund",
         {"amount": 101, "currency": "USD"}, "pending_review"),
        ("Refunds: >500 EUR - finance.", "payments.refund", {"amount": 501, "currency": "EUR"},
         "pending_review"),
        ("Refunds: >500 EUR - finance.", "payments.refund", {"amount": 500, "currency": "EUR"},
         "approved"),
        ("Transfers under $10k - auto-approved; over: treasury.", "payments.transfer",
         {"amount": 9_999, "currency": "USD"}, "approved"),
        ("Transfers under $10k - auto-approved; over: treasury.", "payments.transfer",
         {"amount": 10_000, "currency": "USD"}, "pending_review"),  # neither under nor over
        ("Refunds up to $200: agent; anything above - CFO.", "payments.refund",
         {"amount": 201, "currency": "USD"}, "pending_review"),
        # headed caps and floors
        ("Exports: 50k rows max.", "data.export", {"row_count": 50_001}, "denied"),
        ("Exports: 50k rows max.", "data.export", {"row_count": 50_000}, "approved"),
        ("Replicas: 2 min.", "k8s.scale", {"replicas": 1}, "denied"),
        ("Refund cap: $250/refund.", "payments.refund", {"amount": 250, "currency": "USD"},
         "approved"),
        ("Refund cap: $250/refund.", "payments.refund", {"amount": 251, "currency": "USD"},
         "denied"),
        ("Key TTL: 90d max.", "iam.create_key", {"ttl_days": 91}, "denied"),
        ("Key TTL: 90d max.", "iam.create_key", {"ttl_days": 90}, "approved"),
        (REFUND, "payments.refund", {"amount": 250, "currency": "USD"}, "approved"),
        (REFUND, "payments.refund", {"amount": 251, "currency": "USD"}, "denied"),
        (REFUND, "payments.refund", {"amount": 100, "currency": "GBP"}, "pending_review"),
        (ORDER, "trading.place_order", {"symbol": "X", "quantity": 500000}, "approved"),
        (ORDER, "trading.place_order", {"symbol": "X", "quantity": 500001}, "denied"),
        (ORDER, "trading.place_order", {"symbol": "X"}, "pending_review"),  # no quantity
        (ORDER, "trading.place_order", {"symbol": "X", "notional": 1000}, "pending_review"),
        # the size read as the quantity, but the notional would be judged otherwise
        (ORDER, "trading.place_order", {"quantity": 1000, "notional": 9_000_000}, "pending_review"),
        (ORDER, "trading.place_order", {"quantity": 1000, "notional": 90_000}, "approved"),
        (BLOCK, "trading.block_trade", {"symbol": "X", "quantity": 500_001}, "denied"),
        (BLOCK, "trading.block_trade", {"symbol": "X", "quantity": 500_000}, "approved"),
        (BLOCK, "trading.block_trade", {"symbol": "X", "notional": 100}, "pending_review"),
        (BLOCK, "trading.block_trade", {"quantity": 1000, "notional": 4_000_000}, "pending_review"),
        # a support ticket is not the request: the cap is per credit, as without the words
        ("Max credit per ticket: 100 EUR.", "support.issue_credit",
         {"ticket_id": "T-1", "amount": 100.01, "currency": "EUR"}, "denied"),
        (SHARES, "trading.place_order", {"symbol": "X", "shares": 10001}, "denied"),
        (SHARES, "trading.place_order", {"symbol": "X", "shares": 10000}, "approved"),
        (INSTANCES, "cloud.scale_service", {"env": "prod", "min_instances": 1}, "denied"),
        (INSTANCES, "cloud.scale_service", {"env": "prod", "min_instances": 2}, "approved"),
        (INSTANCES, "cloud.scale_service", {"env": "prod"}, "pending_review"),
        (REPLICAS, "k8s.scale_deployment", {"replicas": 2}, "denied"),
        (REPLICAS, "k8s.scale_deployment", {"replicas": 3}, "approved"),
        ("Replica floor: 2 per deployment.", "k8s.scale_deployment", {"replicas": 1}, "denied"),
        (ROWS, "data.export_table", {"limit": 2_000_000}, "denied"),
        (ROWS, "data.export_table", {"limit": 1_000_000}, "approved"),
        (ROWS, "data.export_table", {"table": "events"}, "pending_review"),
        # counts of a list
        (DEPROVISION, "iam.deprovision_users", {"user_ids": _users(50)}, "approved"),
        (DEPROVISION, "iam.deprovision_users", {"user_ids": _users(51)}, "denied"),
        (BATCH, "iam.bulk_disable", {"user_ids": _users(25)}, "approved"),
        (BATCH, "iam.bulk_disable", {"user_ids": _users(26)}, "denied"),
        # key lifetimes, in days or converted from hours
        (API_KEYS, "iam.create_api_key", {"expires_in_days": 90}, "approved"),
        (API_KEYS, "iam.create_api_key", {"expires_in_days": 91}, "denied"),
        (API_KEYS, "iam.create_api_key", {"name": "ci"}, "pending_review"),
        (SA_KEYS, "iam.create_sa_key", {"ttl_days": 30}, "approved"),
        (SA_KEYS, "iam.create_sa_key", {"ttl_days": 31}, "denied"),
        (SA_KEYS, "iam.create_sa_key", {"ttl_hours": 1000}, "denied"),  # 41.7 days
        (LIFETIME, "kms.issue_key", {"lifetime_days": 120}, "denied"),
        (LIFETIME, "kms.issue_key", {"lifetime_days": 90}, "approved"),
        # the gate alone: under it the rule does not reach the request
        (OFF_PEAK, "data.export_rows", {"row_count": 1000}, "approved"),
        (OFF_PEAK, "data.export_rows", {"row_count": 50000}, "approved"),
        (OFF_PEAK, "data.export_rows", {"row_count": 50001}, "pending_review"),
        (OFF_PEAK, "data.export_rows", {"table": "orders"}, "pending_review"),
    ],
)  # fmt: skip
def test_terse_limits(rule, tool, args, expected):
    assert outcome([rule], tool, args) == expected


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # a gate with its own verb is a sentence: the dash opens advice, read as before
        ("Agents can't cancel orders over $5,000 \u2013 route the customer to Sales.",
         "orders.cancel", {"order_id": "O-1", "order_total": 7200, "currency": "USD"}, "denied"),
        # a count of acts per thing stays a count across requests
        ("Max 2 refunds per order.", "payments.refund", {"order_id": "O", "amount": 5},
         "pending_review"),
        # a rate is still a rate
        ("Max 1000 requests per minute.", "api.call", {"requests": 50}, "pending_review"),
    ],
)  # fmt: skip
def test_what_stays_as_it_was(rule, tool, args, expected):
    assert outcome([rule], tool, args) == expected


@pytest.mark.parametrize(
    ("rule", "reading"),
    [
        (WAIVER, "Send to review when the amount is above 100 USD (about: waivers)"),
        (ORDER, "Deny when the quantity (order or trade size, no currency) is above 500,000"),
        (INSTANCES, "Deny when the number of instances is below 2 (about: prod services)"),
        (API_KEYS, "Deny when the duration is above 90 days"),
    ],
)
def test_readings_say_the_bound(rule, reading):
    rule_ = compile_rule(0, "c", rule)
    assert not rule_.unaccounted
    assert any(c.reading().startswith(reading) for c in rule_.checks)


# A condition or a negation put into a terse rule: the rule either leaves the words unread, or
# still never approves a request over its bound.
TERSE = [
    (WAIVER, "billing.issue_waiver", {"amount": 150, "currency": "USD"}),
    (ORDER, "trading.place_order", {"quantity": 600_000}),
    (BLOCK, "trading.block_trade", {"quantity": 600_000}),
    (INSTANCES, "cloud.scale_service", {"env": "prod", "min_instances": 1}),
    (API_KEYS, "iam.create_api_key", {"expires_in_days": 120}),
    (ROWS, "data.export_table", {"limit": 2_000_000}),
    (DEPROVISION, "iam.deprovision_users", {"user_ids": _users(60)}),
]
INSERTED = [
    "unless approved by the desk head",
    "for new customers only",
    "except for VIP accounts",
    "when the customer is in EMEA",
    "without a ticket",
    "in EU regions",
    "sensitive",
    "blacklisted",
    "privileged",
]


@settings(max_examples=120, deadline=None)
@given(
    case=st.sampled_from(TERSE),
    words_=st.sampled_from(INSERTED),
    at=st.integers(min_value=1, max_value=12),
)
def test_an_inserted_condition_never_approves_over_the_bound(case, words_, at):
    rule, tool, args = case
    tokens = rule.rstrip(".").split()
    at = min(at, len(tokens))
    changed = " ".join([*tokens[:at], words_, *tokens[at:]]) + "."
    assert outcome([changed], tool, args) != "approved", changed


def test_a_negated_expiry_is_a_floor():
    """'must not have an expiry of 90 days or less' flips the bound, as the words say."""
    rule = "API keys must not have an expiry of 90 days or less."
    assert outcome([rule], "iam.create_api_key", {"expires_in_days": 30}) == "denied"
    assert outcome([rule], "iam.create_api_key", {"expires_in_days": 120}) == "approved"


def test_an_amount_glued_to_a_slash_is_never_dropped():
    """'$200/night' was not found as an amount at all: the rule was understood as its count of
    nights alone and approved 201 a night. The amount per night is now read as a cap ('up to
    $200 per night'); the tool does not name the lodging, so over it a person decides."""
    rule = "Reimbursement for site visits: max 3 nights lodging, $200/night or less."
    compiled = compile_rule(0, "c", rule)
    assert any(getattr(c, "threshold", None) == 200 for c in compiled.checks)
    args = {"nights": 3, "nightly_rate_usd": 201}
    assert outcome([rule], "reimburse_travel", args) == "pending_review"
    args["nightly_rate_usd"] = 200
    assert outcome([rule], "reimburse_travel", args) == "approved"
    args["nights"] = 4
    assert outcome([rule], "reimburse_travel", args) == "denied"


@pytest.mark.parametrize(
    ("rule", "days", "expected"),
    [
        ("Max lifetime one hundred and twenty (120) days.", 121, "denied"),
        ("Max lifetime twenty-five (25) days.", 25, "approved"),
        # words and figures that disagree are not read as either
        ("Max lifetime ninety (60) days from issue.", 75, "pending_review"),
    ],
)
def test_a_number_in_words_and_figures(rule, days, expected):
    assert outcome([rule], "kms.issue_key", {"lifetime_days": days}) == expected
