"""jred13: red team against this session's new readings (glosses, inline conditions, asides,
parentheticals, a bound given by another argument).

Each vector is a rule beside a satisfied one, so a misreading shows as an unsafe approval. What
the red team found is now read right or left partly understood (review); the near-misses show
the readings that were right stay decided.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import assert_never_decides, outcome_beside_ticket
from webapp.judge.compiler import compile_rule


def _state(rule: str) -> str:
    return compile_rule(0, "c:r0", rule).understanding


# -- found unsafe: now review (or decided right) ---------------------------------------------------

UNSAFE_FOUND = [
    # a total across requests set aside or read per request
    ("Refunds over 500 USD are blocked (in total)", "refund.issue", {"amount_usd": 100}),
    ("Refunds over 500 USD are blocked (cumulative)", "refund.issue", {"amount_usd": 100}),
    ("Refunds over 500 USD are blocked (lifetime)", "refund.issue", {"amount_usd": 100}),
    ("Refunds over 500 USD this quarter are blocked", "refund.issue", {"amount_usd": 100}),
    ("Cumulative refunds over 500 USD are blocked", "refund.issue", {"amount_usd": 100}),
    ("Credits over 300 USD are blocked (daily)", "credit.issue", {"amount_usd": 50}),
    ("Refunds over 500 USD are blocked, cumulative", "refund.issue", {"amount_usd": 100}),
    ("Refunds over 500 USD in a single week are blocked", "refund.issue", {"amount_usd": 100}),
    (
        "Refunds to a customer may not add up to more than 500 USD",
        "refund.issue",
        {"amount_usd": 100},
    ),
    ("Refund cap: 500 USD total", "refund.issue", {"amount_usd": 100}),
    # '(X only)' scoping a prohibition, read as an allow-list
    (
        "Refunds over 500 USD are blocked (EU only)",
        "refund.issue",
        {"amount_usd": 900, "country": "DE"},
    ),
    (
        "Refunds over 500 USD are blocked (wire only)",
        "refund.issue",
        {"amount_usd": 900, "method": "wire"},
    ),
    (
        "Refunds over 500 USD are blocked - EU only",
        "refund.issue",
        {"amount_usd": 900, "region": "EU"},
    ),
    (
        "EU only: refunds over 500 USD are blocked",
        "refund.issue",
        {"amount_usd": 900, "region": "EU"},
    ),
    # a scope remark in brackets had made the rule informational
    (
        "Refunds over 500 USD are blocked (applies to EU)",
        "refund.issue",
        {"amount_usd": 900, "region": "EU"},
    ),
    # a heading read as an argument
    ("EU: Refunds over 500 USD are blocked", "refund.issue", {"amount_usd": 900, "region": "EU"}),
    (
        "Retail: Refunds over 50 USD are blocked",
        "refund.issue",
        {"amount_usd": 900, "segment": "retail"},
    ),
    (
        "Gold tier: Refunds over 500 USD are blocked",
        "refund.issue",
        {"amount_usd": 900, "customer_tier": "gold"},
    ),
    # a word in brackets beside a limit read as a value any argument may hold
    (
        "Refunds over 500 USD are blocked (temporarily)",
        "refund.issue",
        {"amount_usd": 900, "customer_tier": "gold", "method": "card"},
    ),
    # an argument's gloss read as a value; a gloss of another relation than the prose
    (
        "No refunds to customers in sanctioned countries (country)",
        "refund.issue",
        {"country": "IR"},
    ),
    ("No refunds to customers in high-risk regions (region)", "refund.issue", {"region": "APAC"}),
    (
        "credit checks prohibited for candidates living in CA, NY, IL (work_state)",
        "bgcheck.run",
        {"check_type": "credit", "work_state": "TX", "home_state": "CA"},
    ),
    # a code list against a name spelt out
    (
        "credit checks prohibited for candidates working in CA, NY, IL (work_state)",
        "bgcheck.run",
        {"check_type": "credit", "work_state": "California"},
    ),
    # a score on a scale of 1 against a bound on a scale of 100
    ("If risk_score >= 80 -> NO payouts", "payout.send", {"risk_score": 0.85}),
    # a bound given by another argument: something taken off, several currencies
    (
        "Refund must not exceed the order total less any prior refunds",
        "refund.issue",
        {"amount": 90, "order_total": 100},
    ),
    (
        "max 2x the current limit",
        "limit.set",
        {"new_limit": 1500, "current_limit": 1000, "limit_currency": "EUR", "currency": "USD"},
    ),
    (
        "Fee can't exceed 20% of candidate's first-year base",
        "placement.fee",
        {"fee": 19000, "first_year_base": 100000, "fee_currency": "GBP", "salary_currency": "USD"},
    ),
    # a false denial: one side in cents
    (
        "Refund must not exceed the order total",
        "refund.issue",
        {"amount_cents": 9500, "order_total": 100},
    ),
]


@pytest.mark.parametrize("rule, tool, args", UNSAFE_FOUND)
def test_found_is_never_approved_or_falsely_denied(rule: str, tool: str, args: dict) -> None:
    got = outcome_beside_ticket(rule, tool, args)
    assert got != "approved", rule
    if "amount_cents" in args:
        assert got == "pending_review"


# -- near misses: still decided -----------------------------------------------------------------


@pytest.mark.parametrize(
    "rule, tool, args, expected",
    [
        (
            "Agents may add up to 250 seats per change; larger changes need account manager approval.",
            "seats.add",
            {"seats": 40},
            "approved",
        ),
        (
            "No transfers to IR, KP or SY (dest_country).",
            "transfers.create",
            {"dest_country": "Germany"},
            "approved",
        ),
        (
            "Refunds over 500 USD are blocked (each)",
            "refund.issue",
            {"amount_usd": 100},
            "approved",
        ),
        (
            "Refunds over 500 USD are blocked (regulatory reasons)",
            "refund.issue",
            {"amount_usd": 900},
            "denied",
        ),
        (
            "Refunds over 500 USD are blocked (per month)",
            "refund.issue",
            {"amount_usd": 900},
            "denied",
        ),
        (
            "Payouts in USD only; anything else is blocked",
            "payout.send",
            {"currency": "EUR"},
            "denied",
        ),
        (
            "Payouts in USD only; anything else is blocked",
            "payout.send",
            {"currency": "USD"},
            "approved",
        ),
        (
            "credit checks prohibited for candidates working in CA, NY, IL (work_state)",
            "bgcheck.run",
            {"check_type": "credit", "work_state": "TX", "home_state": "CA"},
            "approved",
        ),
        ("If risk_score >= 80 -> NO payouts", "payout.send", {"risk_score": 85}, "denied"),
        ("If risk_score >= 80 -> NO payouts", "payout.send", {"risk_score": 0.3}, "approved"),
        (
            "max 2x the current limit",
            "limit.set",
            {"new_limit": 1500, "current_limit": 1000},
            "approved",
        ),
        (
            "max 2x the current limit",
            "limit.set",
            {"new_limit": 2500, "current_limit": 1000},
            "denied",
        ),
        (
            "Refund must not exceed the order total",
            "refund.issue",
            {"amount": 120, "order_total": 100},
            "denied",
        ),
        (
            "Refund must not exceed the order total",
            "refund.issue",
            {"amount": 90, "order_total": 100},
            "approved",
        ),
    ],
)
def test_near_misses_stay_decided(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected, rule


@pytest.mark.parametrize(
    "rule",
    [
        "Refunds on annual plans are allowed only within 14 days of purchase.",
        "API keys: max lifetime 90 days",
        "VAT remits: EU member states, UK, NO, CH only - any other jurisdiction -> Tax Ops review",
        "Public records exports must exclude social security numbers (ssn), dates of birth (dob) and home addresses (home_address).",
    ],
)
def test_guards_leave_right_readings_alone(rule: str) -> None:
    """The phrasings near the guards' that were read right keep their state."""
    from webapp.judge.compiler import _compile_with_else, _every
    from webapp.judge.overreads import GUARDS

    every = _every(_compile_with_else(0, "c:r0", rule, None, False))
    assert not [w for g in GUARDS for w in g(rule, every)], rule


