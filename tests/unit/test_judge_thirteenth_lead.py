"""The lead's readings of the thirteenth session.

Who owns a policy and whom to ask ('Owner: Payroll Ops (DE entity).') is a note, not a rule; a rule
about address ranges or ports speaks to a request that carries one; a verdict word before a bound
('up to 72 OK') is no counted noun.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.judge_support import decide_beside_ticket, policy
from webapp.judge.compiler import compile_policy, compile_rule, ownership_note

NOTES = [
    "Owner: Payroll Ops (DE entity).",
    "Owned by the Grants Management Office.",
    "Owned by Development Services - questions to the permits desk.",
    "Policy owner: Treasury",
    "Contact: payroll-ops@example.org",
    "Owned by Treasury. See memo FIN-2025-07.",
]
NOT_NOTES = [
    "Owner approval required.",
    "Owner: Treasury; no payouts on Fridays.",
    "Owned by Treasury - refunds over 100 need review.",
    "Owners must approve every grant.",
    "Owner: Finance - never on weekends.",
    "Owner: Finance. Wires to Iran are forbidden.",
    "Owned by Treasury - agents permitted to wire up to 5k.",
    "Questions to Finance if the amount is over 500.",
]


@pytest.mark.parametrize("text", NOTES)
def test_an_ownership_note_is_informational(text):
    assert ownership_note(text)
    compiled = compile_policy(policy([text, "Every grant must cite a ticket_id."]))
    assert compiled.rules[0].understanding == "informational"


@pytest.mark.parametrize("text", NOT_NOTES)
def test_a_note_with_an_obligation_stays_a_rule(text):
    assert not ownership_note(text)


def test_an_ownership_note_sharing_a_word_with_the_request_holds_nothing():
    # 'Grants' is in the tool name: kept as text, the note sent every grant to review
    rules = ["Owned by the Grants Management Office.", "Disbursements over 100,000 USD are denied."]
    assert decide_beside_ticket(rules, "grants.disburse", {"amount": 500, "currency": "USD"}) == (
        "approved"
    )
    assert decide_beside_ticket(
        rules, "grants.disburse", {"amount": 100_001, "currency": "USD"}
    ) == ("denied")


@given(
    st.sampled_from(["Owner: Payroll Ops", "Owned by the Grants Office", "Contact: Treasury"]),
    st.sampled_from(
        ["no payouts on Fridays", "refunds over 100 need review", "agents must not wire"]
    ),
)
def test_a_note_followed_by_an_obligation_is_never_informational(note, obligation):
    text = f"{note}; {obligation}."
    assert not ownership_note(text)
    assert compile_rule(0, "c0", text).understanding != "informational"


# -- a rule about address ranges or ports (holdout_45's unsafe approvals) -------------------------

PREFIX = "Prefix shorter than /24 (i.e. a range bigger than a /24) -> network team review."


@pytest.mark.parametrize("cidr", ["45.12.0.0/22", "203.0.112.0/23", "10.1.0.0/16"])
def test_a_prefix_rule_is_relevant_to_a_wide_range(cidr):
    # the rule is not read; sharing no word with the request, it had been left out and the block
    # approved by the other rules
    args = {"cidr": cidr, "duration_hours": 24}
    assert decide_beside_ticket([PREFIX], "firewall.block_cidr", args) != "approved"


def test_a_port_rule_is_relevant_to_a_request_with_a_port():
    rule = "Inbound from anywhere to 22 or 3389 is forbidden, full stop."
    args = {"source": "0.0.0.0/0", "dest_port": 3389}
    assert decide_beside_ticket([rule], "firewall.add_rule", args) != "approved"


# -- a verdict word before a bound ---------------------------------------------------------------


def test_ok_before_a_bound_is_not_counted():
    rule = compile_rule(0, "c0", "duration_hours: up to 72 OK; above 72 -> review.")
    assert not any("number of ok" in c.reading() for c in rule.checks)


# -- a deny-list whose subject was judged another thing while a listed value is shown ------------

SANCTIONS = "2. Sanctioned destinations: never pay vendors located in IR, KP, SY, CU or RU."


@pytest.mark.parametrize("country", ["IR", "Iran", "KP", "RU"])
@pytest.mark.parametrize("status", ["approved", "active"])
def test_a_listed_place_beside_another_vendor_argument_is_never_approved(country, status):
    # `vendor_status` had made the rule's subject look like another thing: the payment to Iran
    # was approved by the rest of the policy
    args = {"vendor_country": country, "vendor_status": status, "amount": 3200, "currency": "USD"}
    assert decide_beside_ticket([SANCTIONS], "ap.pay_invoice", args) != "approved"


def test_an_unlisted_place_beside_the_vendor_status_still_passes():
    args = {"vendor_country": "DE", "vendor_status": "approved", "amount": 3200, "currency": "USD"}
    assert decide_beside_ticket([SANCTIONS], "ap.pay_invoice", args) == "approved"


# -- where a thing is, never ruled out by its state; a review rule that may apply ----------------


@pytest.mark.parametrize(
    "rule", ["Vendors located outside the EU need review.", "Foreign vendors need review."]
)
@pytest.mark.parametrize("extra", [{}, {"vendor_status": "approved"}, {"vendor_status": "active"}])
def test_a_place_qualifier_is_not_ruled_out_by_a_state_argument(rule, extra):
    args = {"vendor_id": "V-9", "vendor_country": "US", "amount": 200, "currency": "USD", **extra}
    assert decide_beside_ticket([rule], "ap.pay_invoice", args) == "pending_review"


def test_a_state_still_rules_out_a_state():
    # "suspended" is a state: `vendor_status: "approved"` says the vendor is not suspended
    args = {"vendor_id": "V-9", "amount": 200, "currency": "USD", "vendor_status": "approved"}
    rule = "Suspended vendors need review."
    assert decide_beside_ticket([rule], "ap.pay_invoice", args) == "approved"


def test_a_sanctions_list_beside_the_vendor_status_denies():
    # 'destinations' is where the vendor is: `vendor_status` no longer rules the rule out
    args = {"vendor_country": "IR", "vendor_status": "approved", "amount": 3200, "currency": "USD"}
    assert decide_beside_ticket([SANCTIONS], "ap.pay_invoice", args) == "denied"


# -- a rule's subject glossed with the argument and values that make a request one of them -------

STERILE = (
    "3. Sterile products (product_class = sterile): endotoxin_eu_per_ml must be below 0.25, "
    "otherwise do not release."
)
PAYROLL = "Contractors who are also on payroll (is_employee = true) -> HR review."


def test_a_glossed_subject_the_request_is_not_of_does_not_reach_it():
    args = {"product_class": "oral solid", "qp_id": "QP-1"}
    assert decide_beside_ticket([STERILE], "batch.release", args) == "approved"
    args = {"is_employee": False, "amount": 100, "currency": "USD"}
    assert decide_beside_ticket([PAYROLL], "ap.pay_contractor", args) == "approved"


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (STERILE, "batch.release", {"product_class": "sterile", "endotoxin_eu_per_ml": 0.1}),
        (STERILE, "batch.release", {"product_class": "Sterile injectable"}),  # holds the value
        (STERILE, "batch.release", {"qp_id": "QP-1"}),  # the gloss's argument not sent
        (PAYROLL, "ap.pay_contractor", {"is_employee": "yes"}),  # not a flag
        (PAYROLL, "ap.pay_contractor", {"is_employee": "false"}),
        (PAYROLL, "ap.pay_contractor", {"is_employee": True}),
        # a place inside another: a human reads it
        (
            "EU payouts (region = EU): a DPA reference is required.",
            "payouts.send",
            {"region": "FR"},
        ),
        # the subject widened after the gloss, or a second sentence
        (
            "Card payouts (method = card) and all wires -> review",
            "payouts.send",
            {"method": "sepa"},
        ),
        (
            "Card payouts (method = card) -> review. Wires need a ticket.",
            "payouts.send",
            {"method": "sepa"},
        ),
        # examples in the gloss
        (
            "Cold chain (temp_range = 2-8C, e.g. frozen) -> BioCold only",
            "ship",
            {"temp_range": "x"},
        ),
    ],
)
def test_a_glossed_subject_that_may_hold_keeps_the_rule_in_reach(rule, tool, args):
    assert decide_beside_ticket([rule], tool, args) != "approved"


def test_a_payout_rule_reaches_a_tool_named_by_the_generic_money_verb():
    # 'Every payout' and ap.pay_contractor: set aside as unrelated, a payout without its contract
    # had been approved once the other rules were read
    rule = "Every payout must cite a contract_id and stay under 25,000 USD."
    args = {"contractor_id": "C-1", "amount": 8000, "currency": "USD"}
    assert decide_beside_ticket([rule], "ap.pay_contractor", args) != "approved"
    args["contract_id"] = "CTR-1"
    assert decide_beside_ticket([rule], "ap.pay_contractor", args) == "approved"


@pytest.mark.parametrize(
    ("tool", "env", "expected"),
    [
        ("infra.deploy", "prod", "pending_review"),  # a deploy is a change
        ("infra.deploy", "staging", "approved"),
        ("infra.get_status", "prod", "approved"),  # a read changes nothing
    ],
)
def test_a_change_rule_reaches_every_act_but_a_read(tool, env, expected):
    # left open by red team jred23: 'changes' was unrelated to infra.deploy, approved in prod
    rule = "Production systems (environment = prod): changes need CAB approval."
    args = {"environment": env, "service": "web"}
    assert decide_beside_ticket([rule], tool, args) == expected


@pytest.mark.parametrize(
    ("rule", "tool", "expected"),
    [
        ("Agents must never modify salaries in production.", "pay_vendor", "approved"),
        ("Bonuses need HR approval.", "payroll.pay", "pending_review"),  # the bare money act
        ("Bonuses need HR approval.", "pay_vendor", "approved"),  # a vendor payment is no bonus
    ],
)
def test_what_a_change_or_a_money_rule_names_must_be_shown(rule, tool, expected):
    args = {"amount": 100, "currency": "USD", "vendor_id": "V-9", "employee_id": "E1"}
    assert decide_beside_ticket([rule], tool, args) == expected


# -- the sealed first runs' false denials (holdout_49 … 51), each left partly understood ----------


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Block trades must specify the executing broker (`broker`).",
            "trade.place",
            {"is_block": False, "notional": 100},
        ),
        (
            "Takedown must reference a legal ticket (`legal_ticket`, format LGL-nnnn). No ticket, "
            "no takedown.",
            "cms.takedown_asset",
            {"legal_ticket": "LGL-3310"},
        ),
        (
            "No lifts at sustained wind of 20 mph or more, or gusts above 25 mph.",
            "lift_plan.submit",
            {"wind_sustained_mph": 15, "wind_gust_mph": 25},
        ),
        (
            "Real-time feeds only for users on trading desks - everyone else gets delayed data.",
            "marketdata.subscribe",
            {"delivery": "delayed", "user_desk": "research"},
        ),
    ],
)
def test_a_misread_shape_of_the_sealed_runs_never_decides(rule, tool, args):
    compiled = compile_rule(0, "c0", rule)
    assert compiled.understanding in ("partly_understood", "not_understood"), compiled.unaccounted
    assert decide_beside_ticket([rule], tool, args) != "denied"


def test_tiers_of_one_measure_stay_read():
    # two bounds of one unit in tiers are one measure: the fail-safe for two measures keeps off
    rule = "Field techs may approve overtime up to 4 hours per shift; more than 8 hours is not allowed."
    assert compile_rule(0, "c0", rule).understanding == "understood"


def test_a_requirement_beside_a_new_party_check_is_never_dropped():
    # left by helper jident: read as 'review new customers' alone, a known customer's release
    # without a qp_id would have passed
    rule = "Batch release for new customers requires a Qualified Person - qp_id."
    compiled = compile_rule(0, "c0", rule)
    assert compiled.understanding == "partly_understood"
    assert "qp_id" in compiled.unaccounted
