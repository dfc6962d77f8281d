"""Rule statements found in realistic compliance prose, with their provenance."""

from __future__ import annotations

import json

from ingest import extract, extract_rule_statements
from ingest.rules import MAX_STATEMENT_CHARS
from ingest.text import is_normative, split_sentences
from tests.fixtures.ingest.samples import make_docx, make_pdf

TREASURY = """# Treasury operating procedure

## 1. Purpose
This procedure describes how the treasury team and its automated agents move money.
It was last reviewed in March 2024 by the audit committee's secretary, Mr. J. Smith.

## 2. Payment limits
Outgoing payments shall not exceed EUR 25,000 per transaction. A single payout of more than
10k EUR is subject to review by a second approver. Agents may only initiate payments in EUR,
GBP or USD.
Payments to a counterparty that has never been paid before need approval from the treasury lead.

The following are prohibited:
- payments to sanctioned countries (see annex B);
- splitting a payment to stay under a limit.

## 3. Data
Customer personal data must never leave the EU. Exports are limited to 1,000 records per day.
No agent may export payroll files. Under no circumstances should credentials be pasted into a
ticket. The data team meets on Mondays.

## 4. Deploys
- Production deploys are not permitted on Fridays after 15:00 CET.
- Rollbacks happen through the pipeline.
- Each deploy requires a green CI run, i.e. the full suite.

| Tool | Limit |
|---|---|
| email.send | At most 200 recipients per message |
| crm.export | Read-only |
"""


def rule_texts(document) -> list[str]:
    return [rule.text for rule in extract_rule_statements(document)]


def test_rules_in_varied_compliance_phrasings():
    document = extract(TREASURY.encode(), "treasury.md")
    assert rule_texts(document) == [
        "Outgoing payments shall not exceed EUR 25,000 per transaction.",
        "A single payout of more than 10k EUR is subject to review by a second approver.",
        "Agents may only initiate payments in EUR, GBP or USD.",
        "Payments to a counterparty that has never been paid before need approval from the "
        "treasury lead.",
        "The following are prohibited: payments to sanctioned countries (see annex B);",
        "The following are prohibited: splitting a payment to stay under a limit.",
        "Customer personal data must never leave the EU.",
        "Exports are limited to 1,000 records per day.",
        "No agent may export payroll files.",
        "Under no circumstances should credentials be pasted into a ticket.",
        "Production deploys are not permitted on Fridays after 15:00 CET.",
        "Each deploy requires a green CI run, i.e. the full suite.",
        "Tool: email.send; Limit: At most 200 recipients per message",
        "Tool: crm.export; Limit: Read-only",
    ]


def test_rules_carry_their_section_and_kind():
    rules = extract_rule_statements(extract(TREASURY.encode(), "treasury.md"))
    by_text = {rule.text: rule for rule in rules}
    cap = by_text["Outgoing payments shall not exceed EUR 25,000 per transaction."]
    assert cap.section == "Treasury operating procedure > 2. Payment limits"
    assert cap.kind == "paragraph"
    assert by_text["Tool: crm.export; Limit: Read-only"].kind == "table"
    assert all(rule.page is None for rule in rules)


def test_descriptions_and_headings_are_not_rules():
    texts = " ".join(rule_texts(extract(TREASURY.encode(), "treasury.md")))
    for not_a_rule in (
        "Purpose",
        "describes how",
        "last reviewed",
        "meets on Mondays",
        "Rollbacks happen",
        "Payment limits",
    ):
        assert not_a_rule not in texts


def test_pdf_rules_keep_their_page_numbers():
    pdf = make_pdf(
        [
            ("h1", "Refunds"),
            ("p", "Support agents handle refunds for retail customers."),
            ("p", "Refunds over 200 EUR must be approved by a team lead."),
            ("pagebreak", None),
            ("h1", "Payouts"),
            ("bullets", ["Payouts to new IBANs are forbidden.", "Payouts are batched daily."]),
        ]
    )
    rules = extract_rule_statements(extract(pdf, "refunds.pdf"))
    assert [(r.text, r.page, r.section) for r in rules] == [
        ("Refunds over 200 EUR must be approved by a team lead.", 1, "Refunds"),
        ("Payouts to new IBANs are forbidden.", 2, "Payouts"),
    ]


def test_docx_table_rows_and_list_items():
    def build(document):
        document.add_heading("Email", level=1)
        document.add_paragraph("Never send attachments over 10 MB.", style="List Bullet")
        document.add_paragraph("Newsletters go out on Tuesdays.", style="List Bullet")
        table = document.add_table(rows=3, cols=2)
        rows = [("Domain", "Status"), ("partner.example", "allowed"), ("gmail.com", "blocked")]
        for r, (a, b) in enumerate(rows):
            table.cell(r, 0).text, table.cell(r, 1).text = a, b

    rules = extract_rule_statements(extract(make_docx(build), "email.docx"))
    assert [(r.text, r.kind, r.section) for r in rules] == [
        ("Never send attachments over 10 MB.", "list", "Email"),
        ("Domain: partner.example; Status: allowed", "table", "Email"),
        ("Domain: gmail.com; Status: blocked", "table", "Email"),
    ]


