"""A subject phrase glossed with an argument condition scopes the rule (webapp/judge/scopes.py).

'Contractor crews (crew_type = contractor) may not work energized equipment': the bracket is a
condition, not a requirement (read as one it was "Deny when `crew_type` is not contractor",
labelled understood: every internal crew was denied). The rest of the rule is read by the
engine's own readings and holds only where the gloss does: plainly false, the rule does not
apply; the argument missing or close to the glossed value, a human decides when the rest is not
met; a word of the phrase the gloss does not restate, or a predicate no reading reads, leaves the
rule partly understood.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import (
    APPENDED_QUALIFIERS,
    assert_never_decides,
    assert_qualified_never_decides,
    outcome,
)
from webapp.judge.compiler import compile_rule
from webapp.judge.scopes import Scoped, read_scope

CREWS = "Contractor crews (crew_type = contractor) may not work energized equipment."
ENERGIZED = "Energized equipment (energized = true): crew_size of at least 2, no exceptions."
CARD = "Card payments (payment_method = card) over $3,000 need property manager approval."
FORGIVENESS = "Principal forgiveness (principal_forgiveness > 0) is NEVER done by an agent."
REGULATOR = (
    "Regulator productions (recipient_type = regulator) always go to the GC for review, "
    "whatever the size."
)
MAJOR_EVENT = (
    "Major event days (major_event = true) -> Regulatory Affairs sign-off before any credit posts."
)
WETLANDS = "Vegetation work in wetlands (site_zone = wetland) requires env_permit_id."
SEALED = "Sealed filings (under_seal = true) need partner sign-off."
RENT = "Rent-controlled units (rent_controlled = true): increase may not exceed 3%."
MINORS = "Patients under 18 (patient_age < 18) require guardian_consent_id."
DRIVERS = "Unlicensed drivers (license_valid = false) may not be dispatched."
HAZMAT = (
    "Expedited orders (shipping_speed = expedited) may not carry hazardous goods (hazmat = true)."
)
GUESTS = "Guest users (user_type = guest) must not export contacts."

UNDERSTOOD = [
    CREWS,
    ENERGIZED,
    CARD,
    FORGIVENESS,
    REGULATOR,
    MAJOR_EVENT,
    WETLANDS,
    SEALED,
    RENT,
    MINORS,
    DRIVERS,
    HAZMAT,
    GUESTS,
]


@pytest.mark.parametrize("rule", UNDERSTOOD)
def test_scoped_rules_are_understood_and_scoped(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert compiled.checks and all(isinstance(c, Scoped) for c in compiled.checks)


@pytest.mark.parametrize(
    ("rule", "reading"),
    [
        (
            CREWS,
            'When `crew_type` (Contractor crews) is "contractor": Deny requests about contractor '
            "crews work energized equipment",
        ),
        (
            FORGIVENESS,
            "When `principal_forgiveness` (Principal forgiveness) is above 0: Deny requests about "
            "this tool",
        ),
        (
            WETLANDS,
            'When `site_zone` (wetlands) is "wetland": Deny when `env_permit_id` is missing or '
            "empty (about: vegetation work wetlands)",
        ),
        (
            MINORS,
            "When `patient_age` (Patients under 18) is below 18: Deny when `guardian_consent_id` is "
            "missing or empty (about: patients)",
        ),
    ],
)
def test_readings_say_the_condition_then_the_rule(rule: str, reading: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert [c.reading() for c in compiled.checks] == [reading]


def test_the_gloss_is_never_read_as_a_requirement() -> None:
    for rule in UNDERSTOOD:
        readings = " ".join(c.reading() for c in compile_rule(0, "c:r0", rule).checks)
        gloss = read_scope(rule)
        assert gloss is not None
        assert f"`{gloss.gloss.name}` is not" not in readings.split(":")[-1], rule


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # the condition false: the rule does not apply
        (CREWS, "field.dispatch_crew", {"crew_type": "internal", "energized": True}, "approved"),
        (CREWS, "field.dispatch_crew", {"crew_type": "contractor", "energized": False}, "approved"),
        # argument absent, or close to the glossed value: a human decides
        (CREWS, "field.dispatch_crew", {"energized": True}, "pending_review"),
        (
            CREWS,
            "field.dispatch_crew",
            {"crew_type": "contractor_sub", "energized": True},
            "pending_review",
        ),
        # the predicate broken under the condition
        (ENERGIZED, "field.schedule_work", {"energized": True, "crew_size": 1}, "denied"),
        (ENERGIZED, "field.schedule_work", {"energized": True, "crew_size": 2}, "approved"),
        (ENERGIZED, "field.schedule_work", {"energized": False, "crew_size": 1}, "approved"),
        (ENERGIZED, "field.schedule_work", {"crew_size": 1}, "pending_review"),
        (
            CARD,
            "rent.take_payment",
            {"amount": 3500, "currency": "USD", "payment_method": "card"},
            "pending_review",
        ),
        (
            CARD,
            "rent.take_payment",
            {"amount": 8000, "currency": "USD", "payment_method": "ach"},
            "approved",
        ),
        (CARD, "rent.take_payment", {"amount": 8000, "currency": "USD"}, "pending_review"),
        (
            CARD,
            "rent.take_payment",
            {"amount": 8000, "currency": "USD", "payment_method": "Card"},
            "pending_review",
        ),
        (FORGIVENESS, "servicing.modify_loan", {"principal_forgiveness": 0.5}, "denied"),
        (FORGIVENESS, "servicing.modify_loan", {"principal_forgiveness": 0}, "approved"),
        (FORGIVENESS, "servicing.modify_loan", {"rate_bps": 50}, "pending_review"),
        (MINORS, "ehr.schedule_procedure", {"patient_age": 16}, "denied"),
        (MINORS, "ehr.schedule_procedure", {"patient_age": 18}, "approved"),
        (
            MINORS,
            "ehr.schedule_procedure",
            {"patient_age": 16, "guardian_consent_id": "GC-1"},
            "approved",
        ),
        (DRIVERS, "fleet.dispatch_driver", {"license_valid": False}, "denied"),
        (DRIVERS, "fleet.dispatch_driver", {"license_valid": True}, "approved"),
        (HAZMAT, "ship.create_shipment", {"shipping_speed": "ground", "hazmat": True}, "approved"),
        (HAZMAT, "ship.create_shipment", {"hazmat": True}, "pending_review"),
        (
            HAZMAT,
            "ship.create_shipment",
            {"shipping_speed": "expedited", "hazmat": True},
            "denied",
        ),
        (
            MAJOR_EVENT,
            "billing.outage_credit",
            {"amount": 40, "major_event": True},
            "pending_review",
        ),
        (MAJOR_EVENT, "billing.outage_credit", {"amount": 40, "major_event": False}, "approved"),
        (
            MAJOR_EVENT,
            "billing.outage_credit",
            {"amount": 40, "major_event": "yes"},
            "pending_review",
        ),
    ],
)
def test_outcomes(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome([rule], tool, args) == expected


def test_a_flag_beside_the_glossed_argument_that_may_say_the_value_goes_to_review() -> None:
    args = {"crew_type": "internal", "is_contractor": True, "energized": True}
    assert outcome([CREWS], "field.dispatch_crew", args) == "pending_review"


@pytest.mark.parametrize(
    "rule",
    [
        # a word of the phrase the gloss does not restate is a condition no check reads
        "Chargeback disputes (dispute_open = true) may not be refunded by agents.",
        "Large card payments (payment_method = card) over $3,000 need property manager approval.",
        # a predicate no reading reads
        "Write-offs (adjustment_type = write_off) go to Revenue Assurance for approval regardless"
        " of amount.",
        # a condition after the predicate
        "Sealed filings (under_seal = true) need partner sign-off unless the court orders otherwise.",
        # the prose and the bracket disagree
        "Patients under 18 (patient_age <= 18) require guardian_consent_id.",
    ],
)
def test_near_misses_never_decide(rule: str) -> None:
    assert_never_decides(rule)


@pytest.mark.parametrize(
    "rule",
    [
        # a binding after a verb is a requirement, not a subject's gloss
        "Seller-proceeds wires go only to the seller of record (payee_is_seller_of_record = true).",
        # a bare name is another reading's
        "Credit checks are prohibited for candidates working in CA, NY or IL (work_state).",
        # a permission is not read here
        "P1 emergencies (priority = P1) may skip the PO.",
        # the binding alone, no predicate
        "Everything encrypted in transit (encrypted = true).",
        # the glossed thing is what the rule requires
        "Signed NDA (nda_signed = true) is required.",
        "Encryption at rest (encrypted = true) is mandatory for all exports.",
        "Callback verified (callback_verified = true) for every new payee.",
        # a permission: who else may is not said
        "Approved vendors (vendor_status = approved) can be paid up to $50,000.",
    ],
)
def test_other_shapes_are_not_scoped(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert not any(isinstance(c, Scoped) for c in compiled.checks), compiled.checks


@settings(max_examples=80, deadline=None)
@given(rule=st.sampled_from(UNDERSTOOD), qualifier=st.sampled_from(APPENDED_QUALIFIERS))
def test_an_appended_qualifier_leaves_the_rule_partly_understood(rule: str, qualifier: str) -> None:
    """Unless a reading of the rest consumes it ('…, when the customer is a minor' is read from a
    flag of the party), a clause appended to the rule is a condition no check reads."""
    parts = read_scope(f"{rule.rstrip('.')}, {qualifier}.")
    assume(parts is None or not compile_rule(0, "c:r0", parts.body).decides)
    assert_qualified_never_decides(rule, qualifier)


_INSERTED = st.sampled_from(["fraud", "large", "dormant", "foreign", "disputed", "privileged"])


@settings(max_examples=80, deadline=None)
@given(rule=st.sampled_from(UNDERSTOOD), word=_INSERTED)
def test_a_word_inserted_into_the_phrase_is_not_restated(rule: str, word: str) -> None:
    """A qualifier opening the glossed phrase ('Large card payments (…)') is a condition the
    gloss does not state."""
    parts = read_scope(rule)
    assert parts is not None
    at = rule.index(parts.phrase)
    phrase = parts.phrase[0].lower() + parts.phrase[1:] if at == 0 else parts.phrase
    opening = word.capitalize() if at == 0 else word
    assert_never_decides(f"{rule[:at]}{opening} {phrase}{rule[at + len(parts.phrase) :]}")


@settings(max_examples=80, deadline=None)
@given(
    crew=st.sampled_from(["internal", "contractor", "Contractor", "contractor_sub", None]),
    energized=st.sampled_from([True, False, None]),
)
def test_never_approves_a_contractor_crew_on_energized_equipment(
    crew: str | None, energized: bool | None
) -> None:
    args = {"work_order_id": "WO-1"}
    if crew is not None:
        args["crew_type"] = crew
    if energized is not None:
        args["energized"] = energized
    got = outcome([CREWS], "field.dispatch_crew", args)
    if crew != "internal" and energized is not False:
        assert got != "approved", args
    if crew == "internal":
        assert got != "denied", args


@settings(max_examples=80, deadline=None)
@given(
    value=st.one_of(st.integers(min_value=-2, max_value=3), st.floats(0.01, 1.5)),
    sign=st.sampled_from([">", ">=", "<", "<="]),
)
def test_a_compared_gloss_follows_the_boundary(value: float, sign: str) -> None:
    rule = f"Principal forgiveness (principal_forgiveness {sign} 1) is NEVER done by an agent."
    holds = {">": value > 1, ">=": value >= 1, "<": value < 1, "<=": value <= 1}[sign]
    got = outcome([rule], "servicing.modify_loan", {"principal_forgiveness": value})
    assert got == ("denied" if holds else "approved"), (rule, value)


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        ("Signed NDA (nda_signed = true) is required.", {"nda_signed": False}, "denied"),
        ("Signed NDA (nda_signed = true) is required.", {"nda_signed": True}, "approved"),
        (
            "Callback verified (callback_verified = true) for every new payee.",
            {"callback_verified": False},
            "denied",
        ),
    ],
)
def test_a_gloss_the_rule_requires_stays_a_requirement(
    rule: str, args: dict, expected: str
) -> None:
    assert outcome([rule], "vendor.add_payee", args) == expected


OFF_CYCLE = "Off-cycle runs (run_type: off_cycle) over 10,000 USD need Payroll Mgr sign-off."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"run_type": "off_cycle", "amount": 12000, "currency": "USD"}, "pending_review"),
        ({"run_type": "off_cycle", "amount": 9000, "currency": "USD"}, "approved"),
        ({"run_type": "regular", "amount": 12000, "currency": "USD"}, "approved"),
        ({"amount": 12000, "currency": "USD"}, "pending_review"),
    ],
)
def test_an_amount_after_the_gloss_is_the_rests_own(args: dict, expected: str) -> None:
    assert compile_rule(0, "c:r0", OFF_CYCLE).understanding == "understood"
    assert outcome([OFF_CYCLE], "payroll.run", args) == expected


@pytest.mark.parametrize(
    "rule",
    [
        # the glosses.py near-misses: what the rest narrows to is not decided on beside a gloss
        "All involuntary terminations (termination_type = involuntary) must be reviewed by HR"
        " Legal for executives.",
        "All involuntary terminations (termination_type = involuntary) must be reviewed by HR"
        " Legal unless the employee agrees.",
        "Accounts in collections (account_status = collections) cannot be adjusted by Finance.",
        "Emergency changes (change_type: emergency) must not reference an incident ID"
        " (incident_id).",
        "Refunds (refund_amount >= 5000) to new customers need a supervisor's approval.",
    ],
)
def test_a_narrowed_rest_is_not_scoped(rule: str) -> None:
    assert read_scope(rule) is None
    assert_never_decides(rule)


@pytest.mark.parametrize(
    "rule",
    [
        "Contractor crews (crew_type = contractor) and interns may not work energized equipment.",
        "Contractor crews (crew_type = contractor) may not work energized equipment except in"
        " emergencies.",
    ],
)
def test_an_unread_subject_or_predicate_never_inverts_the_gloss(rule: str) -> None:
    """Not read as scoped, the gloss is still no requirement ('Deny when `crew_type` is not
    "contractor"' denied every internal crew): the rule stays partly understood."""
    assert_never_decides(rule)
    readings = " ".join(c.reading() for c in compile_rule(0, "c:r0", rule).checks)
    assert "`crew_type` is not" not in readings
    internal = {"crew_type": "internal", "energized": True, "work_order_id": "WO-1"}
    assert outcome([rule], "field.dispatch_crew", internal) != "denied"
