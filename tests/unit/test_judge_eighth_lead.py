"""Misreadings the lead closed in the eighth session, after the first run of its three blind sets
(bench/README.md, "Eighth session"): the lead looked at their three unsafe approvals only, each a
rule labelled understood whose one check read words of the rule as values no request carries.

- 'GPU instances need FinOps approval': the name of who approves ('FinOps', 'the SRE-oncall
  team') was read as a one-item list of values; the request did not hold it, so the rule passed.
- 'claims flagged for SIU (fraud) investigation': plain words in brackets inside a noun phrase
  were read as the value the flag must hold.
- 'tenant SSNs, bank account details or background check reports': plain words running on into
  a noun were read as names listed after their kind ('account details or background').
"""

from __future__ import annotations

import pytest

from tests.unit.judge_support import outcome_beside_ticket
from tests.unit.test_judge_seventh_lead import _outcome
from webapp.judge.compiler import compile_rule


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Spot instances need CloudOps approval.",
            "cloud.instances.create",
            {"instance_type": "spot-m5.large"},
        ),
        (
            "Cheap instances need CloudOps sign-off.",
            "cloud.instances.create",
            {"instance_type": "t3.micro"},
        ),
        (
            "Prod deploys need sign-off from the SRE-oncall team.",
            "deploy.release",
            {"environment": "prod"},
        ),
        ("Prod deploys need approval from DevOps.", "deploy.release", {"environment": "prod"}),
    ],
)
def test_who_approves_is_never_a_value_the_request_must_hold(rule, tool, args):
    assert outcome_beside_ticket(rule, tool, {**args, "service": "api"}) == "pending_review"
    # the approval evidence a check reads names who approves, as who approves, not as a value
    readings = " ".join(
        c.reading().split(", unless an argument named for")[0] for c in _checks(rule)
    )
    assert "CloudOps" not in readings and "oncall" not in readings and "DevOps" not in readings


@pytest.mark.parametrize(
    "rule",
    [
        "No refunds on tickets flagged for KYC (identity) investigation.",
        "No disbursements on grants flagged for OIG (misuse) audit.",
    ],
)
def test_a_bracketed_gloss_is_not_a_value(rule):
    compiled = compile_rule(0, "c", rule)
    assert not compiled.decides
    assert all(
        "identity" not in c.reading() and "misuse" not in c.reading() for c in compiled.checks
    )


@pytest.mark.parametrize(
    ("rule", "fields"),
    [
        (
            "Never share employee SSNs, bank account numbers or medical leave records.",
            ["name", "ssn"],
        ),
        ("Never export tenant SSNs, card account details or credit check reports.", ["ssn"]),
    ],
)
def test_words_running_into_a_noun_are_not_listed_names(rule, fields):
    args = {"employee_id": "E-1", "fields": fields, "recipient": "benefits-vendor"}
    assert _outcome([rule], "hr.records.share", args) != "approved"
    assert not any(getattr(c, "kind_words", ()) == ("account",) for c in _checks(rule))


def test_named_values_after_their_kind_still_read():
    # the construct the run-on guard must leave alone: names listed after their kind noun
    rule = "Never drop the columns salary, iban or tax_id."
    compiled = compile_rule(0, "c", rule)
    assert compiled.decides
    assert _outcome([rule], "db.drop_column", {"column": "iban"}) == "denied"
    assert _outcome([rule], "db.drop_column", {"column": "nickname"}) == "approved"


def test_a_bracketed_list_of_codes_still_reads():
    rule = "Transfers to sanctioned countries (IR, KP) are forbidden."
    assert compile_rule(0, "c", rule).decides
    assert _outcome([rule], "transfers.send", {"country": "KP", "amount": 5}) == "denied"


def test_an_approval_rule_beside_a_satisfied_one_sends_to_review():
    args = {"node_type": "a100.8x", "count": 1}
    assert outcome_beside_ticket("GPU nodes need MLOps approval.", "compute.create_node", args) == (
        "pending_review"
    )