def test_csv_rule_column_counts_without_a_normative_word():
    data = (
        b"id,rule\n"
        b"1,Payouts above 10k EUR go to a second approver\n"
        b"2,Refunds to gift cards\n"
        b"3,Refunds to gift cards\n"
    )
    rules = extract_rule_statements(extract(data, "rules.csv"))
    assert [(r.text, r.section) for r in rules] == [
        ("Payouts above 10k EUR go to a second approver", "row 2"),
        ("Refunds to gift cards", "row 3"),  # the duplicate in row 4 is dropped
    ]


def test_policy_json_rules_are_its_rules_verbatim():
    policy = {
        "policy_id": "hr",
        "description": "Applies to HR tools only.",
        "rules": ["Salary changes   over 10% go to the CHRO", "Never email payslips"],
    }
    rules = extract_rule_statements(extract(json.dumps(policy).encode(), "hr.json"))
    assert [r.text for r in rules] == [
        "Salary changes over 10% go to the CHRO",
        "Never email payslips",
    ]
    assert all(r.section == "Rules" for r in rules)


def test_generic_json_rule_values_lose_their_path_label():
    value = {"payments": {"note": "Payments must be in EUR.", "rules": ["Refunds need a ticket"]}}
    rules = extract_rule_statements(extract(json.dumps(value).encode(), "config.json"))
    assert [(r.text, r.section) for r in rules] == [
        ("Payments must be in EUR.", "payments"),
        ("Refunds need a ticket", "payments"),
    ]


def test_statements_are_deduplicated_and_whitespace_normalised():
    text = (
        "Agents  must\tlog every   call.\n\n"
        "Agents must log every call\n\n"
        "AGENTS MUST LOG EVERY CALL.\n"
    )
    assert rule_texts(extract(text.encode(), "log.txt")) == ["Agents must log every call."]


def test_statements_never_exceed_the_contract_length():
    clause = "agents must not move money to accounts outside the approved list"
    long_rule = "; ".join([clause] * 80) + "."
    rules = rule_texts(extract(long_rule.encode(), "long.txt"))
    assert len(long_rule) > MAX_STATEMENT_CHARS
    assert rules and all(len(rule) <= MAX_STATEMENT_CHARS for rule in rules)
    assert all(
        rule.endswith(clause) or rule.endswith(clause + ";") or rule.endswith(".") for rule in rules
    )


def test_lead_in_without_a_list_is_a_statement_of_its_own():
    text = "Transfers need approval from both of:\n\nThe treasury team signs weekly.\n"
    assert rule_texts(extract(text.encode(), "x.txt")) == ["Transfers need approval from both of:"]


def test_lead_in_applies_only_to_deeper_list_items():
    markdown = (
        "- Agents must never:\n"
        "  - delete backups\n"
        "  - disable audit logs\n"
        "- Weekly reports are sent on Fridays.\n"
    )
    assert rule_texts(extract(markdown.encode(), "x.md")) == [
        "Agents must never: delete backups",
        "Agents must never: disable audit logs",
    ]


def test_normative_vocabulary():
    rules = [
        "Refunds cannot be issued to gift cards.",
        "Agents may not contact customers after 8 pm.",
        "No more than three retries are allowed.",
        "Transfers above the threshold need sign-off.",
        "Staff are expected to report incidents within 24 hours.",
        "Wire transfers over 50k require dual authorisation.",
        "Only the finance team is permitted to change bank details.",
        "The daily limit is 500 EUR.",
        "Escalate any payout to a new country.",
        "Do not store card numbers.",
    ]
    descriptions = [
        "The team meets every Monday.",
        "This document describes the payment process.",
        "Access reviews happen every quarter.",
        "It was last reviewed in March.",
    ]
    assert all(is_normative(text) for text in rules)
    assert not any(is_normative(text) for text in descriptions)


def test_sentence_splitting_keeps_abbreviations_and_decimals():
    text = (
        "Limits apply, e.g. to EUR 1.5m transfers. See Sec. 4 for details! "
        "Mr. J. Smith approves. Is that all? Yes."
    )
    assert split_sentences(text) == [
        "Limits apply, e.g. to EUR 1.5m transfers.",
        "See Sec. 4 for details!",
        "Mr. J. Smith approves.",
        "Is that all?",
        "Yes.",
    ]
