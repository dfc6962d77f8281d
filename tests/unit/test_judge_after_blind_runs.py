"""Fail-safes the lead added after the sixth session's blind sets were run and then looked at.

They are not blind changes (bench/README.md reports them apart); each is tested here on
phrasings of our own, in other domains:

- a comparison ('may not exceed the original charge', 'no shipment before …') with no check
  that compares was read as a flat prohibition of the action; its words stay unaccounted;
- an informal approval ('needs the store lead's go-ahead', '… OK') is a person's act: a rule
  that reads it as a value some argument could hold never decides alone;
- 'the EU' in a policy's scope statement is a region, so a request that shows another country
  is outside the policy, instead of the policy's rules applying to it.

And after `holdout_10`'s final blind run (bench/README.md):

- 'US' in a scope statement is a country, not the pronoun 'us';
- 'unless a signed authorization form is attached' is not met by an argument that shares a
  modifier with it (`authorized_amount`): nothing names the form, so it is unknown;
- a sum ('adults + children') is arithmetic no check does: the rule stays partly understood;
- a percentage bound ('5% of stock') never compares an argument that is not a percentage;
- an allow-list bound to one argument while another holds a listed value does not decide.
"""

from __future__ import annotations

import hashlib

import pytest

from tests.unit.test_judge_fourth_round import outcome
from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery, PolicyVersion


@pytest.mark.parametrize(
    ("rule", "word", "tool", "args"),
    [
        (
            # ('No refund may exceed the original charge' is read since: two arguments compared)
            "No refund may exceed what the customer paid.",
            "exceed",
            "issue_refund",
            {"order_id": "O-1", "amount": 40, "original_charge": 60},
        ),
        (
            "No shipment before the customs declaration is filed.",
            "before",
            "create_shipment",
            {"shipment_id": "S-1", "customs_declaration_status": "filed"},
        ),
    ],
)
def test_a_comparison_no_check_compares_never_decides(rule, word, tool, args):
    compiled = compile_rule(0, "c0", rule)
    assert compiled.understanding == "partly_understood"
    assert word in compiled.unaccounted
    # Not a flat prohibition of every refund or shipment, and not an approval either.
    assert outcome(rule, tool, args) == "pending_review"


def test_a_state_read_from_an_argument_is_the_order_a_sequence_word_asks_for():
    rule = "Identity must be verified before releasing data."
    assert compile_rule(0, "c0", rule).understanding == "understood"
    tool, base = "release_records", {"request_id": "R-1"}
    assert outcome(rule, tool, {**base, "identity_verified": True}) == "approved"
    assert outcome(rule, tool, {**base, "identity_verified": False}) != "approved"


@pytest.mark.parametrize(
    "rule",
    [
        "Price overrides need the store lead's go-ahead.",
        "Price overrides need a store lead's OK.",
        "Price overrides require the buyer's blessing.",
    ],
)
def test_an_informal_approval_is_never_approved_by_the_rules(rule):
    assert outcome(rule, "override_price", {"sku": "A1", "new_price": 9.5}) == "pending_review"


def test_an_informal_approval_is_never_read_as_a_listed_value():
    compiled = compile_rule(0, "c0", "Price overrides need the store lead's go-ahead.")
    # (since the helper jagree: read as the approval it is, a review of every price override)
    assert not any(getattr(c, "values", ()) for c in compiled.checks)
    assert [c.effect for c in compiled.checks] == ["review"]


def test_consent_read_from_an_argument_decides():
    rule = "Do not text customers without consent."
    assert compile_rule(0, "c0", rule).understanding == "understood"
    assert outcome(rule, "send_sms", {"customer_id": "C-1", "consent": True}) == "approved"
    assert outcome(rule, "send_sms", {"customer_id": "C-1", "consent": False}) == "denied"


def _version(policy_id: str, description: str, rules: tuple[str, ...]) -> PolicyVersion:
    digest = hashlib.sha256((policy_id + description + "|".join(rules)).encode()).hexdigest()
    return PolicyVersion(policy_id, f"pv_{digest[:12]}", digest, description, rules, ("refunds.*",))


