"""Red team of everyday payment, refund, credit and export rules (jred9).

'Exports of sensitive tables (e.g. payroll, ssn_records) require DPO approval' was read as a
review of those two tables, which approved every other sensitive table; 'Each customer may
receive at most $200 in credits' as a cap on one credit, which approved a second one to the same
customer; and in 'up to $100 per transaction, max $300 per day' the day was given to both
amounts, which denied a second small refund. Examples and per-party totals now stay partly
understood (review); a per-transaction amount beside a daily one is a cap on this request.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.judge.checks import ValueList
from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.parentheticals import OpenValueList
from webapp.judge.types import ClearanceQuery, PolicyVersion


def _pv(rules: list[str]) -> PolicyVersion:
    digest = hashlib.sha256(repr(("jred9", rules)).encode()).hexdigest()
    return PolicyVersion("p", f"pv_{digest[:12]}", digest, "", tuple(rules), ())


def _judge(rules: list[str], tool: str, args: dict, today: dict | None = None) -> str:
    v = evaluate(ClearanceQuery(tool, args, "agent"), [_pv(rules)], StaticHistory(today))
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


EXAMPLES = [
    "Exports of sensitive tables (e.g. payroll, ssn_records) require DPO approval.",
    "Exports of sensitive tables (incl. payroll) need DPO approval.",
    "Payouts to high-risk countries (for example NG, PK) require compliance review.",
    "Payouts to high-risk countries, e.g. NG or PK, require compliance review.",
    "Never export regulated datasets like payroll or ssn_records.",
]


def _kept_open(rule: str) -> bool:
    """The examples are unaccounted for, or read as examples of an open kind (jparen:
    `OpenValueList`, where a value not named goes to review)."""
    compiled = compile_rule(0, "c", rule)
    lists = [c for c in compiled.checks if isinstance(c, ValueList)]
    return bool(compiled.unaccounted) or bool(
        lists and all(isinstance(c, OpenValueList) for c in lists)
    )


@pytest.mark.parametrize("rule", EXAMPLES)
def test_examples_are_not_the_list(rule):
    assert _kept_open(rule)


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (EXAMPLES[0], "data.export", {"table": "medical_claims"}),
        (EXAMPLES[2], "payouts.create", {"country": "IR", "amount": 10}),
        (EXAMPLES[4], "data.export", {"table": "medical"}),
    ],
)
def test_an_unlisted_member_of_the_class_is_not_approved(rule, tool, args):
    assert _judge([rule], tool, args) == "pending_review"


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # near-misses: a bracketed list with no marker is the list
        ("Exports of the tables (payroll, ssn_records) require DPO approval.", "data.export",
         {"table": "orders"}, "approved"),
        ("Exports of the tables (payroll, ssn_records) require DPO approval.", "data.export",
         {"table": "payroll"}, "pending_review"),
        ("Payouts to RU or BY are forbidden.", "payouts.create", {"country": "RU"}, "denied"),
        ("Payouts to RU or BY are forbidden.", "payouts.create", {"country": "FR"}, "approved"),
    ],
)  # fmt: skip
def test_a_plain_list_still_decides(rule, tool, args, expected):
    assert _judge([rule], tool, args) == expected


PER_PARTY = [
    "Credits are limited to $100 per customer.",
    "Each customer may receive at most $200 in credits.",
    "Max $500 refund per account.",
    "Refunds: max $500 per customer.",
    "No customer may receive more than $200 in credits.",
    "Per-customer refund limit: $500.",
]


@pytest.mark.parametrize("rule", PER_PARTY)
def test_a_total_per_customer_is_not_read_from_one_request(rule):
    tool = "credits.issue" if "credit" in rule.lower() else "refunds.issue"
    assert _judge([rule], tool, {"amount": 50, "customer_id": "c1"}) == "pending_review"


@pytest.mark.parametrize(
    ("rule", "amount", "expected"),
    [
        ("Max $500 per refund.", 400, "approved"),
        ("Max $500 per refund.", 600, "denied"),
        ("Refunds are capped at $500 per transaction.", 400, "approved"),
    ],
)
def test_a_cap_per_transaction_still_decides(rule, amount, expected):
    assert _judge([rule], "refunds.issue", {"amount": amount}) == expected


RULE_TWO_CAPS = "Refunds: up to $100 per transaction, max $300 per day."


@settings(max_examples=40, deadline=None)
@given(
    earlier=st.integers(min_value=0, max_value=400),
    amount=st.integers(min_value=1, max_value=150),
)
def test_two_caps_each_keep_their_own_measure(earlier, amount):
    # the per-transaction cap compares this refund; the day's cap today's total with it
    got = _judge([RULE_TWO_CAPS], "refunds.issue", {"amount": amount}, {"amount": earlier})
    if amount > 100 or earlier + amount > 300:
        assert got == "denied"
    else:
        assert got == "approved"


@settings(max_examples=40, deadline=None)
@given(
    marker=st.sampled_from(["e.g.", "for example", "such as", "including", "incl.", "like"]),
    noun=st.sampled_from(["tables", "datasets", "reports"]),
)
def test_a_marker_of_examples_before_a_list_leaves_the_rule_partly_understood(marker, noun):
    plain = f"Exports of the {noun} (payroll, ssn_records) require DPO approval."
    marked = f"Exports of sensitive {noun} ({marker} payroll, ssn_records) require DPO approval."
    assert not compile_rule(0, "c", plain).unaccounted
    assert _kept_open(marked)
    assert _judge([marked], "data.export", {"table": "medical_claims"}) == "pending_review"


@pytest.mark.parametrize(("amount", "expected"), [(250, "approved"), (251, "pending_review")])
def test_an_adverb_after_the_amount_names_no_measure(amount, expected):
    # 'up to $250 automatically' was read as "the number of automatically" (never in a request)
    rule = "Accept chargebacks up to $250 automatically; larger ones go to review."
    assert _judge([rule], "chargebacks.accept", {"amount": amount}) == expected


@pytest.mark.parametrize(
    "rest",
    ["Payouts anywhere else need treasury sign-off.", "Elsewhere, payouts need treasury review."],
)
def test_a_headed_list_with_the_rest_to_review_is_not_a_refusal(rest):
    # the unlisted countries go to review: read as a refusal of them beside a review of every
    # payout, FR was denied and GB sent to review
    rule = f"Approved payout countries: US, CA, GB, DE. {rest}"
    assert _judge([rule], "payouts.create", {"amount": 100, "country": "FR"}) != "denied"


@pytest.mark.parametrize(
    ("rule", "country", "expected"),
    [
        ("Blocked payout countries include RU and BY.", "IR", "pending_review"),
        ("Blocked payout countries are RU and BY.", "IR", "approved"),
    ],
)
def test_a_list_that_includes_values_holds_others(rule, country, expected):
    assert _judge([rule], "payouts.create", {"country": country, "amount": 5}) == expected
