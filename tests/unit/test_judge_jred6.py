"""Red team of understood readings (jred6): rules the engine said it understood but misread.

Each phrasing below was read word by word and wrongly as a whole (a version as an amount, a
numbered grade dropped, a bound on what an act leaves behind read on the amount, a rate read as a
count, a negated review read as a review …), and approved what the rule forbids. Each is now
either read exactly or left partly understood (review); near-misses keep deciding.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome as _judge
from webapp.judge.compiler import compile_rule
from webapp.judge.coverage import misread_traps

MISREAD = [
    # a numbered grade of the subject
    "Tier-1 agents may issue credits of up to 50 USD.",
    "L1 agents may refund up to $20.",
    "Tier 1 customers may receive credits up to $500.",
    "Level 4 (Do Not Travel) destinations: no trips, no exceptions.",
    # a version bound
    "Clusters below version 1.27 must not be scaled.",
    "Clusters on versions older than 1.27 must not be scaled.",
    "Do not deploy builds with a version below 2.0.",
    "Agents on firmware v3 or lower may not be enrolled.",
    # what an act leaves behind
    "Withdrawals leaving a balance below $100 are forbidden.",
    "Withdrawals that would leave less than $100 in the account are forbidden.",
    "Don't allow withdrawals that take the balance under $100.",
    # an open or qualified last member of a list
    "Wires to IR, KP or any country on the OFAC list are forbidden.",
    "Allowed regions: us-east-1, us-west-2, and eu-west-1 for EU customers only.",
    # a negated exception, 'no longer', a factor count, a qualified permission
    "Refunds need approval except those not above $100.",
    "Refunds above $100 no longer need approval.",
    "Refunds under $100 are no longer auto-approved.",
    "Grant admin roles only to users with 2FA enabled.",
    "24/7 on-call staff may restart services.",
    # names, slashes and notation read as an argument's name or a literal
    "Automated takedowns capped at 50/hr per agent - anything beyond that needs a human moderator to review.",
    "dont merge records from different tenants/workspaces ever",
    "retention_days >= 365 for audit logs. never lower",
    "Nominated beneficiaries must fall within the allowed relationship types.",
    "Agents with the billing role may issue refunds up to $100.",
    "PCI-DSS 4.0 scoped systems must not be modified on Fridays.",
    "Employees' home addresses must never be shared outside HR.",
    "Customer data must stay within IT.",
    "Only the account owner may close the account.",
]


@pytest.mark.parametrize("rule", MISREAD)
def test_a_misread_phrasing_is_partly_understood(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.checks, rule
    assert compiled.understanding != "understood", [c.reading() for c in compiled.checks]


STILL_UNDERSTOOD = [
    "Allowed regions: us-east-1 and us-west-2.",
    "Withdrawals below $100 are forbidden.",
    "Leave requests over 10 days need manager approval.",
    "Annual leave may not exceed 30 days.",
    "Vendors are no longer allowed to be paid by cheque.",
    "Ledger L-2207 is frozen until the audit closes.",
    "Wires to IR or KP are forbidden.",
    "Support agents may issue credits of up to 50 USD.",
    "Transfers over 10,000 USD require a 2-step approval.",
    "Refunds of up to $200 need no approval; larger ones need a manager.",
    "Stock moves must be between warehouses on the approved list: WH-01, WH-02, WH-07.",
    "Accounts with an outstanding balance may not be closed.",
    "Vendors Initech and Globex-Corp are blocked",
    "Only the main branch may be deployed to production.",
    "Replacements ship only to US, CA or MX.",
    "Granting admin roles (Owner, Billing Admin, Security Admin) requires approval from IT.",
]


@pytest.mark.parametrize("rule", STILL_UNDERSTOOD)
def test_a_near_miss_phrasing_stays_understood(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert misread_traps(rule) == []


@pytest.mark.parametrize(
    ("rules", "tool", "args", "expected"),
    [
        # an age in a shorter unit keeps its unit
        (
            ["Do not delete backups less than 30 days old."],
            "backup.delete",
            {"backup_id": "b", "age_hours": 100},
            "denied",
        ),
        (
            ["Do not delete backups less than 30 days old."],
            "backup.delete",
            {"backup_id": "b", "age_days": 40},
            "approved",
        ),
        (
            ["Never purge logs under 2 days old."],
            "logs.purge",
            {"log_group": "a", "age_hours": 30},
            "denied",
        ),
        # a rate is not a count
        (
            ["Rate limits above 1000 requests per minute require SRE review."],
            "gw.set_rate_limit",
            {"requests_per_second": 50},
            "pending_review",
        ),
        # the misread ones no longer approve
        (
            ["Wires to IR, KP or any country on the OFAC list are forbidden."],
            "bank.wire",
            {"country": "SY", "amount": 10, "currency": "USD"},
            "pending_review",
        ),
        (
            ["Withdrawals leaving a balance below $100 are forbidden."],
            "bank.withdraw",
            {"amount": 150, "balance": 200, "currency": "USD"},
            "pending_review",
        ),
        (
            ["Clusters below version 1.27 must not be scaled."],
            "k8s.scale",
            {"cluster": "c", "version": "1.25"},
            "pending_review",
        ),
        (
            ["Tier-1 agents may issue credits of up to 50 USD."],
            "support.issue_credit",
            {"amount": 40, "currency": "USD", "agent_tier": "tier-2"},
            "pending_review",
        ),
        (
            ["Refunds need approval except those not above $100."],
            "payments.refund",
            {"amount": 150, "currency": "USD"},
            "pending_review",
        ),
        # a capitalised name joined to a listed value is a value, not a word of the argument
        (
            ["Vendors Initech and Globex-Corp are blocked"],
            "ap.pay_vendor",
            {"vendor": "Initech", "amount": 10, "currency": "USD"},
            "denied",
        ),
        (
            ["Vendors Initech and Globex-Corp are blocked"],
            "ap.pay_vendor",
            {"vendor": "Umbrella", "amount": 10, "currency": "USD"},
            "approved",
        ),
        (
            ["retention_days >= 365 for audit logs. never lower"],
            "logs.set_retention",
            {"log_type": "audit", "retention_days": 30},
            "pending_review",
        ),
        (
            ["Level 4 (Do Not Travel) destinations: no trips, no exceptions."],
            "travel.book_trip",
            {"destination": "XX", "advisory_level": 4},
            "pending_review",
        ),
        # a count a person holds is over every request for that person
        (
            ["Do not grant more than 2 admin roles per user."],
            "iam.grant_role",
            {"role": "admin", "user": "u", "admin_role_count": 2},
            "pending_review",
        ),
        # negated review words: the small ones pass, the rest go to review
        (
            ["Refunds: no approval needed below $50."],
            "payments.refund",
            {"amount": 80, "currency": "USD"},
            "pending_review",
        ),
        (
            ["Transfers of at most 1,000 USD don't need approval."],
            "bank.transfer",
            {"amount": 5000, "currency": "USD"},
            "pending_review",
        ),
        (
            ["Refunds of up to $200 need no approval; larger ones need a manager."],
            "payments.refund",
            {"amount": 150, "currency": "USD"},
            "approved",
        ),
        (
            ["Refunds of up to $200 need no approval; larger ones need a manager."],
            "payments.refund",
            {"amount": 300, "currency": "USD"},
            "pending_review",
        ),
        # near-misses keep deciding
        (
            ["Withdrawals below $100 are forbidden."],
            "bank.withdraw",
            {"amount": 50, "currency": "USD"},
            "denied",
        ),
        (
            ["Withdrawals below $100 are forbidden."],
            "bank.withdraw",
            {"amount": 150, "currency": "USD"},
            "approved",
        ),
        (
            ["Allowed regions: us-east-1 and us-west-2."],
            "cloud.create_instance",
            {"region": "eu-west-1"},
            "denied",
        ),
        (
            ["Vendors are no longer allowed to be paid by cheque."],
            "ap.pay_vendor",
            {"payment_method": "ach", "amount": 1, "currency": "USD"},
            "approved",
        ),
        (
            ["max 2 refunds per order"],
            "payments.refund",
            {"order_id": "O", "prior_refunds": 2, "amount": 5, "currency": "USD"},
            "denied",
        ),
    ],
)
def test_decisions(rules, tool, args, expected):
    assert _judge(rules, tool, args) == expected


@pytest.mark.parametrize(
    ("rule", "small", "large"),
    [
        ("Refunds: no approval needed below $50.", 30, 80),
        ("Transfers of at most 1,000 USD don't need approval.", 1000, 5000),
        ("Refunds under $20 need no review.", 10, 25),
    ],
)
def test_negated_review_words_allow_the_bounded_side_only(rule, small, large):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    (check,) = compiled.checks
    assert check.effect == "allow" and "otherwise send to review" in check.reading()
    tool = "payments.refund" if "Refund" in rule else "bank.transfer"
    assert _judge([rule], tool, {"amount": small, "currency": "USD"}) == "approved"
    assert _judge([rule], tool, {"amount": large, "currency": "USD"}) == "pending_review"


def test_a_permission_with_an_approval_is_not_a_negated_review():
    rule = "Refunds up to $500 are fine with manager approval."
    assert compile_rule(0, "c:r0", rule).understanding != "understood"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"setpoint_c": 20}, "approved"),
        ({"setpoint_c": 25}, "denied"),
        # the other scale: 20 °F is far below 18 °C, never 'between 18 and 24'
        ({"setpoint_f": 20}, "pending_review"),
        ({"setpoint_fahrenheit": 70}, "pending_review"),
    ],
)
def test_a_temperature_in_the_other_scale_goes_to_review(args, expected):
    rule = "Cold room setpoint must stay between 18 and 24 \u00b0C."
    assert _judge([rule], "set_cold_room_setpoint", args) == expected


def test_the_reading_of_a_count_says_what_it_is_per():
    (check,) = compile_rule(0, "c:r0", "max 2 refunds per order").checks
    assert "per order" in check.reading()


@settings(max_examples=40, deadline=None)
@given(hours=st.integers(min_value=1, max_value=2000))
def test_an_age_in_hours_is_compared_in_days(hours):
    rule = "Do not delete backups less than 30 days old."
    got = _judge([rule], "backup.delete", {"backup_id": "b", "age_hours": hours})
    assert got == ("denied" if hours < 30 * 24 else "approved")


_UNDERSTOOD_BASES = [
    "Refunds over $500 need a manager.",
    "Credits above 50 USD are forbidden.",
    "Payouts must not exceed 1,000 EUR.",
]
_TRAP_INSERTS = [
    ("Refunds", "Tier-{n} refunds"),
    ("Credits", "Tier {n} credits"),
    ("Payouts", "Payouts leaving a balance below {n} EUR and payouts"),
    ("Refunds", "Refunds on versions below {n}.1 and refunds"),
]


@settings(max_examples=40, deadline=None)
@given(
    base=st.sampled_from(_UNDERSTOOD_BASES),
    insert=st.sampled_from(_TRAP_INSERTS),
    n=st.integers(min_value=1, max_value=9),
)
def test_a_trap_inserted_into_an_understood_rule_leaves_it_partly_understood(base, insert, n):
    assert compile_rule(0, "c:r0", base).understanding == "understood"
    word, replacement = insert
    if word not in base:
        return
    rule = base.replace(word, replacement.format(n=n), 1)
    assert compile_rule(0, "c:r0", rule).understanding != "understood", rule
