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


# The false denials of the tenth session's blind sets, each a class (docs/judge.md, "Tenth
# session, the lead"). Phrased anew here; the blind cases themselves are in holdout_24 … 27.


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # a number inside one of the counted things is an attribute of it, not how many
        ({"tests": [{"cpt": "80053"}, {"cpt": "85025"}], "ticket_id": "T"}, "approved"),
        ({"tests": [{"cpt": "80053"}] * 11}, "denied"),
        ({"tests": [{"cpt": "80053"}] * 10}, "approved"),
        ({"order": {"tests_count": 12}}, "denied"),
    ],
)
def test_a_list_of_objects_is_counted_by_its_length(args: dict, expected: str) -> None:
    assert outcome_beside_ticket("Max 10 tests per order.", "lab.order_create", args) == expected


@pytest.mark.parametrize(
    "rule",
    [
        "Seller KYC status must be 'verified' - pending or failed KYC = no payout.",
        "KYC status must be 'verified': no payout otherwise.",
        'Account state must be "active" - anything else = no transfer.',
    ],
)
def test_a_required_value_is_never_refused(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert not compiled.decides
    args = {"kyc_status": "verified", "account_state": "active"}
    assert outcome_beside_ticket(rule, "payouts.release", args) != "denied"


def test_a_refused_value_after_a_dash_still_decides() -> None:
    rule = "KYC status 'pending' - no payout."
    assert compile_rule(0, "c:r0", rule).decides
    assert outcome_beside_ticket(rule, "payouts.release", {"kyc_status": "pending"}) == "denied"


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Use AWS-managed or customer-managed policies only.",
            "iam.attach_policy",
            {"policy_arn": "arn:aws:iam::aws:policy/ReadOnlyAccess"},
        ),
        (
            "Only vendor-issued certificates may be uploaded.",
            "certificates.upload",
            {"certificate": "cert-1", "vendor": "DigiCert"},
        ),
        ("Runners must be self-hosted or GitHub-hosted.", "ci.register", {"runners": "ubuntu-24"}),
    ],
)
def test_kinds_named_by_who_manages_them_are_not_names(rule: str, tool: str, args: dict) -> None:
    assert compile_rule(0, "c:r0", rule).understanding == "partly_understood"
    assert outcome_beside_ticket(rule, tool, args) == "pending_review"


NEXUS = {"nexus states": ["CA", "NY", "TX", "IL", "WA"]}
STATE_PAYMENTS = "State estimated payments may be made only to nexus states."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # a plain word ('federal') or a currency ('USD') in another argument is no state code
        ({"level": "federal", "currency": "USD", "amount": 10}, "pending_review"),
        ({"level": "state", "state": "CA"}, "approved"),
        ({"level": "state", "state": "OR"}, "denied"),
    ],
)
def test_an_allow_list_of_codes_reads_only_an_argument_written_like_them(
    args: dict, expected: str
) -> None:
    assert (
        outcome_beside_ticket(STATE_PAYMENTS, "tax.estimated_payments.pay", args, NEXUS) == expected
    )


EXPIRED = "Expired or recalled lots must never be dispensed or transferred to another store."


@pytest.mark.parametrize(
    "args",
    [
        {"to_store": "S-2", "lot": {"status": "active", "expiry": "2026-08-31"}},
        {"to_store": "S-2", "lot": {"status": "active", "expires_on": "2024-01-31"}},
    ],
)
def test_a_date_named_for_a_state_neither_shows_nor_rules_it_out(args: dict) -> None:
    # `expiry: <date>` says when, not whether: a human reads the date (it had denied an
    # active lot, through the name 'expiry' showing 'expired')
    assert outcome_beside_ticket(EXPIRED, "inventory.transfer", args) == "pending_review"


