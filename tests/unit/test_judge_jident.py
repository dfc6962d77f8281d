"""jident: a rule that names its argument by its identifier inside prose (identified.py).

'No shipment without a customs broker - broker_id must be filled in' had read "Deny when an
argument is broker_id" (a value equal to the name) with the prose unread; each shape is now read
whole, its gloss only where it names the identifier, or left to the other readings.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import (
    APPENDED_QUALIFIERS,
    assert_never_decides,
    assert_qualified_never_decides,
    outcome,
    outcome_beside_ticket,
)
from webapp.judge.compiler import compile_rule

BROKER = "No shipment without a customs broker - broker_id must be filled in."
NDA = "Signed NDA required (nda_ref)."
TICKET_MANDATORY = "`change_ticket` mandatory."
QP = "Batch release requires a Qualified Person - qp_id"
APPROVER = "Every IAM role grant needs an approver; approver_id must be provided."
DRY_RUN = "`dry_run` must be true"
PII = "include_pii must be false (strip names)"
KYC = "Payouts only after KYC (kyc_passed = true)."
PRE_TRADE = "Trade orders require pre_trade_check_passed to be true."
W9 = "W-9 on file (`w9_on_file`) before any contractor payment"
RESTRICTION = "Not allowed unless restriction_met = true"
DSA = "Deny unless a signed agreement is referenced (`dsa_id`)"
BALANCE = (
    "No business licence issued unless the applicant's outstanding city tax balance is zero "
    "(`outstanding_balance`)"
)
PERMITS = (
    "Building permits need a licensed contractor (contractor_license); owner-builder permits "
    "(owner_builder = true) are exempt from the licence requirement."
)

UNDERSTOOD = [BROKER, NDA, TICKET_MANDATORY, QP, APPROVER, DRY_RUN, KYC, PRE_TRADE, W9]
UNDERSTOOD += [RESTRICTION, DSA, BALANCE, PERMITS]

READINGS = [
    (BROKER, "Deny when `broker_id` (a customs broker) is missing or empty (about: shipment)"),
    (NDA, "Deny when `nda_ref` (Signed NDA) is missing or empty"),
    (TICKET_MANDATORY, "Deny when `change_ticket` is missing or empty"),
    (QP, "Deny when `qp_id` (a Qualified Person) is missing or empty (about: batch release)"),
    (DRY_RUN, "Deny when `dry_run` is not true"),
    (PII, "Deny when `include_pii` is not false"),
    (KYC, "Deny when `kyc_passed` (KYC) is not true (about: payouts)"),
    (W9, "Deny when `w9_on_file` (W-9 on file) is not true (about: contractor payment)"),
    (RESTRICTION, "Deny when `restriction_met` is not true"),
    (DSA, "Deny when `dsa_id` (a signed agreement) is missing or empty"),
    (
        BALANCE,
        "Deny when `outstanding_balance` (the applicant's outstanding city tax balance) is not 0"
        " (about: business licence issued)",
    ),
    (
        PERMITS,
        "Deny when `contractor_license` (a licensed contractor) is missing or empty (about: "
        "building permits), unless `owner_builder` is true",
    ),
]


@pytest.mark.parametrize(("rule", "reading"), READINGS)
def test_the_identifier_and_its_condition_are_read(rule: str, reading: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert [c.reading() for c in compiled.checks] == [reading]
    assert "an argument is" not in reading


VECTORS = [
    # required reference
    (BROKER, "freight.ship", {"broker_id": "BRK-221"}, "approved"),
    (BROKER, "freight.ship", {"order_id": "o1"}, "denied"),
    (BROKER, "freight.ship", {"broker_id": ""}, "denied"),
    (BROKER, "freight.ship", {"broker_id": "TBD"}, "pending_review"),
    (NDA, "vendor.share_docs", {"nda_ref": "NDA-2024-17"}, "approved"),
    (NDA, "vendor.share_docs", {"vendor": "acme"}, "denied"),
    (NDA, "vendor.share_docs", {"nda_ref": "n/a"}, "pending_review"),
    (TICKET_MANDATORY, "deploy.release", {"change_ticket": None}, "denied"),
    (TICKET_MANDATORY, "deploy.release", {"change_ticket": "CHG-1"}, "approved"),
    (QP, "mfg.release_batch", {"batch": "B-1", "qp_id": "TBD"}, "pending_review"),
    (QP, "mfg.release_batch", {"batch": "B-1", "qp_id": "QP-4"}, "approved"),
    # flags
    (DRY_RUN, "db.migrate", {"dry_run": True}, "approved"),
    (DRY_RUN, "db.migrate", {"dry_run": False}, "denied"),
    (DRY_RUN, "db.migrate", {"db": "orders"}, "denied"),
    (DRY_RUN, "db.migrate", {"dry_run": "yes"}, "pending_review"),
    (PII, "crm.export_contacts", {"include_pii": False}, "approved"),
    (PII, "crm.export_contacts", {"include_pii": True}, "denied"),
    (KYC, "payments.payout", {"kyc_passed": True}, "approved"),
    (KYC, "payments.payout", {"kyc_passed": False}, "denied"),
    (KYC, "payments.payout", {"amount": 5}, "denied"),
    (W9, "ap.pay_contractor", {"w9_on_file": False}, "denied"),
    (W9, "ap.pay_contractor", {"w9_on_file": True}, "approved"),
    # the subject matches no word of the tool: a failed flag is never passed by
    (PRE_TRADE, "oms.place_order", {"pre_trade_check_passed": False}, "pending_review"),
    # unless
    (RESTRICTION, "grants.disburse", {"restriction_met": True}, "approved"),
    (RESTRICTION, "grants.disburse", {"restriction_met": False}, "denied"),
    (RESTRICTION, "grants.disburse", {"grant": "g7"}, "denied"),
    (DSA, "data.share_dataset", {"dsa_id": "DSA-19"}, "approved"),
    (DSA, "data.share_dataset", {"dsa_id": ""}, "denied"),
    (BALANCE, "licensing.issue", {"outstanding_balance": 0}, "approved"),
    # exemption
    (PERMITS, "permits.issue", {"contractor_license": "LIC-7"}, "approved"),
    (PERMITS, "permits.issue", {"owner_builder": True}, "approved"),
]


@pytest.mark.parametrize(("rule", "tool", "args", "expected"), VECTORS)
def test_outcomes(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


NEVER_APPROVED = [
    (BALANCE, "licensing.issue", {"outstanding_balance": 12.5}),
    (BALANCE, "licensing.issue", {"applicant": "a1"}),
    (PERMITS, "permits.issue", {"owner_builder": False}),
    (PERMITS, "permits.issue", {"parcel": "p1"}),
    (PERMITS, "permits.issue", {"contractor_license": "TBD"}),
    (APPROVER, "iam.grant_role", {"approver_id": "unknown"}),
]


CAB = "dry_run must be true unless approved_by_cab = true"
EMERGENCY = "`change_ticket` mandatory, except when is_emergency = true"


def test_an_exception_bound_to_its_own_flag_is_read() -> None:
    for rule, reading in (
        (CAB, "Deny when `dry_run` is not true, unless `approved_by_cab` is true"),
        (EMERGENCY, "Deny when `change_ticket` is missing or empty, unless `is_emergency` is true"),
    ):
        compiled = compile_rule(0, "c:r0", rule)
        assert compiled.understanding == "understood"
        assert [c.reading() for c in compiled.checks] == [reading]


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        (CAB, {"dry_run": True}, "approved"),
        (CAB, {"dry_run": False, "approved_by_cab": True}, "approved"),
        (CAB, {"dry_run": False, "approved_by_cab": False}, "denied"),
        (CAB, {"dry_run": False}, "denied"),
        (CAB, {"dry_run": False, "approved_by_cab": "yes"}, "pending_review"),
        (EMERGENCY, {"is_emergency": True}, "approved"),
        (EMERGENCY, {"is_emergency": False}, "denied"),
        (EMERGENCY, {"change_ticket": "CHG-9"}, "approved"),
    ],
)
def test_the_exception_flag_decides_only_when_set(rule: str, args: dict, expected: str) -> None:
    # alone: beside the ticket rule's `ticket_id`, a missing `change_ticket` is near it (review)
    assert outcome([rule], "ops.migrate", args) == expected


@pytest.mark.parametrize(("rule", "tool", "args"), NEVER_APPROVED)
def test_near_misses_are_never_approved(rule: str, tool: str, args: dict) -> None:
    assert outcome_beside_ticket(rule, tool, args) != "approved"


# shapes the grammar must not read: a condition in the gloss or the subject, a second
# obligation, a name that says neither a reference nor a flag, a gloss naming something else
NOT_READ = [
    "Exports for EU customers need a DPA reference (dpa_ref) over 10k",
    "Sharing a dataset needs a Data Sharing Agreement (dsa_id) for EU partners",
    "`change_ticket` mandatory for prod deploys",
    "No MFA reset on a flagged account unless password_reset_done is true",
    "Facade alterations in the historic district need a Certificate of Appropriateness no. "
    "(`coa_number`)",
    "Wire payouts need `kyc_passed` = true and must stay under 5,000 USD.",
    "include_pii must be false (EU only)",
    "Vendor onboarding needs a cost centre - region_code",
    "Shipments need a bill of lading (customs_broker_id)",
    "include_pii must be false (strip names unless HR asks)",
    "Large wires require pre_trade_check_passed to be true",
    "Deploys need change_ticket to be true",
]


@pytest.mark.parametrize("rule", NOT_READ)
def test_what_the_grammar_does_not_read_is_left_to_the_others(rule: str) -> None:
    from webapp.judge.identified import identified_checks

    assert identified_checks(0, rule) is None


def test_a_gloss_that_adds_a_condition_is_never_swallowed() -> None:
    for rule in NOT_READ[:3]:
        compiled = compile_rule(0, "c:r0", rule)
        assert not any(c.kind == "identified" for c in compiled.checks), rule


# 'when the customer is a minor' is read by another recogniser (a yes/no argument of the party)
_QUALIFIERS = [q for q in APPENDED_QUALIFIERS if "minor" not in q] + ["over 10k", "in the EU"]


@settings(max_examples=80, deadline=None)
@given(rule=st.sampled_from(UNDERSTOOD), qualifier=st.sampled_from(_QUALIFIERS))
def test_an_appended_qualifier_leaves_the_rule_partly_understood(rule: str, qualifier: str) -> None:
    assert_qualified_never_decides(rule, qualifier)


_SUBJECT_CONDITIONS = st.sampled_from(
    ["for new customers", "over 10k", "in the EU", "when flagged", "to high-risk vendors"]
)


@settings(max_examples=60, deadline=None)
@given(
    rule=st.sampled_from(
        [
            ("No shipment", " without a customs broker - broker_id must be filled in."),
            ("Batch release", " requires a Qualified Person - qp_id"),
            ("Payouts", " only after KYC (kyc_passed = true)."),
            ("No business licence issued", BALANCE[len("No business licence issued") :]),
        ]
    ),
    cond=_SUBJECT_CONDITIONS,
)
def test_a_condition_in_the_subject_is_never_dropped(rule: tuple[str, str], cond: str) -> None:
    # other recognisers read some of these conditions ('in the EU' on a region argument), so
    # the property is this grammar's: it never reads the rule with the condition dropped
    from webapp.judge.identified import identified_checks

    head, tail = rule
    assert identified_checks(0, f"{head} {cond}{tail}") is None


_STAND_INS = st.sampled_from(["TBD", "tbd", "n/a", "N/A", "-", "unknown", "none", "?", "..."])


@settings(max_examples=60, deadline=None)
@given(rule=st.sampled_from([BROKER, NDA, QP, APPROVER, DSA]), value=_STAND_INS)
def test_a_stand_in_never_satisfies_a_required_reference(rule: str, value: str) -> None:
    name = compile_rule(0, "c:r0", rule).checks[0].path
    tool = {BROKER: "freight.ship", NDA: "vendor.share", QP: "mfg.release_batch"}.get(rule, "x.do")
    assert outcome_beside_ticket(rule, tool, {name: value}) != "approved"


@settings(max_examples=60, deadline=None)
@given(
    rule=st.sampled_from([DRY_RUN, KYC, PRE_TRADE, RESTRICTION, W9]),
    value=st.one_of(st.just(False), st.none(), st.sampled_from(["false", "no", "", "TBD", 0])),
)
def test_a_flag_that_is_not_true_is_never_approved(rule: str, value: object) -> None:
    name = compile_rule(0, "c:r0", rule).checks[0].path
    assert outcome_beside_ticket(rule, "ops.run", {name: value}) != "approved"


TWO = "Wire payouts need `kyc_passed` = true and must stay under 5,000 USD."


def test_two_obligations_are_read_only_together() -> None:
    compiled = compile_rule(0, "c:r0", TWO)
    assert compiled.understanding == "understood"
    assert [c.reading() for c in compiled.checks] == [
        "Deny when `kyc_passed` is not true (about: wire payouts)",
        "Deny when the amount is at or above 5,000 USD (about: wire payouts)",
    ]
    # a second obligation no recogniser reads whole leaves the rule partly understood
    assert_never_decides(
        "Wire payouts need `kyc_passed` = true and must go through the fraud desk when flagged."
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"amount": 1200, "currency": "USD", "kyc_passed": True}, "approved"),
        ({"amount": 7200, "currency": "USD", "kyc_passed": True}, "denied"),
        ({"amount": 1200, "currency": "USD", "kyc_passed": False}, "denied"),
        ({"amount": 1200, "currency": "USD"}, "denied"),
    ],
)
def test_two_obligations_outcomes(args: dict, expected: str) -> None:
    assert outcome([TWO], "payments.wire_payout", args) == expected


@settings(max_examples=60, deadline=None)
@given(amount=st.integers(min_value=5000, max_value=10**7), kyc=st.booleans())
def test_a_wire_at_or_past_the_cap_is_never_approved(amount: int, kyc: bool) -> None:
    args = {"amount": amount, "currency": "USD", "kyc_passed": kyc}
    assert outcome([TWO], "payments.wire_payout", args) != "approved"


@pytest.mark.parametrize(
    ("rule", "unread"),
    [
        ("`change_ticket` mandatory (prod only)", "change_ticket"),
        ("Orders require a PO (po_number) and a GRN (grn_number)", "grn_number"),
    ],
)
def test_a_reference_no_check_reads_as_an_argument_stays_unread(rule: str, unread: str) -> None:
    # they had read "Deny unless an argument is prod" and the PO alone, labelled understood
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "partly_understood"
    assert unread in compiled.unaccounted


@pytest.mark.parametrize(
    "rule",
    [
        "Every request must include a ticket_id.",
        "is_test = true -> no bank submission",
        "Payments need invoice_id; payments over 10k also need cfo_ok = true",
        # field names listed as values (dev_jfield, holdout_11): read by the list's own check
        "Exports must not include: ssn, dob, card_number.",
        "reason_code must be DAMAGED, EXPIRED, LOST or OBSOLETE",
        "POs of $25,000 or more need a Finance approval reference (finance_approval_id).",
    ],
)
def test_a_reference_a_check_reads_leaves_the_rule_understood(rule: str) -> None:
    assert compile_rule(0, "c:r0", rule).understanding == "understood"
