"""Rule compiler vectors: many phrasings -> the structured check they must become."""

from __future__ import annotations

import pytest

from webapp.judge.checks import (
    ActionRule,
    ArgumentComparison,
    FirstTimeCounterparty,
    NumericLimit,
    RequiredArgument,
    RequiredFlag,
    ValueList,
)
from webapp.judge.compiler import compile_policy, compile_rule, scope_of
from webapp.judge.quantities import find_quantities
from webapp.judge.types import PolicyVersion


def only_check(text: str):
    rule = compile_rule(0, "pv:r0", text)
    assert not rule.uncompiled, text
    assert len(rule.checks) == 1, (text, rule.checks)
    return rule.checks[0]


@pytest.mark.parametrize(
    ("text", "value", "currency"),
    [
        ("$25,000", 25000, "USD"),
        ("€1.5m", 1_500_000, "EUR"),
        ("2,500 EUR", 2500, "EUR"),
        ("USD 100k", 100_000, "USD"),
        ("£10,000", 10000, "GBP"),
        ("1M", 1_000_000, None),
        ("5k", 5000, None),
        ("2.000.000 EUR", 2_000_000, "EUR"),
        ("10 000 rows", 10000, None),
        ("1 million records", 1_000_000, None),
        ("300 dollars", 300, "USD"),
    ],
)
def test_quantities_parse_currencies_separators_and_suffixes(text, value, currency):
    (q,) = find_quantities(text)
    assert q.value == value
    assert q.currency == currency


def test_identifiers_are_not_quantities():
    assert find_quantities("eu-west-1 or t3.micro or 0.0.0.0/0") == []


@pytest.mark.parametrize(
    ("text", "op", "threshold", "effect", "currency"),
    [
        ("Single payments must not exceed $25,000.", "gt", 25000, "deny", "USD"),
        ("No payment may be larger than 5k.", "gt", 5000, "deny", None),
        ("Payments are capped at $50,000.", "gt", 50000, "deny", "USD"),
        ("Outgoing transfers are capped at €1.5m per transaction.", "gt", 1.5e6, "deny", "EUR"),
        ("Refunds are limited to $500.", "gt", 500, "deny", "USD"),
        ("The maximum refund is $300.", "gt", 300, "deny", "USD"),
        ("Hard limit: 1M per transfer.", "gt", 1e6, "deny", None),
        ("Payouts may be at most 2,000 GBP.", "gt", 2000, "deny", "GBP"),
        ("A refund can be up to $200 and never more.", "gt", 200, "deny", "USD"),
        ("Payments over £10,000 are prohibited.", "gt", 10000, "deny", "GBP"),
        ("Payments of less than $1 are not allowed.", "lt", 1, "deny", "USD"),
        ("Hourly rates must be at least $15.", "lt", 15, "deny", "USD"),
        ("The minimum transfer is EUR 10.", "lt", 10, "deny", "EUR"),
        (
            "Payments above $10,000 require approval from a treasury manager.",
            "gt",
            10000,
            "review",
            "USD",
        ),
        ("Wire transfers over USD 100k need CFO sign-off.", "gt", 100000, "review", "USD"),
        ("Payout amounts above 2,500 EUR must be manually approved.", "gt", 2500, "review", "EUR"),
        ("Anything over 5k goes to a human.", "gt", 5000, "review", None),
        ("Refunds: max $250 without a manager.", "gt", 250, "review", "USD"),
        ("Charges of $1,000 or more must be reviewed.", "ge", 1000, "review", "USD"),
        ("Up to €500 is fine, above that needs a second pair of eyes.", "gt", 500, "review", "EUR"),
    ],
)
def test_caps_floors_and_review_thresholds(text, op, threshold, effect, currency):
    check = compile_rule(0, "pv:r0", text).checks[0]
    assert isinstance(check, NumericLimit)
    assert (check.op, check.threshold, check.effect, check.currency) == (
        op,
        threshold,
        effect,
        currency,
    )


