"""Extraction of every supported format, with the provenance citations need."""

from __future__ import annotations

import json

import pytest

from ingest import extract
from ingest.detect import detect_format
from tests.fixtures.ingest.samples import encrypt_pdf, make_docx, make_pdf

LOREM = (
    "This policy applies to every payment that an automated agent initiates on behalf of the "
    "company, including refunds, payouts and vendor invoices. "
)


def texts(document, kind=None):
    return [s.text for s in document.sections if kind is None or s.kind == kind]


# --- PDF -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def payments_pdf() -> bytes:
    return make_pdf(
        [
            ("title", "Payments Policy"),
            ("h1", "1. Scope"),
            ("p", LOREM * 3),
            ("h1", "2. Limits"),
            ("h2", "2.1 Transfers"),
            (
                "p",
                "Payments must not exceed 5,000 EUR per transaction. Refunds above 500 EUR "
                "require approval by a finance manager.",
            ),
            (
                "bullets",
                [
                    "Never pay invoices from vendors that are not on the approved list.",
                    "Wire transfers to sanctioned countries are prohibited.",
                ],
            ),
            ("pagebreak", None),
            ("h1", "3. Data export"),
            ("p", "Customer data may only be exported to storage in EU regions."),
        ],
        title="Payments policy v3",
    )


def test_pdf_sections_carry_page_numbers_and_heading_paths(payments_pdf):
    document = extract(payments_pdf, "payments.pdf", "application/pdf")

    assert document.format == "pdf"
    assert document.title == "Payments policy v3"
    assert document.page_count == 2
    assert texts(document, "heading") == [
        "Payments Policy",
        "1. Scope",
        "2. Limits",
        "2.1 Transfers",
        "3. Data export",
    ]
    by_text = {s.text: s for s in document.sections}
    cap = next(s for s in document.sections if s.text.startswith("Payments must not exceed"))
    assert cap.page == 1
    assert cap.kind == "paragraph"
    assert cap.heading_path == ("2. Limits", "2.1 Transfers")
    assert cap.heading == "2.1 Transfers"
    # A sentence wrapped over two lines comes back as one.
    assert "Refunds above 500 EUR require approval by a finance manager." in cap.text
    bullet = by_text["Never pay invoices from vendors that are not on the approved list."]
    assert bullet.kind == "list"
    assert bullet.page == 1
    export = by_text["Customer data may only be exported to storage in EU regions."]
    assert export.page == 2
    assert export.heading_path == ("3. Data export",)


def test_pdf_is_detected_by_its_bytes_whatever_its_name(payments_pdf):
    assert detect_format(payments_pdf, "policy.txt", "text/plain") == "pdf"
    document = extract(payments_pdf, "policy.txt", "text/plain")
    assert document.format == "pdf"


def test_pdf_with_only_an_owner_password_opens_like_in_any_viewer(payments_pdf):
    restricted = encrypt_pdf(payments_pdf, user_password="")
    document = extract(restricted, "restricted.pdf")
    assert "Wire transfers to sanctioned countries are prohibited." in texts(document)


def test_pdf_running_headers_and_page_numbers_are_dropped():
    topics = ["payments", "refunds", "payouts", "exports"]
    blocks = []
    for number, topic in enumerate(topics, start=1):
        blocks += [
            ("p", "ACME Corp - Internal"),
            ("h1", f"Part {number}: {topic}"),
            ("p", f"Agents must log every change to {topic} they make."),
            ("p", f"Page {number} of 4"),
            ("pagebreak", None),
        ]
    document = extract(make_pdf(blocks), "handbook.pdf")
    joined = document.text
    assert "ACME Corp" not in joined
    assert "of 4" not in joined
    assert texts(document, "heading") == [f"Part {n}: {t}" for n, t in enumerate(topics, 1)]
    assert [s.page for s in document.sections if s.text.startswith("Agents must log")] == [
        1,
        2,
        3,
        4,
    ]


def test_pdf_sentence_broken_by_a_page_break_is_joined():
    long_sentence = "Agents must obtain written approval " + "from the head of treasury " * 40
    blocks = [("p", LOREM * 6) for _ in range(5)] + [
        ("p", long_sentence.strip() + " before paying.")
    ]
    document = extract(make_pdf(blocks), "long.pdf")
    assert document.page_count == 2
    joined = [s for s in document.sections if s.text.startswith("Agents must obtain")]
    assert len(joined) == 1
    assert joined[0].text.endswith("before paying.")
    assert joined[0].page == 1


# --- DOCX ------------------------------------------------------------------------------------


