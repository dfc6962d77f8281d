"""The lead's readings of the tenth session.

A country written by its name after a restricting 'only … in the …' ('bank accounts in the United
States, Canada or the United Kingdom') is the value its check compares with, so the rule is read
whole; before, 'United' was left unread and the rule never decided.
"""

from __future__ import annotations

import pytest

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.compiler import compile_rule

ONLY_IN = (
    "Payouts above 5,000 USD may only be sent to bank accounts in the United States, Canada or "
    "the United Kingdom."
)


def test_country_names_after_only_in_are_read() -> None:
    rule = compile_rule(0, "c:r0", ONLY_IN)
    assert rule.understanding == "understood"
    assert rule.unaccounted == ()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"amount": 6000, "currency": "USD", "country": "CA"}, "approved"),
        ({"amount": 6000, "currency": "USD", "country": "GB"}, "approved"),
        ({"amount": 6000, "currency": "USD", "country": "MX"}, "denied"),
        ({"amount": 5000, "currency": "USD", "country": "MX"}, "approved"),
        ({"amount": 6000, "currency": "USD"}, "pending_review"),
    ],
)
def test_country_names_after_only_in_decide(args: dict, expected: str) -> None:
    assert outcome_beside_ticket(ONLY_IN, "payouts.create", args) == expected
