"""Every boundary phrase of the one table means the same inclusive/exclusive thing in the engine."""

from __future__ import annotations

import hashlib
import operator

import pytest

from webapp.judge.boundaries import CAP, CONDITION, LIMIT
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery, PolicyVersion

_OPS = {"gt": operator.gt, "ge": operator.ge, "lt": operator.lt, "le": operator.le}


def _decide(rule: str, amount: float) -> str:
    digest = hashlib.sha256(rule.encode()).hexdigest()
    policy = PolicyVersion("p", f"pv_{digest[:12]}", digest, "", (rule,), ("issue_refund",))
    verdict = evaluate(
        ClearanceQuery("issue_refund", {"amount": amount, "currency": "EUR"}, "a"),
        [policy],
        StaticHistory.from_dict(None),
    )
    return verdict.decision


@pytest.mark.parametrize("phrase", sorted(CONDITION))
@pytest.mark.parametrize("amount", [499, 500, 501])
def test_a_condition_phrase_picks_the_values_the_table_says(phrase, amount):
    rule = f"Refunds {phrase} 500 EUR need a manager's approval."
    picked = _OPS[CONDITION[phrase]](amount, 500)
    assert _decide(rule, amount) == ("review" if picked else "allow"), rule


@pytest.mark.parametrize("phrase", sorted(LIMIT))
@pytest.mark.parametrize("amount", [499, 500, 501])
def test_a_limit_phrase_allows_the_values_the_table_says(phrase, amount):
    rule = f"Refunds {phrase} 500 EUR."
    allowed = _OPS[LIMIT[phrase]](amount, 500)
    assert _decide(rule, amount) == ("allow" if allowed else "deny"), rule


# The cap phrases written before a quantity ('up to €70 in France', 'no more than 20 monitors
# (SKU prefix MON-) on an order') come from the same module's CAP table.
@pytest.mark.parametrize("phrase", sorted(CAP))
@pytest.mark.parametrize("quantity", [19, 20, 21])
def test_a_cap_phrase_on_prefixed_items_allows_what_the_table_says(phrase, quantity):
    from tests.unit.test_judge_fourth_round import outcome

    rule = f"{phrase.capitalize()} 20 monitors (SKU prefix MON-) on a single order."
    allowed = _OPS[CAP[phrase]](quantity, 20)
    args = {"lines": [{"sku": "MON-27", "quantity": quantity}]}
    assert outcome(rule, "create_order", args) == ("approved" if allowed else "denied"), rule


@pytest.mark.parametrize("phrase", sorted(CAP))
@pytest.mark.parametrize("amount", [69, 70, 71])
def test_a_cap_phrase_split_by_place_allows_what_the_table_says(phrase, amount):
    from tests.unit.test_judge_fourth_round import outcome

    rule = f"Per diem: {phrase} 70 EUR in France or Italy, {phrase} 50 EUR elsewhere."
    allowed = _OPS[CAP[phrase]](amount, 70)
    args = {"country": "FR", "per_diem": amount, "currency": "EUR"}
    assert outcome(rule, "claim_per_diem", args) == ("approved" if allowed else "denied"), rule
