"""Categories decided only through a vocabulary, and readings rendered from each check's structure."""

from __future__ import annotations

import hashlib

import pytest

from webapp.judge.compiler import compile_policy, compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.explain import policy_report
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery, PolicyVersion
from webapp.judge.vocabulary import Glossary

GLOSSARY = {
    "privileged roles": ["Org Owner", "Billing Admin", "Security Admin"],
    "personal email": ["gmail.com", "yahoo.com"],
}


def _decide(rule: str, tool: str, args: dict, glossary=GLOSSARY) -> str:
    digest = hashlib.sha256(rule.encode()).hexdigest()
    policy = PolicyVersion("p", f"pv_{digest[:12]}", digest, "", (rule,), (tool,))
    verdict = evaluate(
        ClearanceQuery(tool, args, "a"), [policy], StaticHistory.from_dict(None), glossary=glossary
    )
    return verdict.decision if verdict.confidence >= 0.8 or verdict.decision != "allow" else "low"


@pytest.mark.parametrize(
    ("role", "glossary", "expected"),
    [
        ("Org Owner", GLOSSARY, "deny"),
        ("org owner", GLOSSARY, "deny"),
        ("Viewer", GLOSSARY, "allow"),
        ("Billing Administrator", GLOSSARY, "review"),  # close to the category, not in it
        ("Org Owner", None, "review"),  # no vocabulary: never guessed
        ("Viewer", None, "review"),
    ],
)
def test_a_category_noun_is_decided_only_through_the_glossary(role, glossary, expected):
    rule = "Privileged roles must never be assigned by the agent."
    assert _decide(rule, "assign_role", {"user": "bob", "role": role}, glossary) == expected


@pytest.mark.parametrize(
    ("to", "expected"),
    [("x@gmail.com", "deny"), ("x@mail.yahoo.com", "deny"), ("x@corp.example", "allow")],
)
def test_a_consumer_mail_domain_belongs_to_the_glossary_category(to, expected):
    rule = "Never share files with personal email accounts."
    assert _decide(rule, "share_file", {"file": "f", "to": to}) == expected


def test_glossary_terms_match_case_and_number_insensitively():
    compiled = compile_rule(
        0,
        "c:r0",
        "A Privileged Role is never granted.",
        Glossary.of({"privileged ROLES": ["Org Owner"]}),
    )
    assert compiled.understanding == "understood"


@pytest.mark.parametrize(
    ("rule", "reading"),
    [
        ("Wire transfers to IR or KP are forbidden", "Deny when country or region is IR or KP"),
        ("Wire transfers must include a purpose field", "Deny when `purpose` is missing or empty"),
        (
            "Credits of at least $200 need a manager",
            "Send to review when the amount is at or above 200 USD",
        ),
        ("The billing-api is under change freeze", "Deny when an argument is billing-api"),
    ],
)
def test_readings_come_from_the_check_structure_not_from_stems(rule, reading):
    compiled = compile_rule(0, "c:r0", rule)
    readings = [c.reading() for c in compiled.checks]
    assert any(r.startswith(reading) for r in readings), readings
    assert not any("wir " in r or "purpos " in r for r in readings)


def test_the_policy_report_gives_states_readings_and_unaccounted_words():
    policy = PolicyVersion(
        "p",
        "pv_x",
        "h",
        "",
        (
            "Wire transfers to IR or KP are forbidden",
            "Accounts may not be closed unless the branch manager has waived it",
        ),
        ("wire_*",),
    )
    report = policy_report(compile_policy(policy))
    assert report[0]["understanding"] == "understood"
    assert report[0]["readings"][0].endswith("(tools: wire_*)")
    assert report[1]["understanding"] == "partly_understood"
    assert "unless" in report[1]["unaccounted"]


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        (
            "Every payout must cite an invoice number and stay under 1,000 EUR",
            {"amount": 10, "currency": "EUR"},
            "deny",
        ),
        (
            "Every payout must cite an invoice number and stay under 1,000 EUR",
            {"amount": 10, "currency": "EUR", "invoice_number": "I-1"},
            "allow",
        ),
        (
            "Every payout must cite an invoice number and stay under 1,000 EUR",
            {"amount": 5000, "currency": "EUR", "invoice_number": "I-1"},
            "deny",
        ),
        ("Payouts must not exceed 2,000", {"amount": 1500, "currency": "GBP"}, "review"),
        (
            "Payouts may not be sent unless the balance is zero",
            {"amount": 5, "balance": 0},
            "allow",
        ),
        ("Payouts may not be sent unless the balance is zero", {"amount": 5, "balance": 3}, "deny"),
        ("Payouts may not be sent unless the balance is zero", {"amount": 5}, "review"),
        (
            "Payouts may not be sent unless a ticket is referenced",
            {"amount": 5, "ticket_id": "T-1"},
            "allow",
        ),
        ("Payouts may not be sent unless a ticket is referenced", {"amount": 5}, "deny"),
        (
            "Payouts are allowed only if the KYC check passed",
            {"amount": 5, "kyc_verified": True},
            "allow",
        ),
        (
            "Payouts are allowed only if the KYC check passed",
            {"amount": 5, "kyc_verified": False},
            "deny",
        ),
        ("The billing-api is under change freeze", {"service": "billing-api"}, "deny"),
        ("The billing-api is under change freeze", {"service": "search-api"}, "allow"),
        ("Never export the columns ssn or salary", {"columns": ["name", "ssn"]}, "deny"),
        (
            "Payouts over 10,000 USD may go only to the US or Canada",
            {"amount": 20000, "currency": "USD", "country": "MX"},
            "deny",
        ),
        (
            "Payouts over 10,000 USD may go only to the US or Canada",
            {"amount": 20000, "currency": "USD", "country": "CA"},
            "allow",
        ),
        (
            "Payouts over 10,000 USD may go only to the US or Canada",
            {"amount": 10000, "currency": "USD", "country": "MX"},
            "allow",
        ),
        (
            "Payouts over 10,000 USD may go only to the US or Canada",
            {"amount": 20000, "currency": "GBP", "country": "MX"},
            "review",
        ),
        (
            "Payouts of at least 5,000 EUR must not go to RU or BY",
            {"amount": 5000, "currency": "EUR", "country": "RU"},
            "deny",
        ),
    ],
)
def test_issue_constructs(rule, args, expected):
    tool = "export_table" if "export" in rule else "create_payout"
    assert _decide(rule, tool, args, None) == expected