@pytest.mark.parametrize(
    ("country", "currency", "expected"),
    [("US", "USD", "allow"), ("CA", "USD", "allow"), ("DE", "USD", "deny"), ("DE", "EUR", "allow")],
)
def test_the_eu_in_a_scope_statement_is_a_region(country, currency, expected):
    policies = [
        _version("refunds", "All refunds", ("Refunds must include an order_id.",)),
        _version(
            "eu-refunds",
            "EU refund rules – applies to customers registered in the EU only.",
            ("EU customer refunds must be paid in EUR.",),
        ),
    ]
    args = {"order_id": "O-9", "amount": 120, "currency": currency, "customer_country": country}
    verdict = evaluate(
        ClearanceQuery("refunds.create", args, "agent"), policies, StaticHistory.from_dict(None)
    )
    assert verdict.decision == expected, verdict.reason


def test_markup_in_a_rule_is_not_a_comparison():
    # '<' and '>' compare only before a number ('moves > 20 °C'); around a word they are markup.
    compiled = compile_rule(0, "c0", "Refunds must never mention <b>coupons</b> in notes.")
    assert "<" not in compiled.unaccounted and ">" not in compiled.unaccounted


def test_us_in_a_scope_statement_is_a_country():
    policies = [
        _version("orders", "All orders", ("Orders must include an order_id.",)),
        _version(
            "us-orders",
            "Store guardrails. Applies to orders in US stores only.",
            ("Refund orders may not exceed 500 USD.",),
        ),
    ]
    args = {"order_id": "O-1", "amount": 900, "currency": "USD", "store_country": "Canada"}
    verdict = evaluate(
        ClearanceQuery("refunds.create", args, "agent"), policies, StaticHistory.from_dict(None)
    )
    assert verdict.decision == "allow", verdict.reason
    args["store_country"] = "US"
    verdict = evaluate(
        ClearanceQuery("refunds.create", args, "agent"), policies, StaticHistory.from_dict(None)
    )
    assert verdict.decision == "deny", verdict.reason


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Payroll changes may not be made unless a signed authorization form is attached.",
            "payroll.change",
            {"employee_id": "E1", "authorized_amount": 500, "attachments": []},
        ),
        # ('Free samples are capped at 5% of stock' is read since: samples against 5% of stock,
        # each side one argument named for it; tests/unit/test_judge_jrel.py)
        (
            "Service orders may only go to: Acme Repair, Bolt Fixers.",
            "service.order.create",
            {"service_type": "engine", "vendor": "Bolt Fixers"},
        ),
        (
            "Guests (adults + children) may not exceed the room's occupancy.",
            "book_room",
            {"room": "101", "adults": 2, "children": 3, "occupancy": 4},
        ),
    ],
)
def test_a_misbound_argument_sends_to_review(rule, tool, args):
    assert outcome(rule, tool, args) == "pending_review"


def test_a_sum_stays_unaccounted():
    compiled = compile_rule(
        0, "c0", "Guests (adults + children) may not exceed the room's occupancy."
    )
    assert compiled.understanding == "partly_understood"


@pytest.mark.parametrize(("pct", "expected"), [(25, "denied"), (15, "approved")])
def test_a_percentage_argument_still_meets_a_percentage_bound(pct, expected):
    rule = "Discounts may not exceed 20% of list price."
    assert outcome(rule, "apply_discount", {"sku": "A", "discount_pct": pct}) == expected


def test_an_allow_list_bound_right_still_denies():
    rule = "Service orders may only go to: Acme Repair, Bolt Fixers."
    args = {"service_type": "engine", "vendor": "Quick Lube"}
    assert outcome(rule, "service.order.create", args) == "denied"


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # a specific mutation is not a synonym of another: adding is not deleting
        (
            "Inspection records may not be deleted.",
            "records.add_record",
            {"record_id": "IR-1", "inspection": "boiler"},
            {"approved", "pending_review"},
        ),
        (
            "Inspection records may not be deleted.",
            "inspection.records.delete_record",
            {"record_id": "IR-1"},
            {"denied", "pending_review"},
        ),
        # a word for any mutation still covers every specific one
        (
            "IAM changes need approval.",
            "iam.add_user_to_group",
            {"user": "bob", "group": "admins"},
            {"pending_review"},
        ),
    ],
)
def test_a_specific_verb_matches_only_its_own_kind_of_action(rule, tool, args, expected):
    assert outcome(rule, tool, args) in expected