def _policy_docx(document) -> None:
    document.core_properties.title = "Cloud administration standard"
    document.add_heading("Cloud administration", level=1)
    document.add_paragraph("This standard covers every change made by automation.")
    document.add_heading("Production", level=2)
    document.add_paragraph("Deploys to production must not happen on Fridays.")
    document.add_paragraph("Deleting a database requires two approvers.", style="List Bullet")
    document.add_paragraph("Only the platform team may rotate root keys.", style="List Number")
    table = document.add_table(rows=3, cols=3)
    for row, cells in enumerate(
        [
            ("Environment", "Rule", "Owner"),
            ("production", "Changes need approval from the change board.", "SRE"),
            ("staging", "No more than 5 deploys per hour.", "Platform"),
        ]
    ):
        for column, value in enumerate(cells):
            table.cell(row, column).text = value
    document.add_heading("Access", level=2)
    document.add_paragraph("Access reviews happen every quarter.")


def test_docx_headings_paragraphs_lists_and_tables_in_document_order():
    document = extract(make_docx(_policy_docx), "cloud.docx")

    assert document.format == "docx"
    assert document.title == "Cloud administration standard"
    assert [(s.kind, s.text) for s in document.sections] == [
        ("heading", "Cloud administration"),
        ("paragraph", "This standard covers every change made by automation."),
        ("heading", "Production"),
        ("paragraph", "Deploys to production must not happen on Fridays."),
        ("list", "Deleting a database requires two approvers."),
        ("list", "Only the platform team may rotate root keys."),
        (
            "table",
            "Environment: production; Rule: Changes need approval from the change board.; "
            "Owner: SRE",
        ),
        ("table", "Environment: staging; Rule: No more than 5 deploys per hour.; Owner: Platform"),
        ("heading", "Access"),
        ("paragraph", "Access reviews happen every quarter."),
    ]
    row = document.sections[6]
    assert row.heading_path == ("Cloud administration", "Production")
    assert row.locator == "table 1, row 2"
    assert row.declared_rule == "Changes need approval from the change board."
    assert document.sections[9].heading_path == ("Cloud administration", "Access")
    assert all(s.page is None for s in document.sections)


def test_docx_merged_table_cells_are_read_once():
    def build(document):
        table = document.add_table(rows=2, cols=3)
        table.cell(0, 0).text = "Tool"
        table.cell(0, 1).text = "Limit"
        table.cell(0, 2).text = "Notes"
        merged = table.cell(1, 1).merge(table.cell(1, 2))
        table.cell(1, 0).text = "payments.send"
        merged.text = "At most 200 EUR per call"

    document = extract(make_docx(build), "merged.docx")
    assert texts(document) == ["Tool: payments.send; Limit: At most 200 EUR per call"]


# --- TXT and Markdown ------------------------------------------------------------------------


def test_plain_text_paragraphs_bullets_and_headings():
    text = (
        "EXPENSE POLICY\n\n"
        "1. Scope\n"
        "This policy covers travel and\n"
        "meal expenses claimed by staff.\n\n"
        "Rules\n"
        "=====\n"
        "- Meals above 80 EUR need a receipt.\n"
        "- Alcohol is never reimbursed.\n"
        "Claims must be filed within 30 days\n"
        "Late claims are rejected\n"
    )
    document = extract(text.encode(), "expenses.txt")
    assert document.format == "txt"
    assert [(s.kind, s.text) for s in document.sections] == [
        ("heading", "EXPENSE POLICY"),
        ("heading", "1. Scope"),
        ("paragraph", "This policy covers travel and meal expenses claimed by staff."),
        ("heading", "Rules"),
        ("list", "Meals above 80 EUR need a receipt."),
        ("list", "Alcohol is never reimbursed."),
        # One rule per line, without full stops: the lines stay apart.
        ("paragraph", "Claims must be filed within 30 days"),
        ("paragraph", "Late claims are rejected"),
    ]
    assert document.sections[2].heading_path == ("EXPENSE POLICY", "1. Scope")


def test_markdown_sections_by_heading_with_lists_tables_and_front_matter():
    text = """---
title: Data handling
---
# Data handling

Intro with **bold** text and a [link](https://example.com/x).

## Exports

* Exports of customer data *must* be encrypted.
* Only these regions are allowed:
  * eu-west-1
  * eu-central-1

| Dataset | Rule |
|---|---|
| payroll | Never export payroll data. |

```
code stays as it is
```

## Retention
Logs are kept for 90 days.
"""
    document = extract(text.encode(), "data.md", "text/markdown")
    assert document.format == "markdown"
    assert document.title == "Data handling"
    assert [(s.kind, s.text, s.level) for s in document.sections] == [
        ("heading", "Data handling", 1),
        ("paragraph", "Intro with bold text and a link.", None),
        ("heading", "Exports", 2),
        ("list", "Exports of customer data must be encrypted.", 1),
        ("list", "Only these regions are allowed:", 1),
        ("list", "eu-west-1", 2),
        ("list", "eu-central-1", 2),
        ("table", "Dataset: payroll; Rule: Never export payroll data.", None),
        ("paragraph", "code stays as it is", None),
        ("heading", "Retention", 2),
        ("paragraph", "Logs are kept for 90 days.", None),
    ]
    assert document.sections[7].declared_rule == "Never export payroll data."
    assert document.sections[10].heading_path == ("Data handling", "Retention")


