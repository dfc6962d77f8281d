"""The lead's readings of the twelfth session.

A bound given by another argument written as its name ('must not exceed the credit_balance') read
right but rendered 'above the current value': a reading says which argument bounds the request.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket, policy
from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery

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


# -- a policy's scope glossed with its argument (holdout_40's false denial) ----------------------

SCOPED_POLICY = [
    "Scope: disconnects for non-payment (reason = non_payment) only. Safety and tamper "
    "disconnects are governed by the Field Ops policy, not this one.",
    "must include the final notice ref (final_notice_id)",
]


def _scoped(args: dict) -> tuple[str, list]:
    v = evaluate(
        ClearanceQuery("field.disconnect_service", args, "dispatch-agent"),
        [policy(SCOPED_POLICY)],
        StaticHistory.from_dict(None),
    )
    return v.decision, v.details.get("excluded_policies")


def test_scope_gloss_leaves_out_a_request_with_another_value():
    _, excluded = _scoped({"reason": "safety_hazard"})
    assert excluded and "scope" in excluded[0]["why"]


@pytest.mark.parametrize(
    "args",
    [
        {"reason": "non_payment"},  # in scope: the notice rule denies its absence
        {"reason": "Non-Payment"},  # the value in another spelling
        {"reason": "non_payment_final"},  # a value close to it: not shown outside
        {"other": "x"},  # no reason at all: not shown outside
        {"reason": ""},  # empty: not shown outside
    ],
)
def test_scope_gloss_keeps_what_it_cannot_show_outside(args):
    decision, excluded = _scoped(args)
    assert not excluded
    assert decision == "deny"  # the missing final_notice_id


def test_remark_that_another_policy_governs_is_informational():
    rule = compile_rule(
        0, "c0", "Refunds to tenants are handled under pm.security_deposits, not here."
    )
    assert rule.understanding == "informational"
    both = compile_rule(0, "c0", SCOPED_POLICY[0])
    assert both.understanding == "informational"


@pytest.mark.parametrize(
    "rule",
    [
        # a team, not a policy: the agent is barred, and the rule stays one
        "Refunds over $500 are handled by Treasury, not here.",
        # no 'not this one': a routing sentence of unknown force
        "Payroll runs are governed by the Payroll policy.",
    ],
)
def test_remark_about_a_team_or_without_not_here_stays_a_rule(rule):
    assert compile_rule(0, "c0", rule).understanding != "informational"
    assert (
        outcome_beside_ticket(rule, "refunds.issue", {"amount": 600, "currency": "USD"})
        != "approved"
    )


# -- a refusal written as what must be done to the request ---------------------------------------


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        ("Refunds from the EU must be denied.", "refunds.issue", {"country": "DE"}, "denied"),
        ("Refunds from the EU must be denied.", "refunds.issue", {"country": "US"}, "approved"),
        ("Wires to Iran must be rejected.", "wire.send", {"country": "IR"}, "denied"),
        ("Wires to Iran shall be refused.", "wire.send", {"country": "FR"}, "approved"),
        (
            "Refunds over 500 EUR must be declined.",
            "refunds.issue",
            {"amount": 600, "currency": "EUR"},
            "denied",
        ),
        # a refusal by someone, or an act asked for, is no refusal of the request
        (
            "Refunds must be rejected by a manager.",
            "refunds.issue",
            {"amount": 5},
            "pending_review",
        ),
    ],
)
def test_must_be_refused_is_the_rules_effect(rule, tool, args, expected):
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize("word", ["denied", "rejected", "refused", "declined"])
def test_must_be_refused_never_reads_a_flag(word):
    rule = compile_rule(0, "c0", f"Refunds from the EU must be {word}.")
    assert all(f"`{word}`" not in c.reading() for c in rule.checks)


# -- 'a permit' asked for is a document, not the effect word 'permitted' -------------------------


@pytest.mark.parametrize(
    "rule",
    [
        "Crew_size of at least 2 and a permit.",
        "Energized work needs crew_size of at least 2 and a valid work permit.",
    ],
)
def test_a_permit_asked_for_is_never_dropped(rule):
    compiled = compile_rule(0, "c0", rule)
    assert compiled.understanding != "understood", [c.reading() for c in compiled.checks]
    assert outcome_beside_ticket(rule, "field.dispatch", {"crew_size": 3}) != "approved"


@given(
    st.sampled_from(["and", "with", "plus", "needs", "requires"]),
    st.sampled_from(["a", "a valid", "the work", "an export"]),
)
def test_permit_asked_is_read_or_left_unaccounted(joiner, determiner):
    rule = compile_rule(0, "c0", f"Refunds over 500 EUR {joiner} {determiner} permit.")
    assert rule.understanding != "understood" or any(
        "permit" in c.reading() for c in rule.checks
    ), [c.reading() for c in rule.checks]


@pytest.mark.parametrize(
    "rule",
    [
        "Refunds over 500 EUR are not permitted.",  # the effect
        "Hot work requires a permit.",  # the permit read as the argument required
    ],
)
def test_permit_as_effect_or_as_read_argument_is_read_as_before(rule):
    assert compile_rule(0, "c0", rule).understanding == "understood"


# -- holdout_42's first run on the final engine: one unsafe approval, four false denials ----------

GMV = (
    "Closing an account with lifetime_gmv above 1M USD -> escalate to Seller Success for sign-off."
)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # another money argument beside it: the bound is the named argument's, not the balance's
        ({"pending_balance": 0, "open_orders": 0, "lifetime_gmv": 1250000}, "pending_review"),
        ({"pending_balance": 0, "lifetime_gmv": 1000000}, "approved"),
        ({"pending_balance": 0, "lifetime_gmv": 900000}, "approved"),
        ({"pending_balance": 0}, "pending_review"),  # the named argument absent
    ],
)
def test_bound_on_the_argument_named_before_it(args, expected):
    assert outcome_beside_ticket(GMV, "sellers.account.close", {**args, "currency": "USD"}) == (
        expected
    )


def test_a_verb_after_the_bound_is_no_counted_noun():
    (check,) = compile_rule(0, "c0", GMV).checks
    assert check.noun is None and check.named == "lifetime_gmv"
    assert check.reading().startswith("Send to review when `lifetime_gmv` is above 1,000,000 USD")


@pytest.mark.parametrize(
    "rule",
    [
        "5) Rejections must specify rejection_reason.",
        "Denials must specify a denial_code.",
        "Cancellations must include cancel_reason.",
    ],
)
def test_an_act_named_by_an_effect_noun_never_holds_every_request(rule):
    assert compile_rule(0, "c0", rule).understanding == "partly_understood"
    # an approval is not the rejection the rule speaks of: never denied for its missing reason
    assert outcome_beside_ticket(rule, "sellers.verification.approve", {"country": "PT"}) != (
        "denied"
    )


@pytest.mark.parametrize(
    ("args", "expected_not"),
    [({"price_set": "standard", "category": "home"}, "denied")],
)
def test_an_agent_glob_is_never_an_arguments_value(args, expected_not):
    rule = "Electronics: price changes only by agents from the pricing-bot-* pool."
    assert compile_rule(0, "c0", rule).understanding != "understood"
    assert outcome_beside_ticket(rule, "pricing.update_price", args) != expected_not


@pytest.mark.parametrize(
    "rule",
    [
        "Refunds over 500 EUR for gold members are forbidden.",
        "Tamper seals must be checked.",
        "Refunds from the EU need review unless the refund_reason is fraud.",
    ],
)
def test_a_remark_about_another_policy_changes_nothing_beside_it(rule):
    remark = " Gold members and tamper refunds are governed by the Loyalty policy, not this one."
    alone, both = compile_rule(0, "c0", rule), compile_rule(0, "c0", rule + remark)
    assert both.understanding == alone.understanding
    assert [c.reading() for c in both.checks] == [c.reading() for c in alone.checks]
    assert set(both.unaccounted) == set(alone.unaccounted)


def test_scope_with_two_glosses_keeps_a_request_inside_either():
    two = [
        "Scope: refunds (refund_type = standard) and credits (refund_type = goodwill) only.",
        "must include the final notice ref (final_notice_id)",
    ]
    for value, excluded in (("goodwill", False), ("standard", False), ("chargeback", True)):
        v = evaluate(
            ClearanceQuery("billing.refund", {"refund_type": value}, "agent"),
            [policy(two)],
            StaticHistory.from_dict(None),
        )
        assert bool(v.details.get("excluded_policies")) is excluded, value
