"""One required value written as a plain word (jvalue).

'Deploy only from the main branch', 'The branch must be release', 'Exports must be written to the
analytics-exports bucket', 'Refunds go to store credit only' were text (review), and 'Refund
method must be card' was misread as a flag "`card` is on". Each is now one plain word read on the
one argument the rule's noun names (`ValueList`, match 'word'): the same word whatever its case
or separators, or a location whose bucket or host is it, satisfies the rule; another word denies
it; a value merely holding the word, no such argument or several go to review.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_support import outcome, outcome_beside_ticket

from webapp.judge.checks import ValueList, is_the_word
from webapp.judge.compiler import compile_rule

DEPLOY = "deploy.run"

VECTORS = [
    # (rule, tool, args, expected)
    ("Deploy only from the main branch.", DEPLOY, {"branch": "main"}, "approved"),
    ("Deploy only from the main branch.", DEPLOY, {"branch": "MAIN"}, "approved"),
    ("Deploy only from the main branch.", DEPLOY, {"branch": "develop"}, "denied"),
    ("Deploy only from the main branch.", DEPLOY, {"branch": "hotfix/x"}, "denied"),
    ("Deploy only from the main branch.", DEPLOY, {"branch": "main-backup"}, "pending_review"),
    ("Deploy only from the main branch.", DEPLOY, {"service": "web"}, "pending_review"),
    (
        "Deploy only from the main branch.",
        DEPLOY,
        {"branch": "main", "base_branch": "develop"},
        "pending_review",
    ),
    ("Deploys must use the main branch.", DEPLOY, {"branch": "main"}, "approved"),
    ("Deploys must use the main branch.", DEPLOY, {"branch": "develop"}, "denied"),
    ("The branch must be release.", DEPLOY, {"branch": "Release"}, "approved"),
    ("The branch must be release.", DEPLOY, {"branch": "release-candidate"}, "pending_review"),
    ("deploys: main branch only", DEPLOY, {"branch": "develop"}, "denied"),
    ("Only the main branch may be deployed.", DEPLOY, {"branch": "feature/main"}, "pending_review"),
    ("Only the main branch may be deployed.", DEPLOY, {"branch": "main"}, "approved"),
    (
        "Exports must be written to the analytics-exports bucket.",
        "exports.write",
        {"destination": "s3://analytics-exports/subs/2026-11.csv"},
        "approved",
    ),
    (
        "Exports must be written to the analytics-exports bucket.",
        "exports.write",
        {"destination": "s3://marketing-share/subs/x.csv"},
        "denied",
    ),
    (
        "Exports must be written to the analytics-exports bucket.",
        "exports.write",
        {"destination": "s3://analytics-exports-public/x.csv"},
        "pending_review",
    ),
    (
        "Exports must be written to the analytics-exports bucket.",
        "exports.write",
        {"dataset": "subs"},
        "pending_review",
    ),
    (
        "A payment can be released only once its status is approved.",
        "payments.release",
        {"status": "approved"},
        "approved",
    ),
    (
        "A payment can be released only once its status is approved.",
        "payments.release",
        {"status": "pending"},
        "denied",
    ),
    (
        "A payment can be released only once its status is approved.",
        "payments.release",
        {"payment_id": "P-1"},
        "pending_review",
    ),
    ("Payment status must be approved.", "payments.release", {"status": "draft"}, "denied"),
    ("Refund method must be card.", "refunds.issue", {"method": "card"}, "approved"),
    ("Refund method must be card.", "refunds.issue", {"method": "store_credit"}, "denied"),
    (
        "Refund method must be card.",
        "refunds.issue",
        {"method": "card", "fallback_method": "cash"},
        "pending_review",
    ),
    (
        "Refunds go to store credit only.",
        "refunds.issue",
        {"refund_method": "Store Credit"},
        "approved",
    ),
    ("Refunds go to store credit only.", "refunds.issue", {"refund_method": "card"}, "denied"),
    (
        "Refunds go to store credit only.",
        "refunds.issue",
        {"refund_method": "credit_card"},
        "pending_review",
    ),
    (
        "Responses are sent only through the secure portal.",
        "support.send_response",
        {"channel": "secure_portal"},
        "approved",
    ),
    (
        "Responses are sent only through the secure portal.",
        "support.send_response",
        {"channel": "email"},
        "denied",
    ),
    (
        "Shipments containing lithium batteries (contains_lithium = true) must use ground service.",
        "shipments.create",
        {"contains_lithium": True, "service_level": "air"},
        "denied",
    ),
    (
        "Shipments containing lithium batteries (contains_lithium = true) must use ground service.",
        "shipments.create",
        {"contains_lithium": False, "service_level": "air"},
        "approved",
    ),
    (
        "Shipments containing lithium batteries (contains_lithium = true) must use ground service.",
        "shipments.create",
        {"service_level": "air"},
        "pending_review",
    ),
    ("Service level must be ground.", "shipments.create", {"service_level": "Ground"}, "approved"),
    (
        "Exports may only be written to the analytics-exports bucket.",
        "exports.write",
        {"destination": "s3://other-bucket/x.csv"},
        "denied",
    ),
    (
        "Deploys can come from the main branch only.",
        DEPLOY,
        {"branch": "mainline"},
        "pending_review",
    ),
]


@pytest.mark.parametrize(("rule", "tool", "args", "expected"), VECTORS)
def test_vectors(rule, tool, args, expected):
    assert outcome([rule], tool, args) == expected


@pytest.mark.parametrize(("rule", "tool", "args", "expected"), VECTORS)
def test_vectors_beside_a_satisfied_rule(rule, tool, args, expected):
    assert outcome_beside_ticket(rule, tool, args) == expected


def test_one_word_with_no_noun_is_not_compared_with_every_argument():
    """'Payouts: weekly only' had been 'Deny unless an argument is weekly', which denied a
    payout by ACH; which argument the word is of is not read: review."""
    assert outcome(["Payouts: weekly only."], "payouts.create", {"payout_method": "ach"}) == (
        "pending_review"
    )


def test_reading_names_the_rules_noun():
    (via,) = compile_rule(0, "c", "Payments via wire only.").checks
    assert "channel or method is wire" in via.reading()
    (method,) = compile_rule(0, "c", "Refund method must be card.").checks
    assert "named for the method is card" in method.reading()


def test_refund_method_is_no_flag():
    """'Refund method must be card' was read as "`card` is on"; it is the method's value."""
    rule = compile_rule(0, "c", "Refund method must be card.")
    assert rule.understanding == "understood"
    (check,) = rule.checks
    assert isinstance(check, ValueList) and check.match == "word"
    assert check.values == ("card",)
    assert "method" in check.reading() and "card" in check.reading()
    assert "is on" not in check.reading()


