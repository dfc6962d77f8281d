"""Denials the engine used to turn into review: words the request does not show that bind nothing.

An advice tail after a prohibition ('- send the customer to Finance'), a force phrase ('no
exceptions'), a holder noun after a quantifier ('for any account') and a day of the week read
from the request's date. Each reading has near-misses beside it where the unseen word narrows the
rule's subject, and those must never be denied (nor approved when the rule may apply).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.judge_support import (
    CATEGORY_NOUNS,
    CATEGORY_QUALIFIERS,
    assert_never_decides,
    outcome_beside_ticket,
)
from webapp.judge.compiler import _set_aside, compile_rule

REFUND_CAP = "Agents can't issue refunds of $1,000 or more - send the customer to Finance."


# -- advice tails and force phrases ------------------------------------------------------------
@pytest.mark.parametrize(
    "rule, tool, amount, expected",
    [
        (REFUND_CAP, "refunds.issue", 1000, "denied"),
        (REFUND_CAP, "refunds.issue", 999.99, "approved"),
        (
            "No wire recalls above €20,000 — refer them to Treasury.",
            "wires.recall",
            25000,
            "denied",
        ),
        (
            "Bots may not waive fees over $100; hand these to a specialist.",
            "fees.waive",
            140,
            "denied",
        ),
    ],
)
def test_an_advice_tail_after_a_prohibition_binds_nothing(rule, tool, amount, expected):
    args = {"order_id": "O-1", "amount": amount, "currency": "EUR" if "€" in rule else "USD"}
    assert outcome_beside_ticket(rule, tool, args) == expected, rule


@pytest.mark.parametrize(
    "rule",
    [
        # no prohibition: the tail is where the request goes (a review), not advice
        "Refunds of $1,000 or more - send to Finance.",
        # the tail carries a condition or a number: it binds
        "No refunds of $1,000 or more - send to Finance unless the order is under warranty.",
        "No refunds of $1,000 or more - send to Finance if over $5,000.",
        # after a comma, acts listed with the first: never a tail
        "Do not email, call or text customers who opted out to Finance.",
        # two places to send it: kept whole rather than guessed at
        "No refunds of $1,000 or more - send to Finance or to Legal.",
    ],
)
def test_a_tail_that_binds_is_not_set_aside(rule):
    assert "Finance" in _set_aside(rule)


def test_a_tail_naming_a_narrower_subject_leaves_the_rule_unknown():
    rule = "Agents can't issue refunds of $1,000 or more to EU customers - send them to Finance."
    args = {"order_id": "O-9", "amount": 1500, "currency": "USD"}
    assert outcome_beside_ticket(rule, "refunds.issue", args) == "pending_review"


@pytest.mark.parametrize(
    "rule, kept",
    [
        ("Accounts on credit hold: no new orders, no exceptions.", False),
        ("Discounts over 30% are not allowed, no exceptions.", False),
        # 'no exceptions for VIPs' names a class; 'under no circumstances' is the prohibition
        ("No exceptions for VIPs: refunds over $50 need approval.", True),
        ("Under no circumstances may agents delete backups.", True),
    ],
)
def test_a_force_phrase_is_set_aside_only_where_it_binds_nothing(rule, kept):
    assert (_set_aside(rule) == rule) is kept


def test_no_exceptions_beside_a_state_denies_that_state():
    rule = "Accounts on credit hold: no new orders, no exceptions."
    args = {"account_id": "B-1", "account_status": "credit_hold", "order_total": 450}
    assert outcome_beside_ticket(rule, "wholesale.orders.create", args) == "denied"
    args = {**args, "account_status": "active"}
    assert outcome_beside_ticket(rule, "wholesale.orders.create", args) != "denied"


# -- holder nouns after a quantifier -----------------------------------------------------------
@pytest.mark.parametrize(
    "rule, tool, args",
    [
        ("MFA may not be disabled for any account.", "iam.mfa.update", {"user": "t.n"}),
        ("Audit logging may not be disabled for any organization.", "org.audit_logging.update", {}),
        ("Agents must not delete backups in any environment.", "backups.delete", {}),
        ("Tables may not be truncated in any database.", "db.truncate_table", {}),
    ],
)
def test_a_quantified_holder_is_matched_by_a_request_on_a_thing_of_its_kind(rule, tool, args):
    extra = {
        "iam.mfa.update": {"action": "disable"},
        "org.audit_logging.update": {"org_id": "acme", "action": "disable"},
        "backups.delete": {"backup_id": "b-1", "env": "staging"},
        "db.truncate_table": {"database": "orders", "table": "lines"},
    }[tool]
    assert outcome_beside_ticket(rule, tool, {**args, **extra}) == "denied", rule


@pytest.mark.parametrize(
    "rule, tool, args",
    [
        # a word before the holder narrows it
        ("MFA may not be disabled for any admin account.", "iam.mfa.update", {"user": "t.n"}),
        ("MFA may not be disabled for service accounts.", "iam.mfa.update", {"user": "t.n"}),
        # a class of what is acted on, not a holder every such request has
        ("Refunds may not be issued for any subscription.", "refunds.issue", {"order_id": "O"}),
        # the request acts on no thing of the holder's kind
        ("Agents may not delete any account.", "files.delete", {"file_id": "F-1"}),
        # a qualifier after the holder still narrows
        ("Don't delete any user with open tickets.", "users.delete", {"user_id": "U-1"}),
    ],
)
def test_a_narrowed_or_foreign_holder_is_never_denied(rule, tool, args):
    extra = {"action": "disable"} if tool == "iam.mfa.update" else {}
    assert outcome_beside_ticket(rule, tool, {**args, **extra}) == "pending_review", rule


@given(
    qualifier=st.sampled_from(CATEGORY_QUALIFIERS),
    template=st.sampled_from(
        [
            "MFA may not be disabled for any {q} account.",
            "Agents must not delete backups in any {q} environment.",
            "Audit logging may not be disabled for any {q} organization.",
        ]
    ),
)
def test_a_category_inserted_before_a_quantified_holder_never_decides(qualifier, template):
    assert_never_decides(template.format(q=qualifier))


@given(
    qualifier=st.sampled_from(CATEGORY_QUALIFIERS),
    noun=st.sampled_from(CATEGORY_NOUNS),
)
def test_a_category_inserted_into_an_advice_tail_rule_never_decides(qualifier, noun):
    # the tail is set aside; the category inserted before it is still the rule's and unread
    assert_never_decides(
        f"Agents can't issue refunds of $1,000 or more to {qualifier} {noun} - send the "
        "customer to Finance."
    )


# -- days of the week --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "when, expected",
    [
        ("2026-03-07", "denied"),  # a Saturday
        ("2026-03-07T14:00:00Z", "denied"),  # Saturday in every zone
        ("Saturday", "denied"),
        ("2026-03-04T14:00:00Z", "approved"),  # Wednesday in every zone
        ("2026-03-06T23:30:00Z", "pending_review"),  # Friday here, Saturday east of UTC+0:30
    ],
)
def test_a_weekend_rule_reads_the_requests_day(when, expected):
    rule = "no db migrations sat/sun"
    args = {"database": "orders", "scheduled_at": when}
    assert outcome_beside_ticket(rule, "db.migrations.run", args) == expected, when


def test_a_weekday_rule_with_no_date_goes_to_review():
    args = {"database": "orders"}
    assert outcome_beside_ticket("no db migrations sat/sun", "db.migrations.run", args) == (
        "pending_review"
    )


@pytest.mark.parametrize(
    "when, expected",
    [
        ("2024-11-08T15:30:00", "denied"),  # Friday afternoon, local time
        ("2024-11-08T09:30:00", "approved"),  # Friday morning
        ("2024-11-08", "pending_review"),  # Friday, time of day not said
        ("2024-11-08T15:30:00Z", "pending_review"),  # morning in the Americas, afternoon here
        ("2024-11-12T10:00:00Z", "approved"),  # Tuesday, whatever the zone
    ],
)
def test_a_part_of_the_day_needs_the_requests_time(when, expected):
    rule = "no prod deploys fri pm"
    args = {"service": "web", "environment": "prod", "scheduled_at": when}
    assert outcome_beside_ticket(rule, "deploy.release", args) == expected, when


@pytest.mark.parametrize(
    "rule",
    [
        "At most 20 monitors (SKU prefix MON-) on a single order.",  # a code, not Monday
        "Prod deploys frozen for billing-api until after Black Friday.",  # a named day
        "Deploys need approval except on weekends.",  # the exception is what is allowed
        "Tickets that sat idle for 30 days may be closed.",  # 'sat' the verb
    ],
)
def test_a_day_word_that_is_no_window_is_not_read_as_one(rule):
    assert all(c.kind != "weekday" for c in compile_rule(0, "c:r0", rule).checks), rule


def test_days_of_the_week_are_never_a_lists_values():
    compiled = compile_rule(0, "c:r0", "no db migrations sat/sun")
    assert all(c.kind != "value_list" for c in compiled.checks)


# -- a kind of message the tool's name gives ---------------------------------------------------
def test_a_campaign_is_marketing_and_a_plain_email_may_not_be():
    rule = "Every marketing email must include an unsubscribe link."
    off = {"campaign_id": "C-1", "include_unsubscribe_link": False}
    assert outcome_beside_ticket(rule, "email.campaign.send", off) == "denied"
    on = {"campaign_id": "C-1", "include_unsubscribe_link": True}
    assert outcome_beside_ticket(rule, "email.campaign.send", on) == "approved"
    plain = {"to": "a@b.example", "include_unsubscribe_link": False}
    assert outcome_beside_ticket(rule, "email.send", plain) == "pending_review"


# -- a flag switched off on a generic change tool ----------------------------------------------
ENFORCED = "Disabling SSO enforcement is forbidden."
ANY_ORG = "SSO may not be disabled for any organization."


@pytest.mark.parametrize(
    "rule, tool, args, expected",
    [
        (ENFORCED, "sso.set_enforcement", {"enforced": False}, "denied"),
        (ANY_ORG, "iam.update_sso", {"org": "acme", "sso_enabled": "false"}, "denied"),
        # a flag named for the opposite: SSO stays on
        (ANY_ORG, "iam.update_sso", {"org": "acme", "sso_disabled": False}, "pending_review"),
        # another flag off: the rule's act is not shown
        (ANY_ORG, "iam.update_sso", {"org": "acme", "notify_admins": False}, "pending_review"),
        (ANY_ORG, "iam.update_sso", {"org": "acme"}, "pending_review"),
        # the rule's thing is not the request's: 'enforcement' is not shown
        (
            "SSO enforcement may not be disabled for any organization.",
            "iam.update_sso",
            {"org": "acme", "sso_enabled": "false"},
            "pending_review",
        ),
    ],
)
def test_a_flag_of_the_rules_thing_switched_off_is_the_rules_disabling(rule, tool, args, expected):
    assert outcome_beside_ticket(rule, tool, args) == expected, args


# -- a value near the rule's state, not in it ---------------------------------------------------
@pytest.mark.parametrize(
    "status, expected",
    [
        ("collections", "denied"),
        ("in_collections", "denied"),
        ("pre_collections", "pending_review"),  # close to the state: a human decides
        ("post-collections", "pending_review"),
        ("current", "approved"),
    ],
)
def test_a_state_behind_a_modifier_is_neither_shown_nor_ruled_out(status, expected):
    # the force phrase is set aside, so nothing else keeps the rule from deciding
    rule = "Credits are not allowed for accounts in collections, no exceptions."
    args = {"account_id": "A-1", "account_status": status, "amount": 40}
    assert outcome_beside_ticket(rule, "billing.credits.grant", args) == expected, status
