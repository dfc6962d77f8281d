"""jred23: red team of the lead's glossed-subject gate (gates._bound_gate) and of the gloss
readings that set a rule aside when the request's value is not the glossed one.

A gloss sets a rule aside only when the request plainly holds another value: the value written
another way (separators, a plural, an abbreviation, a code, a word of its family, 'unknown'), a
grade past the glossed one, the glossed value shown in another argument, a subject wider than the
gloss or words after it on the other requests keep the rule in reach.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.judge_support import decide_beside_ticket
from webapp.judge.gates import _bound_gate
from webapp.judge.glossvalues import may_be_value, same_value

STERILE = (
    "Sterile products (product_class = sterile): endotoxin must be below 0.25 EU/mL, "
    "otherwise do not release."
)
QA = "Oral solid products (product_class = oral_solid): need QA review"


def test_the_gate_still_sets_aside_a_plainly_other_value():
    assert decide_beside_ticket([STERILE], "qa.release_lot", {"product_class": "oral"}) == (
        "approved"
    )
    rule = "Contractors who are also on payroll (is_employee = true) -> HR review"
    assert decide_beside_ticket([rule], "hr.onboard", {"is_employee": False}) == "approved"
    rule = "Minors (age_group = minor): need guardian consent"
    assert decide_beside_ticket([rule], "crm.enroll", {"age_group": "adult"}) == "approved"


@pytest.mark.parametrize(
    ("rule", "args"),
    [
        # the subject wider than the gloss, or the gloss an example of it
        ("Refunds and credits (refund_type = goodwill): manager approval required",
         {"refund_type": "service_credit"}),
        ("Payments to vendors or contractors (payee_type = vendor) need AP review",
         {"payee_type": "contractor"}),
        ("Controlled substances (schedule = II): pharmacist sign-off required",
         {"schedule": "IV"}),
        ("High-risk vendors (risk_rating = high): need compliance review",
         {"risk_rating": "critical"}),
        ("Large refunds (refund_tier = large): need supervisor review", {"refund_tier": "xl"}),
        # negated glosses
        ("Open cases (status = not closed): need supervisor review", {"status": "open"}),
        ("Live accounts (account_state = non-test): need dual approval",
         {"account_state": "active"}),
        # the value written another way
        (QA, {"product_class": "oral-solid"}),
        (QA, {"product_class": "Oral Solid"}),
        ("Pharmacy orders (channel = pharmacy): need pharmacist review",
         {"channel": "pharmacies"}),
        ("Production systems (environment = prod): changes need CAB approval",
         {"environment": "prd"}),
        ("Production systems (environment = prod): changes need CAB approval",
         {"environment": "live"}),
        ("Sterile products (product_class = sterile): need QA release", {"product_class": "STR"}),
        ("Sterile products (product_class = sterile): need QA release",
         {"product_class": "PC-01"}),
        ("Sterile products (product_class = sterile): need QA release",
         {"product_class": "unknown"}),
        ("Injectables (route = injection): need QA release", {"route": "parenteral"}),
        ("Wire transfers (payment_method = wire): need callback verification",
         {"payment_method": "SWIFT"}),
        # words after the gloss on the other requests
        ("Sterile products (product_class = sterile): endotoxin below 0.25, all other products "
         "need QA review", {"product_class": "oral"}),
        ("Sterile products (product_class = sterile) may be released by agents, otherwise QA "
         "review", {"product_class": "oral"}),
        ("Sterile products (product_class = sterile) are the only products agents may release",
         {"product_class": "oral"}),
        ("Sterile products (product_class = sterile) need no QA review, but oral lots do",
         {"product_class": "oral"}),
        # the glossed value in another argument
        (STERILE, {"product_class": "oral", "components": [{"product_class": "sterile"}]}),
        (STERILE, {"product_class": "oral", "product_classes": ["oral", "sterile"]}),
        (STERILE, {"product_class": "oral", "kit_contents": "sterile syringe"}),
        (STERILE, {"product_class": "oral", "is_sterile": True}),
        # a gloss contradicting its subject
        ("Test accounts (is_test = false): need dual approval", {"is_test": True}),
    ],
)  # fmt: skip
def test_a_value_that_may_be_the_glossed_one_keeps_the_rule_in_reach(rule, args):
    tool = "infra.change_config" if "environment" in args else "ops.submit"
    assert decide_beside_ticket([rule], tool, args) != "approved"


@pytest.mark.parametrize(
    "rule",
    [
        "Refunds and credits (refund_type = goodwill): manager approval required",
        "Only sterile products (product_class = sterile) may be released by agents",
        "Open cases (status = not closed): need supervisor review",
        "Controlled substances (schedule = II): pharmacist sign-off required",
        "Sterile products (product_class = sterile) may be released; the rest need QA",
        "Sterile products (product_class = sterile) are exempt from QA review, unlike oral lots",
    ],
)
def test_such_glosses_are_no_gate(rule):
    assert _bound_gate(rule) is None


def test_the_leads_glosses_are_still_gates():
    assert _bound_gate(STERILE) == (("product_class", ("sterile",)),)
    prod = "Prod DB credentials (environment=prod, secret_type=db_credential): only with x=true"
    assert _bound_gate(prod) is not None


@given(
    st.sampled_from(["oral_solid", "oral-solid", "Oral Solid", "oralsolid", "ORAL_SOLID"]),
)
def test_a_separator_or_case_never_makes_another_value(shown):
    assert may_be_value(shown.lower(), ("oral_solid",))


@given(st.sampled_from(["prd", "PRD", "prod", "live", "production"]))
def test_production_written_another_way_is_production(shown):
    assert same_value(shown, "production")
    args = {"service": "api", "environment": shown}
    rule = "Production systems (environment = production): changes need CAB approval"
    assert decide_beside_ticket([rule], "infra.change_config", args) != "approved"


@given(
    st.sampled_from(["all other products", "everything else", "the rest", "remaining lots"]),
    st.sampled_from(["need QA review", "go to QA"]),
)
def test_a_clause_on_the_others_after_the_gloss_keeps_the_rule_in_reach(others, effect):
    rule = f"Sterile products (product_class = sterile) need QA release, {others} {effect}"
    assert _bound_gate(rule) is None
    assert decide_beside_ticket([rule], "qa.release_lot", {"product_class": "oral"}) != ("approved")


def test_a_subject_outside_its_gloss_is_no_gate():
    # 'besides' made the gloss the one value the rule is not about: card refunds had approved
    rule = "Refunds besides store credit (refund_method = store_credit) need Finance approval."
    assert _bound_gate(rule) is None
    assert decide_beside_ticket([rule], "refunds.issue", {"refund_method": "card"}) != "approved"


@pytest.mark.parametrize(
    ("vendor", "expected"),
    [
        ("VND-1001", "pending_review"),  # listed
        ("VND-1002", "pending_review"),  # a later digit off a blocked id: a human looks
        ("VND-5150", "approved"),  # another id of the shape
    ],
)
def test_a_blocked_id_one_later_digit_off_is_still_close(vendor, expected):
    from tests.unit.judge_support import outcome_beside_ticket

    glossary = {"blocked vendors": ["VND-1001", "VND-2040"]}
    rule = "Payments to blocked vendors are held for AP review."
    args = {"vendor_id": vendor, "amount": 5, "currency": "USD"}
    assert outcome_beside_ticket(rule, "pay_vendor", args, glossary) == expected
