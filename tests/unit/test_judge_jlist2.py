"""Thirteenth session, helper jlist (set dev_jlist2): closed lists with an 'anything else'
fallback, prose deny-lists of the argument named in brackets, fields listed after the act that
carries them, and place lists holding names the built-in vocabulary does not know.

Each rule is judged beside a satisfied ticket rule (judge_support), so a rule the engine misreads
or passes by shows as an approval. Near-misses (another value, a value in other case or with a
space, a value holding a listed one, a list argument with one listed member, a country the
vocabulary does not know, no value at all) must never approve.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import assert_never_decides, outcome_beside_ticket
from webapp.judge.compiler import compile_rule
from webapp.judge.tiers import exclusive

TAX = "Auto-file OK for jurisdictions US, CA, GB, DE, FR, NL; anything else -> Tax team review"
USD = "USD only - any other currency -> Treasury review"
RELOCATION = "Relocation allowance may be paid in EUR, GBP or CHF. Any other currency needs Payroll sign-off."
INCOTERMS = "Incoterms accepted: FOB, CIF, DAP. Anything else -> procurement review."
REASONS = (
    "Refund reasons accepted: damaged, not_delivered, wrong_item. Any other reason -> supervisor."
)
PII = "PII fields in an export (email, ssn, dob, phone) -> Legal review"
GIFTS = "We don't accept gifts from tobacco, firearms or gambling companies (donor_industry)"
HIGH_RISK = (
    "High-risk jurisdictions (South Sudan, Yemen, Somalia, Haiti, Mali) -> Compliance review "
    "regardless of amount"
)
SHIP = "Never ship to Yemen, Haiti or Mali."
CRYPTO = "Withdrawals: BTC or ETH only."


@pytest.mark.parametrize(
    ("rule", "reading"),
    [
        (TAX, "Send to review unless country or region is US, CA, GB, DE, FR or NL (about: file)"),
        (USD, "Send to review unless currency is USD"),
        (
            RELOCATION,
            "Send to review unless currency is EUR, GBP or CHF (about: relocation allowance paid)",
        ),
        (INCOTERMS, "Send to review unless `incoterms` is FOB, CIF or DAP"),
        (
            PII,
            "When a member of `fields` is email, ssn, dob or phone: Send to review requests about "
            "export",
        ),
        (
            GIFTS,
            'Deny when `donor_industry` (accept gifts companies) is one of "tobacco", "firearms", '
            '"gambling"',
        ),
    ],
)
def test_readings(rule: str, reading: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood"
    assert [c.reading() for c in compiled.checks] == [reading]


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (TAX, "tax.file_return", {"jurisdiction": "DE"}, "approved"),
        (TAX, "tax.file_return", {"jurisdiction": "nl"}, "approved"),
        (TAX, "tax.file_return", {"jurisdiction": "MX"}, "pending_review"),
        (TAX, "tax.file_return", {"jurisdiction": "IE"}, "pending_review"),
        (TAX, "tax.file_return", {"jurisdiction": "Germany"}, "approved"),
        (USD, "treasury.pay_supplier", {"amount": 10, "currency": "USD"}, "approved"),
        (USD, "treasury.pay_supplier", {"amount": 10, "currency": " usd"}, "approved"),
        (USD, "treasury.pay_supplier", {"amount": 10, "currency": "EUR"}, "pending_review"),
        (USD, "treasury.pay_supplier", {"amount": 10}, "pending_review"),
        (RELOCATION, "payroll.pay_allowance", {"amount": 9, "currency": "CHF"}, "approved"),
        (RELOCATION, "payroll.pay_allowance", {"amount": 9, "currency": "SEK"}, "pending_review"),
        (INCOTERMS, "procurement.create_po", {"incoterm": "dap"}, "approved"),
        (INCOTERMS, "procurement.create_po", {"incoterm": "EXW"}, "pending_review"),
        (REASONS, "support.issue_refund", {"reason": "damaged"}, "approved"),
        (REASONS, "support.issue_refund", {"reason": "changed_mind"}, "pending_review"),
        (PII, "crm.export_contacts", {"fields": ["name", "company"]}, "approved"),
        (PII, "crm.export_contacts", {"fields": ["SSN"]}, "pending_review"),
        (PII, "crm.export_contacts", {"fields": ["name", "Phone "]}, "pending_review"),
        (PII, "crm.export_contacts", {"fields": ["name", "email_address"]}, "pending_review"),
        (GIFTS, "gifts.accept", {"donor_industry": "gambling"}, "denied"),
        (GIFTS, "gifts.accept", {"donor_industry": "Tobacco"}, "denied"),
        (GIFTS, "gifts.accept", {"donor_industry": "software"}, "approved"),
        (GIFTS, "gifts.accept", {"donor_industry": "tobacco retail"}, "pending_review"),
        (GIFTS, "gifts.accept", {"industry": "tobacco"}, "pending_review"),
        (CRYPTO, "custody.withdraw", {"asset": "ETH", "amount": 2}, "approved"),
        (CRYPTO, "custody.withdraw", {"asset": "btc", "amount": 2}, "approved"),
        (CRYPTO, "custody.withdraw", {"asset": "SOL", "amount": 2}, "denied"),
        (CRYPTO, "custody.withdraw", {"asset": "WBTC", "amount": 2}, "pending_review"),
        (CRYPTO, "custody.withdraw", {"asset": "laptop-7", "amount": 2}, "pending_review"),
    ],
)
def test_outcomes(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize(
    ("rule", "tool"),
    [
        (HIGH_RISK, "payments.send_wire"),
        (SHIP, "shipping.create_shipment"),
        ("Payments to Yemen, Haiti or Mali are forbidden.", "payments.send_wire"),
    ],
)
@pytest.mark.parametrize("country", ["YE", "HT", "ML", "FR", "Haiti"])
def test_a_place_the_vocabulary_does_not_know_is_never_approved(
    rule: str, tool: str, country: str
) -> None:
    # the known places are read as places; the names the vocabulary does not know stay
    # unaccounted, so the rule never decides alone and sends every request it governs to review
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "partly_understood"
    assert {"haiti", "mali"} <= set(compiled.unaccounted)
    got = outcome_beside_ticket(rule, tool, {"amount": 5, "country": country})
    assert got == "pending_review"


def test_a_list_of_names_that_holds_one_place_stays_a_list_of_names() -> None:
    rule = "Governing law: New York, Delaware, or England and Wales only."
    assert outcome_beside_ticket(rule, "contracts.sign", {"governing_law": "Delaware"}) == (
        "approved"
    )
    assert outcome_beside_ticket(rule, "contracts.sign", {"governing_law": "Wales"}) != "approved"


@pytest.mark.parametrize(
    "head",
    [
        "Refunds may be issued by leads.",
        "Managers may approve refunds up to 500 USD.",
        "Auto-file OK for returns under 1,000 USD.",
        "Payments only.",
        "ACME only.",
    ],
)
def test_exclusive_leaves_other_heads_alone(head: str) -> None:
    # a head with no closed list of values at its end, or bare codes that are no currencies
    assert exclusive(head, lambda code: code in ("USD", "EUR")) is None


_CURRENCIES = ("EUR", "GBP", "CHF", "USD", "JPY")


@settings(max_examples=40, deadline=None)
@given(
    listed=st.lists(st.sampled_from(_CURRENCIES), min_size=1, max_size=3, unique=True),
    other=st.sampled_from(("SEK", "NOK", "PLN", "CZK")),
    fallback=st.sampled_from(
        ("Any other currency needs Payroll sign-off.", "Anything else -> Treasury review.")
    ),
)
def test_a_currency_outside_the_list_is_never_approved(
    listed: list[str], other: str, fallback: str
) -> None:
    rule = f"Allowances may be paid in {' or '.join(listed)}. {fallback}"
    tool = "payroll.pay_allowance"
    assert outcome_beside_ticket(rule, tool, {"amount": 5, "currency": other}) == "pending_review"
    assert outcome_beside_ticket(rule, tool, {"amount": 5, "currency": listed[0]}) == "approved"


@settings(max_examples=40, deadline=None)
@given(
    clause=st.sampled_from(
        (
            " for new customers",
            " unless the vendor is privileged",
            " when the account is external",
            " except for sanctioned regions",
        )
    ),
    rule=st.sampled_from((TAX, RELOCATION, INCOTERMS)),
)
def test_an_inserted_condition_is_never_read_away(clause: str, rule: str) -> None:
    # a condition before the fallback narrows the head: a value outside the list is never
    # approved, and no allow-list taken from the head decides as understood
    head, _, tail = rule.partition(";") if ";" in rule else rule.partition(". ")
    text = f"{head.rstrip('.')}{clause}. {tail}"
    tool, args = {
        TAX: ("tax.file_return", {"jurisdiction": "MX"}),
        RELOCATION: ("payroll.pay_allowance", {"amount": 5, "currency": "SEK"}),
        INCOTERMS: ("procurement.create_po", {"incoterm": "EXW"}),
    }[rule]
    assert outcome_beside_ticket(text, tool, args) != "approved"
    compiled = compile_rule(0, "c:r0", text)
    if compiled.understanding == "understood":
        assert not any(getattr(c, "mode", "") == "allow" for c in compiled.checks)


@settings(max_examples=30, deadline=None)
@given(
    items=st.lists(
        st.sampled_from(("tobacco", "firearms", "gambling", "alcohol", "crypto")),
        min_size=1,
        max_size=3,
        unique=True,
    ),
    suffix=st.sampled_from(("A", " retail", "-adjacent", " holding")),
)
def test_a_value_holding_a_listed_one_is_never_approved(items: list[str], suffix: str) -> None:
    rule = f"We don't accept gifts from {' or '.join(items)} companies (donor_industry)"
    got = outcome_beside_ticket(rule, "gifts.accept", {"donor_industry": items[0] + suffix})
    assert got != "approved"


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Never pay vendors in RU or BY, and payments above 5,000 USD need CFO approval.",
            "payments.pay_vendor",
            {"country": "RU", "amount": 100, "currency": "USD"},
        ),
        (
            "Incoterms accepted: FOB, CIF, DAP for new customers. Anything else -> procurement "
            "review.",
            "procurement.create_po",
            {"incoterm": "EXW"},
        ),
        ("Auto-file OK for jurisdictions US, CA, GB, DE, FR, NL.", "tax.file_return", {}),
    ],
)
def test_listed_codes_read_as_the_subject_leave_the_rule_partly_understood(
    rule: str, tool: str, args: dict
) -> None:
    # the codes were words of a cap's or a permission's subject (RU was paid; EXW approved)
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "partly_understood"
    assert outcome_beside_ticket(rule, tool, {**args, "jurisdiction": "MX"}) != "approved"


@settings(max_examples=30, deadline=None)
@given(
    qualifier=st.sampled_from(("privileged", "sanctioned", "high-risk", "external", "personal")),
    rule=st.sampled_from((INCOTERMS, RELOCATION)),
)
def test_a_category_qualifier_before_the_list_is_never_read_away(qualifier: str, rule: str) -> None:
    # 'Incoterms accepted for privileged vendors: …', 'Relocation allowance for sanctioned
    # accounts may be paid in …': an open category narrows the head; no glossary defines it
    head = {INCOTERMS: "Incoterms accepted", RELOCATION: "Relocation allowance"}[rule]
    assert_never_decides(rule.replace(head, f"{head} for {qualifier} vendors", 1))


def test_anything_else_after_a_required_list_sends_the_rest_to_review() -> None:
    # was a near-miss of test_judge_jlabel (never decides); 'anything else' names the values the
    # list leaves out, as 'any other currency' does (tiers.other_clause)
    rule = "Currency must be EUR or GBP. Anything else -> treasury review."
    compiled = compile_rule(0, "c:r0", rule)
    assert [c.reading() for c in compiled.checks] == [
        "Send to review unless currency is EUR or GBP"
    ]
    tool = "treasury.pay_supplier"
    assert outcome_beside_ticket(rule, tool, {"amount": 5, "currency": "GBP"}) == "approved"
    assert outcome_beside_ticket(rule, tool, {"amount": 5, "currency": "USD"}) == "pending_review"


@pytest.mark.parametrize(
    "rule", ["No exports outside city domains.", "No sharing with addresses outside city domains."]
)
@pytest.mark.parametrize(
    "email", ["clerk@springfield.gov", "x@springfield.gov.evil.com", "someone@gmail.com"]
)
def test_a_word_before_domains_is_no_domain(rule: str, email: str) -> None:
    # "Deny unless `domains` is city", labelled understood: 'city' qualifies the domains (a
    # category no list in the rule gives), so the rule is partly understood and reviews
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "partly_understood"
    assert "city" in compiled.unaccounted
    got = outcome_beside_ticket(rule, "files.share", {"file_id": "F-9", "recipient_email": email})
    assert got == "pending_review"


@pytest.mark.parametrize(
    "rule",
    [
        "Wires may be sent in USD. Any other currency for new vendors -> review.",
        "Currency must be USD. Any other currency for new vendors -> review.",
    ],
)
def test_a_qualified_any_other_is_no_complement_of_the_list(rule: str) -> None:
    # 'any other currency for new vendors' speaks of some of the values left out, not of all
    assert_never_decides(rule)