def _checks(rule: str) -> tuple:
    return compile_rule(0, "c", rule).checks


# -- wrong denials of the first run (the lead looked at those cases too), closed by class


def test_a_named_value_alone_does_not_show_the_forbidden_act():
    rule = "Do not disable SSO enforcement for acme-prod."
    rotate = {"org": "acme-prod", "changes": {"idp_certificate": "rotate"}}
    assert outcome_beside_ticket(rule, "org.sso.update_config", rotate) != "denied"
    # the act and the thing named in the request: still a denial
    assert outcome_beside_ticket(rule, "org.sso.disable_enforcement", {"org": "acme-prod"}) == (
        "denied"
    )
    assert outcome_beside_ticket(rule, "org.sso.disable_enforcement", {"org": "acme-dev"}) == (
        "approved"
    )
    # the act on another thing of the same org: not the rule's act
    assert outcome_beside_ticket(rule, "org.auth.disable_mfa", {"org": "acme-prod"}) != "denied"


@pytest.mark.parametrize(
    "rule",
    [
        "reason_code is mandatory, one of: SLA_BREACH, BILLING_ERROR, GOODWILL",
        "reason_code must be one of SLA_BREACH, BILLING_ERROR or GOODWILL.",
    ],
)
def test_an_argument_named_before_its_allowed_values_is_not_a_value(rule):
    base = {"account_id": "acct_1", "amount": 50, "currency": "USD"}
    tool = "billing.credits.issue"
    assert outcome_beside_ticket(rule, tool, {**base, "reason_code": "GOODWILL"}) == "approved"
    assert outcome_beside_ticket(rule, tool, {**base, "reason_code": "OTHER"}) == "denied"
    assert "reason_code" not in compile_rule(0, "c", rule).checks[0].values


def test_a_state_shifted_by_a_prefix_is_neither_shown_nor_ruled_out():
    rule = "Credits are not allowed for accounts in collections."
    tool, base = "billing.credits.issue", {"account_id": "a1", "amount": 10}
    assert outcome_beside_ticket(rule, tool, {**base, "account_status": "pre_collections"}) == (
        "pending_review"
    )
    assert outcome_beside_ticket(rule, tool, {**base, "account_status": "in_collections"}) == (
        "denied"
    )
    assert outcome_beside_ticket(rule, tool, {**base, "account_status": "active"}) == "approved"


def test_receiving_is_the_other_side_of_the_tools_act():
    rule = "Only verified sellers may receive payouts."
    base = {"seller_id": "s1", "amount": 10}
    assert outcome_beside_ticket(
        rule, "payouts.create", {**base, "seller_status": "not_verified"}
    ) != ("approved")
    assert outcome_beside_ticket(rule, "payouts.create", base) != "approved"
    assert outcome_beside_ticket(rule, "payouts.create", {**base, "seller_status": "verified"}) == (
        "approved"
    )


def test_a_value_holding_an_allowed_name_is_close_not_outside():
    rule = "Customer data exports go only to Snowflake or BigQuery."
    base = {"customer_ids": ["C-1"], "fields": ["full_name", "email"]}
    tool = "crm.customer.export"
    near = {**base, "destination": "Snowflake Labs (beta connector)"}
    assert outcome_beside_ticket(rule, tool, near) == "pending_review"
    assert outcome_beside_ticket(rule, tool, {**base, "destination": "Snowflake"}) == "approved"
    assert outcome_beside_ticket(rule, tool, {**base, "destination": "Redshift"}) == "denied"


def test_a_hyphenated_no_word_is_no_negation():
    rule = "no-cost extensions: max one per grant; anything over 12 months goes to the director"
    args = {"grant_id": "G-1", "prior_extensions": 0, "extension_months": 6}
    assert outcome_beside_ticket(rule, "grants.budget.no_cost_extension", args) != "denied"
    assert not any(
        c.effect == "deny" and not c.reading().startswith("Deny when") for c in _checks(rule)
    )


# -- closed lists written as what a thing must be