# -- properties --------------------------------------------------------------------------------

_TOTALS = ("(in total)", "(cumulative)", "(aggregate)", "(lifetime)", "(running total)", "(daily)")
_ONLY = ("(EU only)", "(wire only)", "(US only)", "- EU only")


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(("Refunds", "Credits", "Payouts", "Withdrawals")),
    st.integers(min_value=100, max_value=90_000),
    st.sampled_from(("are blocked", "are not allowed", "are prohibited")),
    st.sampled_from(_TOTALS + _ONLY),
)
def test_a_total_or_a_scope_left_unread_never_decides(
    noun: str, cap: int, verb: str, tail: str
) -> None:
    """A limit understood alone, with a total across requests or an 'only' scoping its ban
    added, is partly understood: it never decides on its own."""
    rule = f"{noun} over {cap:,} USD {verb}"
    assert _state(rule) == "understood"
    assert_never_decides(f"{rule} {tail}")


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(("living", "residing", "born", "resident")),
    st.sampled_from(("work_state", "work_country", "office_state")),
    st.sampled_from(("CA, NY, IL", "TX, WA", "FR, DE")),
)
def test_a_gloss_of_another_relation_never_decides(said: str, arg: str, places: str) -> None:
    """The prose says where a person lives or was born; the gloss names where they work."""
    assert_never_decides(f"credit checks prohibited for candidates {said} in {places} ({arg})")
