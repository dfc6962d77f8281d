"""Terse shapes of holdout_60/61 that kept rules from deciding (jappr).

A tail restating what a missing or false value does ('no consent = no procedure', 'blank / null
= reject', 'No ref, no deploy'), a list number or a bullet before an argument's name, a
backticked name in brackets after a bound ('(`amount`)'), a terse 'refund `reason` required', a
flag with an arrow to a refusal ('`contains_pii` true -> deny'), a closing 'unless `flag` is
true', 'Over that = no' / 'Less -> deny' after a bound, glossary pointers, and FYI or N/A lines.
Each is read for every phrasing of its shape, and a near miss (a value just over or under, the
flag the other way, a tail naming something else) decides the other way or goes to review.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_support import outcome

from webapp.judge import asides
from webapp.judge.compiler import compile_rule, reader_note

CONSENT = "`consent_signed` must be true. no consent = no procedure."
MRN = "Patient `mrn` required. blank / null = reject."
TICKET = "Must reference a change ticket (`ticket_ref`). No ref, no deploy."
LABELLED = "3. `stay_nights` no more than 14."
BULLET = "- `order_total_usd` > 25k -> category manager sign-off."
CREDIT = "Credits over 75.00 EUR (`credit`) -> billing lead has to sign off first."
PII = "`contains_pii` true -> deny."
LEAD = "`lead_days` < 7 -> deny unless `rush_approved` is true."
FEE = "Single course fee max 900 (`fee`). Over that = no."
MARGIN = "Cold chain: `temp_margin_c` >= 2. Less -> deny."
EMBARGO = "No purchase orders to embargoed suppliers (glossary)."
NIGHT = "Night shifts (`shift_type` = night) must cite a rest waiver (`rest_waiver_id`)."


def test_consent_tail_unsafe_approval_closed() -> None:
    # the tail had taken the flag for a value and approved `consent_signed: false`
    assert outcome([CONSENT], "procedure.book", {"procedure": "MRI", "consent_signed": False}) == (
        "denied"
    )
    assert outcome([CONSENT], "procedure.book", {"procedure": "MRI", "consent_signed": True}) == (
        "approved"
    )
    assert outcome([CONSENT], "procedure.book", {"procedure": "MRI"}) == "denied"


def test_tail_naming_something_else_stays_a_rule() -> None:
    rule = compile_rule(0, "c", "`consent_signed` must be true. no minors = no procedure.")
    assert rule.understanding != "understood"
    args = {"procedure": "MRI", "consent_signed": True, "patient_age": 15}
    assert outcome([rule.text], "procedure.book", args) == "pending_review"


@pytest.mark.parametrize(
    ("text", "what"),
    [
        (CONSENT, "consent"),
        (MRN, ""),
        (TICKET, "ref"),
        ("`ada_certified` must be true. no cert = no booking.", "cert"),
        ("COI required (`coi_id`) - empty = no badge.", ""),
        ("`board_resolution_ref` required. Missing = deny.", ""),
    ],
)
def test_absence_branch_found(text: str, what: str) -> None:
    branch = asides.absence_branch(text)
    assert branch is not None
    assert branch.what == what


@pytest.mark.parametrize(
    "text",
    ["No refunds to cash.", "no consent = no procedure.", "Refunds over 50 USD need a manager."],
)
def test_absence_branch_not_found(text: str) -> None:
    assert asides.absence_branch(text) is None


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        (MRN, {"mrn": "MRN-1"}, "approved"),
        (MRN, {"mrn": ""}, "denied"),
        (MRN, {"mrn": None}, "denied"),
        (TICKET, {"ticket_ref": "CHG-1"}, "approved"),
        (TICKET, {"ticket_ref": ""}, "denied"),
        ("`cost_center` required.", {"cost_center": "CC-1"}, "approved"),
        ("`cost_center` required.", {"size": "m5"}, "denied"),
        (LABELLED, {"stay_nights": 14}, "approved"),
        (LABELLED, {"stay_nights": 15}, "denied"),
        (BULLET, {"order_total_usd": 25000, "currency": "USD"}, "approved"),
        (BULLET, {"order_total_usd": 25001, "currency": "USD"}, "pending_review"),
        (CREDIT, {"credit": 75, "currency": "EUR"}, "approved"),
        (CREDIT, {"credit": 75.01, "currency": "EUR"}, "pending_review"),
        (CREDIT, {"credit": 20, "fee": 400, "currency": "EUR"}, "approved"),
        (PII, {"contains_pii": True}, "denied"),
        (PII, {"contains_pii": False}, "approved"),
        (LEAD, {"lead_days": 6, "rush_approved": True}, "approved"),
        (LEAD, {"lead_days": 6, "rush_approved": False}, "denied"),
        (LEAD, {"lead_days": 7, "rush_approved": False}, "approved"),
        (NIGHT, {"shift_type": "night", "rest_waiver_id": ""}, "denied"),
        (NIGHT, {"shift_type": "night", "rest_waiver_id": "RW-9"}, "approved"),
        (NIGHT, {"shift_type": "day", "rest_waiver_id": ""}, "approved"),
    ],
)
def test_terse_shapes_decide(rule: str, args: dict, expected: str) -> None:
    assert outcome([rule], "ops.act", args) == expected


def test_restated_bound_in_its_own_direction() -> None:
    assert compile_rule(0, "c", FEE).understanding == "understood"
    assert compile_rule(0, "c", MARGIN).understanding == "understood"
    # the branch in the other direction restates nothing the rule says
    assert compile_rule(0, "c", "Single course fee max 900 (`fee`). Less = no.").understanding != (
        "understood"
    )
    # (read literally, 'Over -> deny' after a floor refuses what is over it too: never approved)
    over = outcome(
        ["Cold chain: `temp_margin_c` >= 2. Over -> deny."], "cargo.load", {"temp_margin_c": 3}
    )
    assert over != "approved"


def test_exception_after_an_allow_list_is_not_read() -> None:
    rule = "Samples may only ship to US or CA; any other country -> reject unless `export_cleared` is true."
    assert outcome([rule], "lab.ship", {"country": "MX", "export_cleared": True}) == (
        "pending_review"
    )


def test_glossary_pointer_set_aside() -> None:
    glossary = {"embargoed suppliers": ["Nordwind GmbH", "Apex Metals"]}
    from judge_support import ClearanceQuery, StaticHistory, evaluate, policy, status

    def run(supplier: str) -> str:
        v = evaluate(
            ClearanceQuery("procure.po", {"supplier": supplier}, "agent"),
            [policy([EMBARGO])],
            StaticHistory.from_dict(None),
            glossary=glossary,
        )
        return status(v)

    assert run("Apex Metals") == "denied"
    assert run("Bolt Supply") == "approved"
    assert asides.without_glossary_pointer("in jurisdictions (glossary, `borrower_country`)") == (
        "in jurisdictions (`borrower_country`)"
    )


@pytest.mark.parametrize(
    ("text", "note"),
    [
        ("FYI GTFS regenerates nightly at 02:00.", True),
        ("FYI: LATAM desk hours 08:00-17:00 BRT.", True),
        ("N/A to paper transfers / paper tickets.", True),
        ("FYI: aggregate reports are public -- use the open data portal.", False),
        ("FYI: vendor ACME is under investigation.", False),
        ("FYI: ACME account compromised.", False),
        ("FYI no refunds to cash.", False),
        ("FYI: payment files are built by the ERP, agent only submits.", False),
        ("Refunds over 50 USD need a manager.", False),
    ],
)
def test_reader_note(text: str, note: bool) -> None:
    assert reader_note(text) is note


def test_alarming_fyi_is_not_informational() -> None:
    rule = compile_rule(0, "c", "FYI vendor ACME is under investigation.")
    assert rule.understanding != "informational"


@settings(max_examples=40, deadline=None)
@given(
    cap=st.integers(min_value=2, max_value=5000),
    delta=st.sampled_from([-1, 0, 1]),
    label=st.sampled_from(["", "3. ", "4) ", "- ", "\u2022 "]),
)
def test_labelled_cap_decides_at_the_boundary(cap: int, delta: int, label: str) -> None:
    """A list number or a bullet before a backticked name changes nothing of the bound."""
    rule = f"{label}`units_requested` no more than {cap}."
    got = outcome([rule], "ops.request", {"units_requested": cap + delta})
    assert got == ("denied" if delta > 0 else "approved")


@settings(max_examples=30, deadline=None)
@given(
    flag=st.sampled_from(["consent_signed", "background_check_passed", "ada_certified"]),
    value=st.sampled_from([True, False, None]),
)
def test_true_flag_with_tail_never_approves_a_false_flag(flag: str, value: bool | None) -> None:
    noun = flag.split("_")[0][:4]
    rule = f"`{flag}` must be true. no {noun} = no booking."
    args = {"booking": "B-1"} if value is None else {"booking": "B-1", flag: value}
    got = outcome([rule], "booking.create", args)
    assert got == ("approved" if value is True else "denied")


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        (
            "Must cite a requisition (`pr_ref`, e.g. PR-2025-xxx). No ref, no PO.",
            {"pr_ref": "PR-1"},
            "approved",
        ),
        (
            "Must cite a requisition (`pr_ref`, e.g. PR-2025-xxx). No ref, no PO.",
            {"pr_ref": ""},
            "denied",
        ),
        (
            "Claims > GBP 20k (`claim_gbp`) -> adjuster signs off before payment.",
            {"claim_gbp": 20001, "currency": "GBP"},
            "pending_review",
        ),
        (
            "Claims > GBP 20k (`claim_gbp`) -> adjuster signs off before payment.",
            {"claim_gbp": 19999, "currency": "GBP"},
            "approved",
        ),
        (
            "ward = icu (intensive care) -> charge nurse approves first.",
            {"ward": "icu"},
            "pending_review",
        ),
        (
            "ward = icu (intensive care) -> charge nurse approves first.",
            {"ward": "general"},
            "approved",
        ),
        # a bracket with a condition in it is no gloss of the value, and is not set aside
        (
            "ward = icu (only if ventilated) -> charge nurse approves first.",
            {"ward": "icu"},
            "pending_review",
        ),
    ],
)
def test_examples_timing_and_value_glosses(rule: str, args: dict, expected: str) -> None:
    assert outcome([rule], "ops.act", args) == expected


def test_timing_kept_in_prose() -> None:
    text = "Campaigns need Legal review before sending."
    assert asides.without_approval_timing(text) == text
    assert asides.without_approval_timing("X -> Legal approves first.") == "X -> Legal approves."