@pytest.mark.parametrize(
    "rule",
    [
        "Destination country must be US or CA.",
        "Destination country may only be US or CA.",
        "destination country has to be US, or CA",
    ],
)
def test_a_thing_that_must_be_one_of_listed_codes_is_an_allow_list(rule):
    tool = "payouts.disburse"
    base = {"amount": 50, "currency": "USD"}
    assert outcome_beside_ticket(rule, tool, {**base, "destination_country": "CA"}) == "approved"
    assert outcome_beside_ticket(rule, tool, {**base, "destination_country": "MX"}) == "denied"


@pytest.mark.parametrize(
    ("rule", "ok", "bad"),
    [
        ("Credits in USD only.", "USD", "EUR"),
        ("Payouts in EUR or GBP only.", "GBP", "USD"),
    ],
)
def test_a_currency_list_with_only_after_it_reads_as_the_only_currencies(rule, ok, bad):
    tool = "payouts.create" if rule.startswith("Payouts") else "credits.issue"
    assert outcome_beside_ticket(rule, tool, {"amount": 5, "currency": ok}) == "approved"
    assert outcome_beside_ticket(rule, tool, {"amount": 5, "currency": bad}) == "denied"


@pytest.mark.parametrize(
    "rule",
    [
        "Destination country must be US or CA for payouts to joint accounts.",
        "Destination country must be US or CA unless Treasury agrees.",
        "Backups must be encrypted or hashed.",
    ],
)
def test_a_list_with_words_after_it_or_plain_words_is_not_rewritten(rule):
    # the words after the list are a condition no check reads: the rule never decides alone
    assert not compile_rule(0, "c", rule).decides


def test_only_closing_a_phrase_restricts_it():
    rule = "Returns accepted within 30 days of delivery only."
    assert compile_rule(0, "c", rule).decides
    assert outcome_beside_ticket(rule, "returns.accept", {"days_since_delivery": 45}) == "denied"


def test_conversions_only_between_currencies_name_the_currencies_allowed():
    rule = "FX conversions only between USD, EUR, GBP, CHF and JPY."
    tool = "fx.convert"
    ok = {"from_currency": "USD", "to_currency": "JPY", "amount": 100}
    assert outcome_beside_ticket(rule, tool, ok) == "approved"
    assert outcome_beside_ticket(rule, tool, {**ok, "to_currency": "TRY"}) == "denied"


def test_who_may_act_is_shown_only_by_an_argument_named_for_the_role():
    # jred4's open case: 'workspace' in any argument had satisfied the role
    rule = "Only workspace owners may rotate keys."
    assert outcome_beside_ticket(rule, "keys.rotate", {"scope": "workspace", "key_id": "k1"}) == (
        "pending_review"
    )
    assert outcome_beside_ticket(rule, "keys.rotate", {"owner_type": "workspace"}) == "approved"
    assert outcome_beside_ticket(rule, "keys.rotate", {"owner_type": "project"}) == "denied"


# -- after holdout_17's one run on the final engine (the lead looked at its unsafe approval and
# its wrong denials only)


@pytest.mark.parametrize(
    "rule",
    [
        "Reviewers shall not certify their own access.",
        "Managers may not approve their own expenses.",
    ],
)
def test_their_own_is_a_relation_no_subject_reading_holds(rule):
    assert not compile_rule(0, "c", rule).decides


def test_a_value_holding_the_rules_value_inside_a_longer_word_is_close():
    rule = "reading prod secrets needs on-call approval. staging reads are ok"
    tool = "secrets.read"
    assert outcome_beside_ticket(rule, tool, {"environment": "preprod"}) == "pending_review"
    load = {"environment": "preprod", "purpose": "load test setup"}  # 'test' is an environment too
    assert outcome_beside_ticket(rule, tool, load) == "pending_review"
    assert outcome_beside_ticket(rule, tool, {"environment": "staging"}) == "approved"
    assert outcome_beside_ticket(rule, tool, {"environment": "prod"}) == "pending_review"
