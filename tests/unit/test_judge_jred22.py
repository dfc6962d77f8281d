"""Red team jred22: the list readings of jlist and the lead's thirteenth-session changes.

Each vector is a rule beside the satisfied ticket rule, so a misreading or a rule passed by shows
as an approval. Found on bench/judge_cases/dev_jred22.json (first run 20 unsafe approvals).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket, policy
from webapp.judge.compiler import compile_policy, compile_rule, ownership_note

PAY = "payments.send"

# -- owner and contact lines that carry a duty ---------------------------------------------------
DUTY_NOTES = [
    ("Contact Legal before any export", "data.export", {"dataset": "customers"}),
    ("Contact the DPO before exporting EU data", "data.export", {"region": "EU"}),
    (
        "Owned by Treasury - questions to Legal before wiring to Iran",
        PAY,
        {"amount": 9000, "currency": "USD", "country": "IR"},
    ),
    ("Contact: Treasury for wires above 10k", PAY, {"amount": 20000, "currency": "USD"}),
    ("Owner: Treasury. Approval needed above 5k.", PAY, {"amount": 9000, "currency": "USD"}),
    ("Policy owner: Legal (sign-off required)", "data.export", {"dataset": "customers"}),
    ("Owner: Compliance - escalate all exports", "data.export", {"dataset": "customers"}),
    (
        "Contact: payroll-ops@example.org before any off-cycle run",
        "payroll.run",
        {"entity": "DE", "off_cycle": True},
    ),
    ("Contact: Payroll Ops, prior to any off-cycle run", "payroll.run", {"off_cycle": True}),
]


@pytest.mark.parametrize(("rule", "tool", "args"), DUTY_NOTES)
def test_an_owner_line_with_a_duty_never_approves(rule, tool, args):
    assert outcome_beside_ticket(rule, tool, args) == "pending_review"


@pytest.mark.parametrize(
    "text",
    [
        "Contact Legal before any export",
        "Owned by Treasury - questions to Legal before wiring to Iran",
        "Contact: payroll-ops@example.org before any off-cycle run",
        "Owner: Legal. Contact them first.",
    ],
)
def test_a_note_bound_to_acts_is_no_ownership_note(text):
    assert not ownership_note(text)
    compiled = compile_policy(policy([text, "Every grant must cite a ticket_id."]))
    assert compiled.rules[0].understanding != "informational"


@pytest.mark.parametrize(
    "text", ["Owner: Payroll Ops (DE entity).", "Owned by Treasury - questions to Legal"]
)
def test_a_plain_ownership_note_stays_informational(text):
    assert ownership_note(text)
    assert outcome_beside_ticket(text, "payroll.run", {"entity": "DE"}) == "approved"


@pytest.mark.parametrize(
    "text",
    ["Policy owner: Legal (sign-off required)", "Owner: Compliance - escalate all exports"],
)
def test_an_owner_label_is_never_the_subject(text):
    compiled = compile_rule(0, "c0", text)
    assert compiled.understanding == "partly_understood"
    assert not compiled.decides


# -- a partly understood rule whose own bound the request crosses ---------------------------------
def test_a_crossed_bound_makes_a_partly_understood_rule_relevant():
    rule = "Requests above 5k are refused if no PO."
    args = {"amount": 6000, "currency": "USD"}
    assert outcome_beside_ticket(rule, "purchases.create", args) == "pending_review"


# -- an unread fallback covers every value the list leaves out ---------------------------------------
def test_an_unread_fallback_is_relevant():
    rule = "USD or EUR only. Others need Treasury review."
    assert outcome_beside_ticket(rule, PAY, {"amount": 10, "currency": "JPY"}) == "pending_review"


# -- lists: a value elsewhere in the request ---------------------------------------------------
SANCTIONS = "Never pay vendors located in IR, KP, SY, CU or RU."


def test_a_listed_place_in_another_place_argument_goes_to_review():
    args = {
        "vendor_country": "US",
        "vendor_status": "approved",
        "destination": "Tehran, IR",
        "amount": 10,
        "currency": "USD",
    }
    assert outcome_beside_ticket(SANCTIONS, PAY, args) == "pending_review"


def test_an_unlisted_place_elsewhere_still_approves():
    args = {"vendor_country": "US", "destination": "Berlin, DE", "amount": 10, "currency": "USD"}
    assert outcome_beside_ticket(SANCTIONS, PAY, args) == "approved"


DONORS = "We don't accept gifts from tobacco, firearms or gambling companies (donor_industry)"


def test_a_listed_value_in_an_argument_of_the_same_kind_goes_to_review():
    args = {"donor_industry": "education", "parent_industry": "tobacco", "amount": 100}
    assert outcome_beside_ticket(DONORS, "gifts.accept", args) == "pending_review"
    args = {"donor_industry": "education", "parent_industry": "retail", "amount": 100}
    assert outcome_beside_ticket(DONORS, "gifts.accept", args) == "approved"


INVOICES = "Invoices may be paid in EUR, GBP or CHF. Any other currency needs Treasury approval."


def test_an_unlisted_currency_in_another_currency_argument_goes_to_review():
    args = {"amount": 10, "currency": "EUR", "fx_to": "TRY"}
    assert outcome_beside_ticket(INVOICES, "invoices.pay", args) == "pending_review"
    args = {"amount": 10, "currency": "EUR", "fx_to": "GBP"}
    assert outcome_beside_ticket(INVOICES, "invoices.pay", args) == "approved"


PII = "PII fields in an export (email, ssn, dob, phone) -> Legal review"


def test_a_flag_taking_every_column_goes_to_review():
    args = {"fields": ["name"], "include_all_columns": True}
    assert outcome_beside_ticket(PII, "data.export", args) == "pending_review"
    args = {"fields": ["name"], "include_all_columns": False}
    assert outcome_beside_ticket(PII, "data.export", args) == "approved"


# -- misreadings left partly understood -------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Withdrawals: BTC or ETH only, under 5 BTC",
        "Exports: CSV or JSON only, under 5 GB",
        "Payments to vendors that are denied onboarding need review.",
    ],
)
def test_a_misreading_is_left_partly_understood(text):
    compiled = compile_rule(0, "c0", text)
    assert compiled.understanding != "understood"
    assert not compiled.decides


def test_a_refusal_in_a_relative_clause_never_approves():
    rule = "Payments to vendors that are denied onboarding need review."
    args = {"amount": 10, "currency": "USD", "vendor_id": "V1"}
    assert outcome_beside_ticket(rule, PAY, args) == "pending_review"


# -- the readings jlist got right still decide ------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (
            "Auto-file OK for jurisdictions US, CA, GB, DE, FR, NL; anything else -> Tax team "
            "review",
            "tax.file",
            {"jurisdiction": "Mexico"},
            "pending_review",
        ),
        (
            "Auto-file OK for jurisdictions US, CA, GB, DE, FR, NL; anything else -> Tax team "
            "review",
            "tax.file",
            {"jurisdiction": "us"},
            "approved",
        ),
        (
            "Withdrawals: BTC or ETH only",
            "wallet.withdraw",
            {"asset": "ETH", "amount": 1},
            "approved",
        ),
        (DONORS, "gifts.accept", {"donor_industry": "Tobacco", "amount": 100}, "denied"),
    ],
)
def test_list_readings_still_decide(rule, tool, args, expected):
    assert outcome_beside_ticket(rule, tool, args) == expected


# -- properties -----------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(
    label=st.sampled_from(["Owner: Treasury", "Owned by Treasury", "Contact: Treasury"]),
    when=st.sampled_from(["before", "prior to", "ahead of"]),
    act=st.sampled_from(["any wire", "every export", "each payout"]),
)
def test_an_owner_line_bound_to_an_act_is_never_a_note(label, when, act):
    assert not ownership_note(f"{label} - ask {when} {act}.")


@settings(max_examples=30, deadline=None)
@given(bound=st.integers(min_value=1_000, max_value=50_000), over=st.integers(1, 10_000))
def test_a_crossed_bound_of_a_partly_understood_rule_never_approves(bound, over):
    rule = f"Requests above {bound:,} USD are refused if no PO."
    args = {"amount": bound + over, "currency": "USD"}
    assert outcome_beside_ticket(rule, "purchases.create", args) != "approved"


@settings(max_examples=30, deadline=None)
@given(
    code=st.sampled_from(["IR", "KP", "SY", "CU", "RU"]),
    city=st.sampled_from(["Tehran", "City", "Port"]),
    key=st.sampled_from(["destination", "beneficiary_address", "ship_to_country"]),
)
def test_a_listed_place_written_with_its_parts_never_approves(code, city, key):
    args = {"vendor_country": "US", key: f"{city}, {code}", "amount": 10, "currency": "USD"}
    assert outcome_beside_ticket(SANCTIONS, PAY, args) != "approved"
