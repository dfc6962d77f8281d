"""Eighth session, helper jcount: limits over a period or per thing.

'max 3 payouts / hr per agent', 'Daily credit budget: 1,000 USD per agent.', 'max 2 refunds per
order' (from `prior_refunds`), 'Drop-ship orders may not exceed 200 units per line'. Each rule is
judged beside a satisfied ticket rule, with the history the case gives. The near-misses (history at
the limit, a count argument named for something else, a per-customer limit, a rolling 24 hours
against today's total, a budget in another currency, one line over) must never approve.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import TICKET, assert_never_decides, policy
from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery

PAYOUTS_HR = "max 3 payouts / hr per agent"
EXPORTS_HR = "Max 10 exports/hour."
PER_CUSTOMER = "no more than 5 refunds per hour per customer"
BUDGET = "Daily credit budget: 1,000 USD per agent."
ROLLING = "No more than $5,000 in refunds in any 24-hour period."
PER_ORDER = "max 2 refunds per order"
BARE_PER = "Refunds: max 2 per order"
PER_LINE = "Drop-ship orders may not exceed 200 units per line."
LINE_ITEM = "Max 50 units per line item."
NO_LINE = "Orders may not exceed 200 units."
MONEY = {"amount": 250, "currency": "USD"}


def judged(rule: str, tool: str, args: dict, history: dict | None = None) -> str:
    v = evaluate(
        ClearanceQuery(tool, {**args, "ticket_id": "T-1"}, "agent"),
        [policy([rule, TICKET])],
        StaticHistory.from_dict(history),
    )
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


def lines(*qty: int) -> list[dict]:
    return [{"sku": f"S-{i}", "qty": q} for i, q in enumerate(qty)]


@pytest.mark.parametrize("rule", [PAYOUTS_HR, EXPORTS_HR])
def test_a_slash_hour_is_a_per_hour_count(rule):
    assert compile_rule(0, "c:r0", rule).understanding == "understood"
    tool = "payouts.create" if "payout" in rule else "reports.export"
    limit = 3 if "payout" in rule else 10
    assert judged(rule, tool, {"id": "x"}, {"count_last_hour": limit - 1}) == "approved"
    # history at the limit: this one would be over it
    assert judged(rule, tool, {"id": "x"}, {"count_last_hour": limit}) == "denied"


def test_an_hr_word_is_not_an_hour():
    # 'an HR director' names a person, not a window (it had become 'the hour total')
    rule = "Salary increases above 10% require an HR director"
    checks = compile_rule(0, "c:r0", rule).checks
    assert not any(getattr(c, "window", None) for c in checks)


@pytest.mark.parametrize("args", [{"customer_id": "C-1", "amount": 5}, {"amount": 5}])
def test_a_count_per_customer_is_not_the_agents_history(args):
    assert judged(PER_CUSTOMER, "refunds.issue", args, {"count_last_hour": 0}) == "pending_review"


def test_a_daily_budget_caps_todays_total():
    assert judged(BUDGET, "accounts.credit", MONEY, {"total_today": {"amount": 700}}) == "approved"
    assert judged(BUDGET, "accounts.credit", MONEY, {"total_today": {"amount": 750}}) == "approved"
    assert judged(BUDGET, "accounts.credit", MONEY, {"total_today": {"amount": 900}}) == "denied"


def test_a_budget_in_another_currency_does_not_approve():
    args = {"amount": 250, "currency": "EUR"}
    assert judged(BUDGET, "accounts.credit", args, {"total_today": {"amount": 700}}) != "approved"


def test_a_rolling_24_hours_is_not_todays_total():
    got = judged(ROLLING, "refunds.issue", {"amount": 500}, {"total_today": {"amount": 1000}})
    assert got == "pending_review"


def test_a_count_per_thing_reads_the_earlier_ones():
    assert judged(PER_ORDER, "refunds.issue", {"order_id": "O", "prior_refunds": 1}) == "approved"
    assert judged(PER_ORDER, "refunds.issue", {"order_id": "O", "prior_refunds": 2}) == "denied"


@pytest.mark.parametrize("args", [{"order_id": "O", "prior_returns": 0}, {"order_id": "O"}])
def test_a_count_named_for_something_else_or_none_goes_to_review(args):
    assert judged(PER_ORDER, "refunds.issue", args) == "pending_review"


def test_a_bare_number_per_thing_is_not_an_amount():
    # 'Refunds: max 2 per order' had denied every refund over $2: the plural before the colon
    # is what is counted, read from a count of the earlier ones
    assert judged(BARE_PER, "refunds.issue", {"order_id": "O", "amount": 40}) == "pending_review"
    args = {"order_id": "O", "amount": 40, "prior_refunds": 1}
    assert judged(BARE_PER, "refunds.issue", args) == "approved"
    assert judged(BARE_PER, "refunds.issue", {**args, "prior_refunds": 2}) == "denied"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"grant_id": "G", "prior_extensions": 0, "extension_months": 6}, "approved"),
        ({"grant_id": "G", "prior_extensions": 1, "extension_months": 6}, "denied"),
        # named for extensions but a duration, and a count of something else: not the count
        ({"grant_id": "G", "extension_months": 6}, "pending_review"),
        ({"grant_id": "G", "prior_amendments": 0}, "pending_review"),
    ],
)
def test_max_one_per_grant_reads_the_earlier_extensions(args, expected):
    rule = "no-cost extensions: max one per grant"
    assert judged(rule, "grants.no_cost_extension", args) == expected


def test_per_line_judges_every_line_not_their_sum():
    tool = "wholesale.orders.dropship"
    assert judged(LINE_ITEM, "orders.create", {"line_items": lines(40, 45)}) == "approved"
    assert judged(LINE_ITEM, "orders.create", {"line_items": lines(10, 60)}) == "denied"
    assert judged(PER_LINE, tool, {"lines": lines(200, 50)}) == "approved"
    assert judged(PER_LINE, tool, {"lines": lines(150, 150)}) == "approved"
    assert judged(PER_LINE, tool, {"lines": lines(120, 250)}) != "approved"


def test_without_per_line_a_total_over_the_cap_goes_to_review():
    assert judged(NO_LINE, "orders.create", {"lines": lines(150, 150)}) == "pending_review"


_BASES = (PAYOUTS_HR, BUDGET, PER_LINE)
_INSERTED = ("for privileged vendors", "for sanctioned accounts", "to external regions")


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(_BASES), st.sampled_from(_INSERTED))
def test_an_inserted_qualifier_leaves_the_rule_partly_understood(base, qualifier):
    head, dot, tail = base.partition(".")
    assert_never_decides(f"{head} {qualifier}{dot}{tail}")