def test_markdown_is_recognised_without_an_extension():
    assert detect_format(b"# Title\n\nSome text.\n", "upload", None) == "markdown"
    assert detect_format(b"Just a sentence.\n", "upload", None) == "txt"


# --- JSON ------------------------------------------------------------------------------------


def test_policy_json_is_recognised_and_returned_with_its_rules():
    policy = {
        "policy_id": "payments-eu",
        "description": "Applies to EMEA payouts only.",
        "rules": ["Payouts above 10k EUR go to a reviewer", "Never pay to a new IBAN"],
        "tools": ["payments.*"],
    }
    document = extract(json.dumps(policy).encode(), "policy.json")
    assert document.format == "json"
    assert document.policy is not None
    assert document.policy.policy_id == "payments-eu"
    assert document.policy.rules == tuple(policy["rules"])
    assert document.policy.tools == ("payments.*",)
    assert document.title == "payments-eu"
    rules = [s for s in document.sections if s.declared_rule]
    assert [s.text for s in rules] == policy["rules"]
    assert [s.locator for s in rules] == ["rules[0]", "rules[1]"]


def test_other_json_is_flattened_to_path_value_lines():
    value = {
        "limits": {"max_amount": 500, "currency": "EUR", "enabled": True},
        "owners": ["a", "b"],
    }
    document = extract(json.dumps(value).encode(), "settings.json")
    assert document.policy is None
    assert texts(document) == [
        "limits.max_amount: 500",
        "limits.currency: EUR",
        "limits.enabled: true",
        "owners[0]: a",
        "owners[1]: b",
    ]
    assert document.sections[0].heading_path == ("limits",)


def test_json_is_sniffed_when_the_name_says_nothing():
    assert detect_format(b'  {"a": 1}', "download", None) == "json"


def test_invalid_policy_json_says_what_is_wrong():
    from ingest import IngestError

    bad = {"policy_id": "p", "rules": ["ok", 42]}
    with pytest.raises(IngestError) as caught:
        extract(json.dumps(bad).encode(), "p.json")
    assert caught.value.code == "invalid_policy"
    assert "rule 2" in caught.value.message


# --- CSV -------------------------------------------------------------------------------------


def test_csv_rows_are_rendered_with_their_column_names_and_rule_column():
    data = (
        b"id,category,rule,owner\r\n"
        b"R1,payments,Payments above 1000 EUR need approval,finance\r\n"
        b'R2,email,"Never email customer lists, not even internally",\r\n'
        b"\r\n"
        b"R3,deploys,,sre\r\n"
    )
    document = extract(data, "rules.csv", "text/csv")
    assert document.format == "csv"
    assert [(s.text, s.locator, s.declared_rule) for s in document.sections] == [
        (
            "id: R1; category: payments; rule: Payments above 1000 EUR need approval; "
            "owner: finance",
            "row 2",
            "Payments above 1000 EUR need approval",
        ),
        (
            "id: R2; category: email; rule: Never email customer lists, not even internally",
            "row 3",
            "Never email customer lists, not even internally",
        ),
        ("id: R3; category: deploys; owner: sre", "row 4", None),
    ]
    assert all(s.kind == "table" for s in document.sections)


def test_csv_with_utf8_bom_and_semicolons():
    data = "\ufeffStatement;Scope\nRefunds must not exceed 50 EUR;support\n".encode()
    document = extract(data, "refunds.csv")
    assert texts(document) == ["Statement: Refunds must not exceed 50 EUR; Scope: support"]
    assert document.sections[0].declared_rule == "Refunds must not exceed 50 EUR"


# --- HTML ------------------------------------------------------------------------------------


def test_html_upload_is_read_as_a_wiki_page():
    html = (
        "<!DOCTYPE html><html><head><title>Travel policy - Wiki</title></head><body>"
        "<nav><a href='/'>Home</a> <a href='/x'>Recent changes</a></nav>"
        "<div id='content'><h1>Travel policy</h1>"
        + "<p>Employees must book economy class for flights under six hours. "
        * 5
        + "</p><ul><li>Hotels may not exceed 180 EUR per night.</li></ul></div>"
        "<footer>Powered by WikiSoft</footer></body></html>"
    )
    document = extract(html.encode(), "travel.html", "text/html")
    assert document.format == "html"
    joined = document.text
    assert "Hotels may not exceed 180 EUR per night." in joined
    assert "Recent changes" not in joined
    assert "Powered by" not in joined