@pytest.mark.parametrize(
    "rule",
    [
        "Never deploy from main.",
        "Deploys must not use the main branch.",
        "Deploy only from the main branch unless an incident is declared.",
        "Deploy only from the main or release branch.",
        "Data must be sent via the secure channel.",
        "Refunds must go to the original method only.",
        "Payments go through the treasury team only.",
        "Payouts go only to verified sellers.",
        "Only admins can deploy from the main branch.",
        "Payouts must use the standard payout method.",
        "The branch must be protected.",
        "The branch must be green.",
        "The method must be documented.",
    ],
)
def test_near_misses_are_not_one_plain_word(rule):
    """A negation, an exception, two values, a class or a party is not one required word."""
    checks = compile_rule(0, "c", rule).checks
    assert not any(isinstance(c, ValueList) and c.match == "word" for c in checks), rule


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("main", True),
        ("Main", True),
        ("store_credit", False),
        ("main-backup", None),
        ("feature/main", None),
        ("s3://main/x", True),
        ("develop", False),
    ],
)
def test_is_the_word(value, expected):
    assert is_the_word(value, "main") is expected


_WORD = st.sampled_from(["alpha", "bravo", "main", "ground", "portal"])


@settings(max_examples=60, deadline=None)
@given(want=_WORD, got=_WORD, sep=st.sampled_from(["-", "_", "/", " "]), tail=_WORD)
def test_a_value_holding_the_word_is_never_approved(want, got, sep, tail):
    """A value that holds the required word beside another never satisfies the rule, and a
    different word always denies it."""
    rule = f"The branch must be {want}."
    held = f"{want}{sep}{tail}" if tail != want else f"{want}{sep}x{tail}"
    assert outcome([rule], DEPLOY, {"branch": held}) == "pending_review"
    expected = "approved" if got == want else "denied"
    assert outcome([rule], DEPLOY, {"branch": got}) == expected


_INSERTED = st.sampled_from(
    [
        " unless an incident is declared",
        " for production services",
        " during business hours",
        " except for hotfixes",
        " or a release branch",
    ]
)


@settings(max_examples=40, deadline=None)
@given(
    inserted=_INSERTED,
    base=st.sampled_from(["Deploy only from the main branch", "Deploys must use the main branch"]),
)
def test_an_inserted_condition_never_decides_alone(inserted, base):
    """A condition or a second value after the rule is no longer one plain word: the rule is not
    read as the word alone, and a request from another branch is never approved."""
    rule = base + inserted + "."
    checks = compile_rule(0, "c", rule).checks
    assert not any(isinstance(c, ValueList) and c.match == "word" for c in checks), rule
    assert outcome([rule], DEPLOY, {"branch": "hotfix/x"}) != "approved"
