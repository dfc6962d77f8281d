"""The lead's readings of the twelfth session.

A bound given by another argument written as its name ('must not exceed the credit_balance') read
right but rendered 'above the current value': a reading says which argument bounds the request.
"""

from __future__ import annotations

import pytest

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.compiler import compile_rule

CREDIT = "Refund amount must not exceed the credit_balance."


def test_bound_by_a_named_argument_reads_its_name():
    rule = compile_rule(0, "c0", CREDIT)
    assert rule.understanding == "understood"
    assert [c.reading() for c in rule.checks] == [
        "Deny when refund amount is above `credit_balance` (about: refund)"
    ]


@pytest.mark.parametrize(
    ("amount", "expected"), [(100, "denied"), (80, "approved"), (50, "approved")]
)
def test_bound_by_a_named_argument_decides(amount, expected):
    args = {"amount": amount, "credit_balance": 80, "currency": "USD"}
    assert outcome_beside_ticket(CREDIT, "billing.refund", args) == expected