@pytest.mark.parametrize(
    ("rule", "tool", "args", "glossary", "expected"),
    [
        (
            "Never buy from vendors on the watch list.",
            "buy",
            {"vendor": "Initech", "amount": 3},
            None,
            "review",
        ),
        (
            "Never buy from vendors on the watch list.",
            "buy",
            {"vendor": "Initech", "amount": 3},
            {"watch list": ["Initech"]},
            "deny",
        ),
        (
            "Never buy from vendors on the watch list.",
            "buy",
            {"vendor": "Globex", "amount": 3},
            {"watch list": ["Initech"]},
            "allow",
        ),
        (
            "Never message customers that unsubscribed.",
            "message_customer",
            {"customer": "bob"},
            None,
            "review",
        ),
        (
            "Do not page engineers who are on leave.",
            "page_engineer",
            {"engineer": "bob"},
            None,
            "review",
        ),
        (
            "Lab exports must include a consent_id and an auditor_id.",
            "lab_export",
            {"consent_id": "C"},
            None,
            "deny",
        ),
        (
            "Lab exports must include a consent_id and an auditor_id.",
            "lab_export",
            {"consent_id": "C", "auditor_id": "A"},
            None,
            "allow",
        ),
    ],
)
def test_named_lists_relative_clauses_and_several_required_arguments(
    rule, tool, args, glossary, expected
):
    assert _decide(rule, tool, args, glossary) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"amount": 1, "case_ref": "C-1"}, "allow"),
        ({"amount": 1, "case_id": "C-1"}, "allow"),
        ({"amount": 1}, "deny"),
    ],
)
def test_a_required_reference_is_found_under_its_usual_names(args, expected):
    assert (
        _decide("Every credit note needs a case reference", "issue_credit_note", args, None)
        == expected
    )


def test_a_required_argument_named_in_part_goes_to_review_not_to_a_guessed_deny():
    rule = "Every purchase must include a purchase order number"
    assert _decide(rule, "purchase", {"amount": 3, "purchase_ref": "P-9"}, None) == "review"
    assert _decide(rule, "purchase", {"amount": 3}, None) == "deny"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"patient_id": "P", "country": "DE", "consent_signed": False}, "deny"),
        ({"patient_id": "P", "country": "DE", "consent_signed": True}, "allow"),
        ({"patient_id": "P", "country": "US", "consent_signed": False}, "allow"),
    ],
)
def test_an_obligation_that_applies_only_in_named_places(args, expected):
    rule = "Patients in the EEA must not be enrolled without a signed consent form"
    assert _decide(rule, "enroll_patient", args, None) == expected


def test_without_a_reading_of_it_a_without_clause_leaves_the_rule_partly_understood():
    compiled = compile_rule(0, "c:r0", "Payouts to RU or BY are blocked without a frobnication")
    assert compiled.understanding != "understood" or any(
        c.kind in ("required_flag", "when_listed") for c in compiled.checks
    )


@pytest.mark.parametrize(
    ("rule", "amount", "expected"),
    [
        ("Trades must not be placed when the notional is at least 1M USD", 1_000_000, "deny"),
        ("Trades must not be placed when the notional is at least 1M USD", 999_999, "allow"),
        ("Refunds need review if the amount is over 500 EUR", 600, "review"),
        ("Refunds need review if the amount is over 500 EUR", 500, "allow"),
    ],
)
def test_a_numeric_condition_after_if_or_when_reads_through_the_boundary_table(
    rule, amount, expected
):
    tool = "place_trade" if "Trades" in rule else "issue_refund"
    key = "notional" if "Trades" in rule else "amount"
    currency = "USD" if "Trades" in rule else "EUR"
    assert _decide(rule, tool, {key: amount, "currency": currency}, None) == expected


def test_a_condition_read_the_wrong_way_round_is_never_consumed():
    rule = "Stock trades need two approvers when the notional is at least 1M USD"
    for notional in (999_999, 1_000_000):
        assert (
            _decide(rule, "place_trade", {"notional": notional, "currency": "USD"}, None) != "allow"
        )