CRIMEA = "No payments to Cuba, Iran or the Crimea region."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # a region under sanctions of its own, inside a country: the country alone may be in it
        ({"country": "UA", "amount": 5}, "pending_review"),
        ({"country": "UA", "region": "Crimea", "amount": 5}, "denied"),
        ({"country": "UA", "city": "Sevastopol", "amount": 5}, "pending_review"),
        ({"country": "CU", "amount": 5}, "denied"),
        ({"country": "DE", "amount": 5}, "approved"),
    ],
)
def test_sanctioned_regions_inside_a_country(args: dict, expected: str) -> None:
    assert outcome_beside_ticket(CRIMEA, "payments.create", args) == expected


def test_the_dnr_and_lnr_are_read_as_regions() -> None:
    rule = "Vendors in Cuba, Syria, or the Crimea / DNR / LNR regions may not be onboarded."
    assert compile_rule(0, "c:r0", rule).understanding == "understood"
    assert outcome_beside_ticket(rule, "vendors.onboard", {"country": "UA"}) == "pending_review"


@pytest.mark.parametrize(("country", "expected"), [("SY", "denied"), ("DE", "approved")])
def test_onboarding_a_vendor_is_creating_its_record(country: str, expected: str) -> None:
    # the rule had been ruled out by the tool's verb ('create' is not 'onboard'): a Syrian
    # vendor was approved
    rule = "Vendors incorporated in Cuba, Iran, North Korea or Syria may not be onboarded."
    args = {"vendor": {"country": country}}
    assert outcome_beside_ticket(rule, "vendor_master.create", args) == expected


# The first runs of holdout_28 and holdout_29 on the session's final engine: a false denial and
# an approval lost, both from this session's relation reading.


def test_an_exception_in_the_next_sentence_keeps_the_relation_from_deciding() -> None:
    rule = (
        "Refund goes back to the original payment method. Different method = not allowed, "
        "except store credit."
    )
    assert not compile_rule(0, "c:r0", rule).decides
    args = {"original_method": "card", "refund_method": "store_credit"}
    assert outcome_beside_ticket(rule, "refunds.create", args) == "pending_review"


@pytest.mark.parametrize(
    ("refund_to", "expected"), [("original_method", "approved"), ("card", "pending_review")]
)
def test_a_relation_bound_to_the_value_naming_the_original(refund_to: str, expected: str) -> None:
    rule = "Refund goes back to the original payment method only (refund_to = original_method)."
    assert compile_rule(0, "c:r0", rule).understanding == "understood"
    args = {"refund_to": refund_to, "amount": 5}
    assert outcome_beside_ticket(rule, "billing.refund_order", args) == expected


# holdout_31's first run on the final engine: an unsafe approval and a false denial, each a class.


@pytest.mark.parametrize(
    "rule",
    [
        "prod-db-admin via break-glass = SEV1 incidents only.",
        "payments-admin role = security team members only",
    ],
)
def test_a_value_restricted_by_only_is_not_the_one_value_allowed(rule: str) -> None:
    # read as "Deny unless an argument is prod-db-admin", a SEV2 grant of it was approved
    assert not compile_rule(0, "c:r0", rule).decides
    args = {"role": "prod-db-admin", "incident_severity": "SEV2"}
    assert outcome_beside_ticket(rule, "access.grant_breakglass", args) != "approved"


def test_a_value_on_the_right_of_an_equals_only_still_decides() -> None:
    rule = "Region = eu-west-1 only."
    assert compile_rule(0, "c:r0", rule).decides
    assert outcome_beside_ticket(rule, "deploy", {"region": "eu-west-1"}) == "approved"


OPEN_TICKET = "Every export must reference an open Zendesk ticket in `ticket_id`."


@pytest.mark.parametrize(
    ("status", "expected"),
    [("open", "approved"), ("closed", "pending_review"), (None, "pending_review")],
)
def test_the_state_the_rule_asks_for_is_the_good_one(status: str | None, expected: str) -> None:
    # 'open' states a bad outcome elsewhere ('an open dispute'); here it is what is asked for
    args = {"ticket_id": "ZD-88231", **({"ticket_status": status} if status else {})}
    assert outcome_beside_ticket(OPEN_TICKET, "support.export_customer_data", args) == expected
