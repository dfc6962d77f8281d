"""Thresholds stated as what the agent may do alone, tiers, and caps keyed by another argument
(helper jauto, ninth session; development cases `bench/judge_cases/dev_jauto.json`).

Each shape had been labelled understood and misread:
- 'without review' / 'can be done by the agent' is a permission up to its bound, never a review of
  what it permits ('Agents may accept chargebacks under $250 without review' had sent 180 to review
  and approved 900);
- the rest of an allowance ('anything above', 'Longer ->', 'others need review') is a review past
  the same bound of the same measure, never a review of every request;
- a cap with no modal beside 'anything more goes to X' is what the agent may do alone (review past
  it), a cap stated with 'must not' stays a prohibition;
- 'unless < 100 EUR' excepts the amounts under the bound;
- a second tier after a comma is its own clause ('> 10k -> risk review, > 50k => blocked');
- 'daily transfer limit increases' names a limit, not a window; '20% on monthly plans, 35% on
  annual' is one cap per value of the plan's interval, another value goes to review.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery, PolicyVersion


def _policy(rules: list[str], tools: tuple[str, ...] = ()) -> PolicyVersion:
    digest = hashlib.sha256(repr((rules, tools)).encode()).hexdigest()
    return PolicyVersion("p", f"pv_{digest[:16]}", digest, "", tuple(rules), tools)


def outcome(rules: list[str] | str, tool: str, args: dict) -> str:
    if isinstance(rules, str):
        rules = [rules]
    v = evaluate(
        ClearanceQuery(tool, args, "agent"), [_policy(rules)], StaticHistory.from_dict(None)
    )
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


def readings(rule: str) -> tuple[bool, list[str]]:
    r = compile_rule(0, "c", rule)
    return r.decides, [c.reading() for c in r.checks]


# -- readings -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        (
            "Agents may accept chargebacks under $250 without review.",
            ["Allow when the amount is below 250 USD; otherwise send to review"],
        ),
        (
            "Bots can issue refunds of less than $100 without approval.",
            ["Allow when the amount is below 100 USD; otherwise send to review"],
        ),
        (
            "Write-offs up to 200 EUR may be done by the agent; above that the AR lead decides.",
            [
                "Allow when the amount is at or below 200 EUR; otherwise send to review",
                "Send to review when the amount is above 200 EUR",
            ],
        ),
        (
            "daily transfer limit increases up to 10,000 can be done by the agent. anything above "
            "that needs a second approver from ops",
            [
                "Allow when the amount is at or below 10,000; otherwise send to review",
                "Send to review when the amount is above 10,000",
            ],
        ),
        (
            "Payment plans up to 12 months ok. Longer -> credit team review.",
            [
                "Allow when the duration is at or below 12 months",
                "Send to review when the duration is above 12 months",
            ],
        ),
        (
            "Refunds under $50 are approved automatically; others need review.",
            [
                "Allow when the amount is below 50 USD; otherwise send to review",
                "Send to review when the amount is at or above 50 USD",
            ],
        ),
        (
            "Renewal rent increase max 5%; anything more goes to the regional manager.",
            ["Send to review when the percentage is above 5%"],
        ),
        (
            "Finance must approve payments unless < 100 EUR.",
            ["When the amount is at or above 100 EUR: Send to review requests about payments"],
        ),
        (
            "Card limits > 10k -> risk review, > 50k => blocked",
            [
                "Send to review when the amount is above 10,000",
                "Deny when the amount is above 50,000",
            ],
        ),
        (
            "Only a controller can approve journal entries > 50k, < 1k are auto.",
            [
                "Send to review when the amount is above 50,000",
                "Allow when the amount is below 1,000; otherwise send to review",
            ],
        ),
        (
            "max discount is 20% on monthly plans, 35% on annual",
            [
                "Deny when the percentage is above 20% where an argument says monthly, above 35% "
                "where an argument says annual; plans of any other kind, or none shown: review"
            ],
        ),
    ],
)
def test_readings(rule: str, expected: list[str]) -> None:
    decides, got = readings(rule)
    assert decides, (rule, got)
    assert len(got) == len(expected), got
    for g, e in zip(got, expected, strict=True):
        assert g.startswith(e), (g, e)


@pytest.mark.parametrize(
    "rule",
    [
        # 'without review' after a negation asks for the review; never a permission
        "Agents may not accept chargebacks under $250 without review.",
        "Refunds > 500 EUR -> not without manager OK.",
    ],
)
def test_a_negated_alone_phrase_is_no_permission(rule: str) -> None:
    _, got = readings(rule)
    assert got and not any(g.startswith("Allow") for g in got), got


@pytest.mark.parametrize(
    "rule",
    [
        "Auto-refill days supply: maintenance meds up to 90; all other drugs no more than 30.",
        "Bonuses need team lead, > 5000 EUR need HR too.",
        "Returns without a receipt may be accepted up to 30 EUR.",
    ],
)
def test_shapes_still_not_read_stay_partly_understood(rule: str) -> None:
    decides, _ = readings(rule)
    assert not decides


def test_a_cap_with_must_not_stays_a_prohibition() -> None:
    _, got = readings("Refunds must not exceed 1,000 EUR; bigger ones need CFO approval.")
    assert any(g.startswith("Deny when the amount is above 1,000 EUR") for g in got)


def test_anything_over_keeps_the_window_and_subject() -> None:
    _, got = readings(
        "Agent may release no more than GBP 250,000 in lump sums per day; anything over goes to "
        "treasury for approval."
    )
    assert got == [
        "Send to review when today's total of the amount is above 250,000 GBP "
        "(about: release lump sums)"
    ]


def test_an_age_after_anyone_is_an_age() -> None:
    _, got = readings("anyone under 16 -> privacy team decides")
    assert got == ["Send to review when the age is below 16"]


def test_annual_qualifies_the_subject() -> None:
    _, got = readings("annual discounts over 25% need the sales director's ok")
    assert got == ["Send to review when the percentage is above 25% (about: annual discounts)"]


# -- decisions ----------------------------------------------------------------------------------
CHARGEBACK = [
    "Agents may accept chargebacks under $250 without review.",
    "Chargebacks of $250 or more -> disputes team decides (accept or contest).",
]


@pytest.mark.parametrize(
    ("amount", "currency", "expected"),
    [
        (180, "USD", "approved"),
        (249.99, "USD", "approved"),
        (250, "USD", "pending_review"),  # 'under' is exclusive
        (900, "USD", "pending_review"),  # had been approved
        (180, "EUR", "pending_review"),  # another currency than the rule's
    ],
)
def test_chargebacks(amount: float, currency: str, expected: str) -> None:
    args = {"dispute_id": "dp_1", "amount": amount, "currency": currency}
    assert outcome(CHARGEBACK, "disputes.accept", args) == expected


@pytest.mark.parametrize(
    ("plan", "pct", "expected"),
    [
        ("monthly", 20, "approved"),
        ("monthly", 21, "denied"),
        ("annual", 35, "approved"),
        ("yearly", 30, "approved"),
        ("annual", 36, "denied"),
        ("weekly", 5, "pending_review"),  # a key value the rule does not list
        (None, 5, "pending_review"),
    ],
)
def test_keyed_discount_caps(plan: str | None, pct: float, expected: str) -> None:
    args: dict = {"subscription_id": "s", "percent_off": pct}
    if plan:
        args["plan_interval"] = plan
    rule = "max discount is 20% on monthly plans, 35% on annual"
    assert outcome(rule, "billing.discount.apply", args) == expected


@pytest.mark.parametrize(
    ("limit", "expected"),
    [
        (8_000, "approved"),
        (20_000, "pending_review"),
        (50_000, "pending_review"),
        (60_000, "denied"),
    ],
)
def test_tiers(limit: int, expected: str) -> None:
    rule = "Card limits > 10k -> risk review, > 50k => blocked"
    assert outcome(rule, "cards.set_limit", {"card": "c", "new_limit": limit}) == expected


@pytest.mark.parametrize(
    ("amount", "expected"),
    [(500, "approved"), (5_000, "pending_review"), (60_000, "pending_review")],
)
def test_auto_tier_below_and_controller_above(amount: int, expected: str) -> None:
    rule = "Only a controller can approve journal entries > 50k, < 1k are auto."
    assert outcome(rule, "ledger.post_journal_entry", {"entry": "j", "amount": amount}) == expected


# -- properties ---------------------------------------------------------------------------------
_ALONE_RULES = [
    ("Agents may accept chargebacks under {b} USD without review.", "lt"),
    ("Support can issue credits up to {b} USD without approval.", "le"),
    ("Write-offs up to {b} USD may be done by the agent.", "le"),
    ("Refunds below {b} USD may go out without sign-off.", "lt"),
]


@settings(max_examples=40, deadline=None)
@given(
    shape=st.sampled_from(_ALONE_RULES),
    bound=st.integers(min_value=10, max_value=100_000),
    delta=st.sampled_from([-1, 0, 1]),
)
def test_a_value_on_either_side_of_the_bound_falls_on_its_side(
    shape: tuple[str, str], bound: int, delta: int
) -> None:
    """Within the permission: approved; outside it: review, never approved, never denied."""
    text, op = shape
    amount = bound + delta
    inside = amount < bound if op == "lt" else amount <= bound
    rule = text.format(b=f"{bound:,}")
    tool = "payments.refund"
    args = {"amount": amount, "currency": "USD"}
    got = outcome(rule, tool, args)
    assert got != "denied"
    if not inside:
        assert got == "pending_review", (rule, amount)


@settings(max_examples=30, deadline=None)
@given(
    shape=st.sampled_from([t for t, _ in _ALONE_RULES]),
    insert=st.sampled_from(
        [" for customers on the watch list", " unless the account is flagged", " for VIP clients"]
    ),
)
def test_a_qualifier_inserted_leaves_the_permission_partly_understood(
    shape: str, insert: str
) -> None:
    rule = shape.format(b="250").rstrip(".") + insert + "."
    decides, got = readings(rule)
    assert not decides, (rule, got)


def test_two_bounds_joined_by_and_are_one_range() -> None:
    # in notation the two tiers together send everything above 1k to review (the range is not
    # kept as one since jred6's bounds; the decisions are the same)
    rule = "Payments > 1k and < 10k need team lead; >= 10k need CFO."
    for amount in (5_000, 20_000):
        assert (
            outcome(rule, "payments.pay", {"amount": amount, "currency": "USD"}) == "pending_review"
        )
    rule = "Refunds over 100 EUR and under 1,000 EUR need a supervisor."
    args = {"order": "o", "amount": 50, "currency": "EUR"}
    assert outcome(rule, "payments.refund", args) == "approved"
    args["amount"] = 500
    assert outcome(rule, "payments.refund", args) == "pending_review"
    args["amount"] = 5_000  # past the range's top: the rule does not ask for a supervisor
    assert outcome(rule, "payments.refund", args) == "approved"


def test_a_rate_in_its_unit_is_no_count_of_requests() -> None:
    _, got = readings("Opioid Rx over 50 MME/day -> pharmacist review")
    assert got == ["Send to review when the number of mme is above 50 (about: opioid rx)"]


def test_a_multiple_of_another_amount_stays_partly_understood() -> None:
    # read since as a comparison of two arguments, the rent times 1.5 (jrel), never as a bare
    # multiple of the deposit
    decides, got = readings("Security deposit not to exceed 1.5x monthly rent.")
    assert decides and "1.5x monthly rent" in got[0] and "the multiple" not in got[0]
    decides, _ = readings("Leverage above 5x is not permitted")
    assert decides


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        (
            "Trades above 1M USD need the desk head, above 10M USD are refused.",
            "Deny when the amount is above 10,000,000 USD (about: trades)",
        ),
        (
            "Refunds over 500 EUR need a manager; over 5,000 EUR they are refused.",
            "Deny when the amount is above 5,000 EUR (about: refunds)",
        ),
    ],
)
def test_a_refusal_closing_a_tier_denies(rule: str, expected: str) -> None:
    decides, got = readings(rule)
    assert decides and got[-1] == expected


@pytest.mark.parametrize(
    "rule",
    [
        "No approval needed for refunds under $100.",
        "Refunds under $100 don't need approval.",
        "Refunds under $100 need no review.",
        "Refunds below $100 do not require a manager.",
        "Refunds under $100 are exempt from review.",
        "Without review, agents may refund under $100.",
    ],
)
def test_a_review_said_not_to_be_needed_is_the_permission(rule: str) -> None:
    """Each had been read as a review of what it spares, so 500 was approved."""
    decides, got = readings(rule)
    assert decides
    assert got[0].startswith("Allow when the amount is below 100 USD; otherwise send to review")
    args = {"order": "o", "amount": 500, "currency": "USD"}
    assert outcome(rule, "payments.refund", args) == "pending_review"
    args["amount"] = 50
    assert outcome(rule, "payments.refund", args) == "approved"


@pytest.mark.parametrize(
    ("rule", "reading"),
    [
        ("Agents may reset passwords without approval.", "Allow requests about reset passwords"),
        (
            "CSAM: remove immediately, no review needed.",
            "Allow requests about CSAM remove immediately",
        ),
    ],
)
def test_an_act_permitted_without_review_is_allowed(rule: str, reading: str) -> None:
    decides, got = readings(rule)
    assert decides and got == [reading]
