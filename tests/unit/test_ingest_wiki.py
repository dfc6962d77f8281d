"""Wiki pages: the main content only, read as headings, paragraphs, lists and tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest import IngestError, chunk, extract_rule_statements, html_to_document

PAGE = Path(__file__).resolve().parents[1] / "fixtures" / "ingest" / "wiki_vendor_payments.html"
URL = "https://wiki.example.com/Vendor_payments"


@pytest.fixture(scope="module")
def document():
    return html_to_document(PAGE.read_text("utf-8"), URL)


def test_main_content_is_kept_in_order_with_its_headings(document):
    assert document.format == "html"
    assert document.title == "Vendor payments policy"
    assert document.source == URL
    assert [(s.kind, s.heading_path[-1]) for s in document.sections] == [
        ("heading", "Vendor payments policy"),
        ("paragraph", "Vendor payments policy"),
        ("heading", "Limits"),
        ("paragraph", "Limits"),
        ("list", "Limits"),
        ("list", "Limits"),
        ("heading", "Approvals"),
        ("table", "Approvals"),
        ("table", "Approvals"),
    ]
    assert document.sections[8].text == "Amount: above 5,000 EUR; Approver: finance manager"


def test_navigation_scripts_and_footer_are_dropped(document):
    text = document.text
    for chrome in (
        "Recent changes",
        "Random page",
        "Search the wiki",
        "must not appear",
        "CC BY-SA",
        "last edited",
        "[edit]",
        "1 Limits",
    ):
        assert chrome not in text


def test_wiki_rules_and_chunks(document):
    rules = [r.text for r in extract_rule_statements(document)]
    assert "A single vendor payment must not exceed 20,000 EUR." in rules
    assert "Never pay an invoice twice." in rules
    chunks = chunk(document)
    assert [c.section for c in chunks] == [
        "Vendor payments policy",
        "Vendor payments policy > Limits",
        "Vendor payments policy > Approvals",
    ]


def test_page_without_an_article_falls_back_to_its_text():
    html = "<html><body><div>Agents must never share API keys.</div></body></html>"
    document = html_to_document(html, "https://wiki.example.com/Keys")
    assert document.text == "Agents must never share API keys."


@pytest.mark.parametrize("html", ["   ", "<html><body><nav>Home</nav></body></html>"])
def test_page_without_text_is_refused(html):
    with pytest.raises(IngestError) as caught:
        html_to_document(html, "https://wiki.example.com/Empty")
    assert caught.value.code == "empty_document"