def test_refunds_auto_approved_below_a_threshold_need_review_above_it():
    check = only_check("Refunds under $50 can be auto-approved.")
    assert isinstance(check, NumericLimit)
    assert (check.effect, check.op, check.threshold) == ("allow", "ge", 50)


@pytest.mark.parametrize(
    ("text", "unit", "noun"),
    [
        ("Exports are limited to 10,000 rows.", None, "rows"),
        ("Attachments larger than 10 MB are not allowed.", "bytes", None),
        ("Salary increases above 10% require HR director approval.", "percent", None),
        ("Share links must expire within 7 days.", "time", None),
        ("No more than 10 instances can be launched in a single request.", None, "instances"),
    ],
)
def test_units_and_counted_nouns(text, unit, noun):
    check = compile_rule(0, "pv:r0", text).checks[0]
    assert isinstance(check, NumericLimit)
    assert check.unit_family == unit
    assert check.noun == noun
    assert not check.counts_calls


@pytest.mark.parametrize(
    ("text", "window", "counts_calls"),
    [
        ("An agent may not send more than $20,000 in total per day.", "day", False),
        ("Each agent can pay out no more than €30k per calendar day.", "day", False),
        ("No more than 20 payouts per hour per agent.", "hour", True),
        ("An agent may send at most 100 emails per hour.", "hour", True),
        ("Bulk exports (more than 5 per hour) are not allowed.", "hour", True),
    ],
)
def test_limits_across_calls(text, window, counts_calls):
    check = compile_rule(0, "pv:r0", text).checks[0]
    assert isinstance(check, NumericLimit)
    assert check.window == window
    assert check.counts_calls is counts_calls
    assert check.effect == "deny"


@pytest.mark.parametrize(
    ("text", "mode", "match", "values"),
    [
        (
            "Card payments may only be made in USD, EUR or GBP.",
            "allow",
            "currency",
            ("USD", "EUR", "GBP"),
        ),
        (
            "Payments to sanctioned countries (Iran, North Korea, Syria, Cuba) are prohibited.",
            "deny",
            "place",
            ("IR", "KP", "SY", "CU"),
        ),
        (
            "We only pay out to the United States, Canada and the United Kingdom.",
            "allow",
            "place",
            ("US", "CA", "GB"),
        ),
        (
            "Offer letters may be issued only for roles in US, CA or GB.",
            "allow",
            "place",
            ("US", "CA", "GB"),
        ),
        (
            "Payouts may only be sent to IBANs starting with DE, FR, NL or BE.",
            "allow",
            "prefix",
            ("DE", "FR", "NL", "BE"),
        ),
        ("Emails may only be sent to @acme.com addresses.", "allow", "domain", ("acme.com",)),
        (
            "Do not send email to the competitors' domains: globex.com, initech.com.",
            "deny",
            "domain",
            ("globex.com", "initech.com"),
        ),
        (
            "Resources may only be created in eu-west-1 or eu-central-1.",
            "allow",
            "exact",
            ("eu-west-1", "eu-central-1"),
        ),
        (
            "Deploys may target the following clusters only: eu-prod-1, eu-staging-1.",
            "allow",
            "exact",
            ("eu-prod-1", "eu-staging-1"),
        ),
        # one plain word of the argument its noun names: compared as a word (test_judge_jvalue)
        ("Only the main branch may be deployed to production.", "allow", "word", ("main",)),
        ("Security groups must not be opened to 0.0.0.0/0.", "deny", "contains", ("0.0.0.0/0",)),
        ("Data exports to regions outside the EU are prohibited.", "allow", "place", ("EU",)),
    ],
)
def test_allow_and_deny_lists(text, mode, match, values):
    check = only_check(text)
    assert isinstance(check, ValueList)
    assert (check.mode, check.match, check.values) == (mode, match, values)


