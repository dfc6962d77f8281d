"""Eighth session, helper jlist: closed lists written as headings, two-argument lists, and
deny-lists whose act the tool names another way.

Each rule is judged beside a satisfied ticket rule (judge_support), so a rule the engine misreads
or passes by shows as an approval. The near-misses (one character off, a listed name inside a
longer value, a list argument with one member outside, one side of a two-argument list outside, a
wildcard that must not over-match, plain words that are states, a condition after the list) must
never approve.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import assert_never_decides, outcome_beside_ticket
from webapp.judge.compiler import _normalise, compile_rule

CARRIERS = "Permitted carriers: UPS, DHL-EXPRESS, TNT."
REGIONS = "Approved regions: eu-west-1, eu-central-1. Nothing else."
INSTANCES = "Instance types allowed: t3.*, m5.large, m5.xlarge. Nothing else."
RAILS = "Payment rails allowed - SEPA, ACH. Anything else is refused."
BLOCKED_ROLES = "The following roles are blocked: OrgOwner, BillingAdmin."
BLOCKED_CCY = "Blocked currencies: RUB, BYN."
BETWEEN = "Stock moves must be between warehouses on the approved list: WH-01, WH-02, WH-07."
SCOPES = "Never grant these scopes: admin:org, billing:write, users:delete."
STATES = "Ticket states: open, pending, closed only."
CONDITION_AFTER = "Approved formats: CSV, PARQUET, unless the export is for a regulator."


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (CARRIERS, "shipping.create_label", {"carrier": "UPS"}, "approved"),
        (CARRIERS, "shipping.create_label", {"carrier": "USPS"}, "denied"),
        (CARRIERS, "shipping.create_label", {"carrier": "DHL-EXPRESS-2"}, "pending_review"),
        (REGIONS, "cloud.create_bucket", {"bucket": "b", "region": "eu-central-1"}, "approved"),
        (REGIONS, "cloud.create_bucket", {"bucket": "b", "region": "eu-west-2"}, "denied"),
        (INSTANCES, "cloud.ec2.run_instances", {"instance_type": "t3.micro"}, "approved"),
        (INSTANCES, "cloud.ec2.run_instances", {"instance_type": "m5.xlarge"}, "approved"),
        (INSTANCES, "cloud.ec2.run_instances", {"instance_type": "t3a.large"}, "denied"),
        (INSTANCES, "cloud.ec2.run_instances", {"instance_type": "m5.2xlarge"}, "denied"),
        (RAILS, "payments.send", {"rail": "SEPA", "amount": 5, "currency": "EUR"}, "approved"),
        (RAILS, "payments.send", {"rail": "SWIFT", "amount": 5, "currency": "EUR"}, "denied"),
        (BLOCKED_ROLES, "iam.assign_role", {"user": "u", "role": "OrgOwner"}, "denied"),
        (BLOCKED_ROLES, "iam.assign_role", {"user": "u", "role": "Viewer"}, "approved"),
        (BLOCKED_CCY, "fx.convert", {"to_currency": "RUB", "amount": 10}, "denied"),
        (BLOCKED_CCY, "fx.convert", {"to_currency": "EUR", "amount": 10}, "approved"),
    ],
)
def test_headed_lists(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"from_warehouse": "WH-01", "to_warehouse": "WH-07"}, "approved"),
        ({"from_warehouse": "WH-01", "to_warehouse": "WH-09"}, "denied"),
        ({"from_warehouse": "WH-03", "to_warehouse": "WH-02"}, "denied"),
    ],
)
def test_both_sides_of_a_two_argument_list(args: dict, expected: str) -> None:
    assert outcome_beside_ticket(BETWEEN, "inventory.transfer", {"sku": "A", **args}) == expected


def test_a_listed_side_no_longer_hides_the_other_side() -> None:
    # before: the argument holding a listed value outranked the other, which was never compared
    rule = "Intercompany transfer entities must be one of ACME-US, ACME-UK, ACME-DE."
    args = {"from_entity": "ACME-US", "to_entity": "ACME-BR", "amount": 5}
    assert outcome_beside_ticket(rule, "treasury.transfer", args) == "denied"


def test_an_argument_merely_written_alike_is_not_the_other_side() -> None:
    # 'NYSE or NASDAQ' on `exchange`; `symbol: ACME` is written like an exchange code, but is
    # not the exchange seen from another side
    rule = "Orders may only be placed on NYSE or NASDAQ."
    args = {"exchange": "NYSE", "symbol": "ACME", "quantity": 10}
    assert outcome_beside_ticket(rule, "trading.place_order", args) != "denied"


@pytest.mark.parametrize(
    ("scopes", "expected"),
    [
        (["read:reports", "billing:write"], "pending_review"),
        (["billing:write"], "pending_review"),
        (["read:reports"], "approved"),
    ],
)
def test_a_listed_scope_under_another_verb_is_never_approved(
    scopes: list[str], expected: str
) -> None:
    # creating a key with a scope grants it: the tool names the act 'create', the rule 'grant'
    got = outcome_beside_ticket(SCOPES, "apikeys.create", {"name": "k", "scopes": scopes})
    assert got == expected


@pytest.mark.parametrize("rule", [STATES, CONDITION_AFTER])
def test_plain_words_and_a_condition_after_the_list_stay_text(rule: str) -> None:
    assert not compile_rule(0, "c:r0", rule).decides


def test_plain_english_states_are_not_rewritten() -> None:
    assert _normalise("Permitted environments: dev, staging.") == (
        "Permitted environments: dev, staging."
    )
    assert _normalise("Allowed statuses: open, pending.") == "Allowed statuses: open, pending."


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([CARRIERS, REGIONS, INSTANCES, RAILS, BLOCKED_ROLES, BETWEEN]),
    st.sampled_from(
        [
            " for privileged vendors",
            " unless the customer is external",
            " when the order is urgent",
            " except for sanctioned regions",
        ]
    ),
)
def test_a_condition_after_a_headed_list_leaves_it_partly_understood(rule: str, tail: str) -> None:
    # the heading is read only when the list ends the sentence: anything after it is unread
    assert compile_rule(0, "c:r0", rule).decides
    assert_never_decides(rule.rstrip(".").split(".")[0] + tail + ".")


ELSEWHERE = "Backups may go to: S3-EU or GCS-EU; nowhere else."
NOTHING_BUT = "Ship with nothing but UPS or DHL-EXPRESS."


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (ELSEWHERE, "backup.configure", {"job": "j", "target": "GCS-EU"}, "approved"),
        (ELSEWHERE, "backup.configure", {"job": "j", "target": "GCS-US"}, "denied"),
        (NOTHING_BUT, "shipping.create_label", {"carrier": "UPS"}, "approved"),
        (NOTHING_BUT, "shipping.create_label", {"carrier": "TNT"}, "denied"),
        # a broad act ('use') the tool names otherwise: an unlisted value is never approved
        (
            "Use only UPS or DHL-EXPRESS.",
            "shipping.create_label",
            {"carrier": "TNT"},
            "pending_review",
        ),
        (
            "Use nothing but UPS or DHL-EXPRESS.",
            "shipping.create_label",
            {"carrier": "TNT"},
            "pending_review",
        ),
    ],
)
def test_nowhere_else_and_nothing_but(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


def test_a_second_sentence_after_nowhere_else_stays_unread() -> None:
    rule = ELSEWHERE + " Staging backups are exempt."
    assert not compile_rule(0, "c:r0", rule).decides
    got = outcome_beside_ticket(rule, "backup.configure", {"job": "j", "target": "GCS-US"})
    assert got != "approved"


CONDITIONAL = "Allowed carriers: UPS, DHL-EXPRESS for parcels over 30 kg."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"carrier": "TNT", "weight_kg": 40}, "denied"),
        ({"carrier": "UPS", "weight_kg": 40}, "approved"),
        ({"carrier": "TNT", "weight_kg": 10}, "approved"),
        # exactly 30 kg is not over 30 kg (the boundary table): the list does not apply
        ({"carrier": "TNT", "weight_kg": 30}, "approved"),
    ],
)
def test_a_headed_list_under_a_condition(args: dict, expected: str) -> None:
    assert outcome_beside_ticket(CONDITIONAL, "shipping.create_label", args) == expected


def test_a_headed_list_under_an_open_category_stays_partly_understood() -> None:
    assert_never_decides("Allowed carriers: UPS, DHL-EXPRESS for privileged vendors.")