@pytest.mark.parametrize(
    ("text", "words", "exact"),
    [
        ("Every payment must reference an invoice number.", ("invoic", "number"), ""),
        ("Requests must include a ticket_id.", ("ticket", "id"), "ticket_id"),
        (
            "Deleting snapshots requires a change ticket (field change_ticket).",
            ("chang", "ticket"),
            "change_ticket",
        ),
        ("Exports must specify a purpose.", ("purpos",), ""),
        ("A justification is required.", ("justific",), ""),
    ],
)
def test_required_arguments(text, words, exact):
    check = only_check(text)
    assert isinstance(check, RequiredArgument)
    assert check.arg_words == words
    assert check.exact_name == exact


def test_required_flags():
    enc = only_check("Production database dumps must be encrypted.")
    assert isinstance(enc, RequiredFlag) and enc.flag_words == ("encrypt",)
    mfa = only_check("IAM users must not be created without MFA enabled.")
    assert isinstance(mfa, RequiredFlag) and mfa.flag_words == ("mfa", "enabl")


def test_argument_comparisons():
    refund = only_check("The refund amount must not exceed the original charge amount.")
    assert isinstance(refund, ArgumentComparison)
    assert refund.op == "gt" and "origin" in refund.right and "refund" in refund.left
    offer = only_check("Offers must not exceed the approved budget for the role.")
    assert isinstance(offer, ArgumentComparison) and "budget" in offer.right


@pytest.mark.parametrize(
    "text",
    [
        "Payments to a payee we have never paid before must be reviewed by a human.",
        "First-time recipients need manual approval.",
        "Payouts to a new beneficiary require review.",
    ],
)
def test_first_time_counterparty(text):
    check = only_check(text)
    assert isinstance(check, FirstTimeCounterparty)
    assert check.effect == "review"


@pytest.mark.parametrize(
    ("text", "effect"),
    [
        ("Agents must never delete S3 buckets.", "deny"),
        ("Agents may never terminate employees.", "deny"),
        ("Any change to IAM policies requires human approval.", "review"),
        ("Rollbacks are always permitted.", "allow"),
        ("Read-only operations (list, get, describe) are always allowed.", "allow"),
    ],
)
def test_action_rules(text, effect):
    check = only_check(text)
    assert isinstance(check, ActionRule)
    assert check.effect == effect


def test_mixed_permission_and_review_in_one_rule():
    rule = compile_rule(
        0,
        "pv:r0",
        "Agents may stop or reboot instances freely, but terminating an instance needs an operator's approval.",
    )
    effects = sorted(c.effect for c in rule.checks)
    assert effects == ["allow", "review"]


@pytest.mark.parametrize(
    "text",
    [
        "Employees must complete annual anti-bribery training.",
        "Background checks must be completed before an offer is sent.",
    ],
)
def test_rules_it_cannot_understand_stay_text(text):
    rule = compile_rule(0, "pv:r0", text)
    assert rule.uncompiled
    assert rule.checks == ()


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "!!!",
        "$$$ €€€ 1,2,3,,, ::: (((",
        "\x00\x01",
        "a" * 2000,
        "must must must not not",
    ],
)
def test_garbage_never_raises(text):
    compile_rule(0, "pv:r0", text)


def test_scope_statements():
    assert scope_of("Applies to EMEA payouts only.") == ("EMEA", "payouts")
    assert scope_of("This policy only applies to production deploys.") == ("production", "deploys")
    assert scope_of("Limits for outgoing payments.") == ()


def test_compile_policy_keeps_source_text_and_chunk_ids():
    policy = PolicyVersion(
        "p",
        "pv1",
        "h",
        "",
        ("Payments must not exceed $10.", "Background - refunds were abused in 2024."),
        (),
    )
    cp = compile_policy(policy)
    assert [r.chunk_id for r in cp.rules] == ["pv1:r0", "pv1:r1"]
    assert cp.rules[0].checks[0].source == "Payments must not exceed $10."
    assert cp.rules[1].informational and not cp.rules[1].uncompiled
    assert cp.compiled_count == 1
