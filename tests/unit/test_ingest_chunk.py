"""Chunking: size bounds, whole rule statements, heading paths and page provenance."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest import Document, Section, chunk, extract, extract_rule_statements
from ingest.text import normalise_whitespace
from tests.fixtures.ingest.samples import make_pdf

WORDS = [
    "payment",
    "refund",
    "agent",
    "invoice",
    "vendor",
    "export",
    "region",
    "deploy",
    "ticket",
    "finance",
    "customer",
    "report",
    "weekly",
    "EUR",
    "500",
    "approved",
]
NORMATIVE = ["must not", "shall", "never", "may only", "requires approval for", "at most"]


@st.composite
def sentences(draw) -> str:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=60))
    if draw(st.booleans()):
        words.insert(draw(st.integers(0, len(words))), draw(st.sampled_from(NORMATIVE)))
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


@st.composite
def documents(draw) -> Document:
    sections: list[Section] = []
    path: tuple[str, ...] = ()
    page = 1
    for index in range(draw(st.integers(1, 25))):
        kind = draw(st.sampled_from(["heading", "paragraph", "paragraph", "list", "table"]))
        page += draw(st.integers(0, 1))
        if kind == "heading":
            level = draw(st.integers(1, 3))
            path = path[: level - 1] + (f"Heading {index}",)
            sections.append(Section(path[-1], path[-1], page, "heading", path, level))
            continue
        count = 1 if kind != "paragraph" else draw(st.integers(1, 8))
        text = " ".join(draw(sentences()) for _ in range(count))
        sections.append(Section(text, path[-1] if path else None, page, kind, path))
    return Document(title="t", format="pdf", sections=tuple(sections))


@settings(max_examples=100, deadline=None)
@given(documents(), st.sampled_from([200, 350, 800, 1200]))
def test_chunk_invariants(document, max_chars):
    chunks = chunk(document, max_chars=max_chars)
    rules = extract_rule_statements(document)
    texts = [normalise_whitespace(c.text) for c in chunks]

    # Every rule statement lies whole inside one chunk.
    for rule in rules:
        assert any(rule.text in text for text in texts), rule.text
    # A chunk is within bounds unless it is a single statement too long to share.
    for c in chunks:
        if len(c.text) > max_chars:
            assert "\n" not in c.text and c.text.count(". ") == 0, c.text
    # Nothing is lost or reordered.
    assert normalise_whitespace(" ".join(texts)) == normalise_whitespace(
        " ".join(s.text for s in document.sections)
    )
    # Provenance: ordinals in order, pages coherent, one heading path per chunk.
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert c.page is not None and c.page <= c.page_end
        assert c.section == (" > ".join(c.heading_path) if c.heading_path else None)


def test_chunks_carry_heading_paths_and_pages():
    pdf = make_pdf(
        [
            ("h1", "1. Payments"),
            ("h2", "1.1 Refunds"),
            ("p", "Refunds above 500 EUR require approval by a finance manager."),
            ("pagebreak", None),
            ("h2", "1.2 Payouts"),
            ("p", "Payouts must not exceed 10,000 EUR per day."),
        ]
    )
    chunks = chunk(extract(pdf, "p.pdf"))
    assert [(c.text, c.heading_path, c.page, c.section) for c in chunks] == [
        (
            "1. Payments\n1.1 Refunds\nRefunds above 500 EUR require approval by a finance "
            "manager.",
            ("1. Payments", "1.1 Refunds"),
            1,
            "1. Payments > 1.1 Refunds",
        ),
        (
            "1.2 Payouts\nPayouts must not exceed 10,000 EUR per day.",
            ("1. Payments", "1.2 Payouts"),
            2,
            "1. Payments > 1.2 Payouts",
        ),
    ]
    assert chunks[1].chunk_id_suffix == "00001"
    assert chunks[1].indexable_text.startswith("1. Payments\n1.2 Payouts\nPayouts must")


def test_long_rule_sentence_stays_whole_and_long_prose_is_wrapped():
    rule = "Agents must not " + "pay vendors in sanctioned countries " * 15 + "ever."
    prose = "Background " + "material about the treasury team " * 15 + "here."
    document = Document("t", "txt", (Section(f"{prose} {rule}", None, None, "paragraph"),))
    chunks = chunk(document, max_chars=200)
    assert any(c.text == rule for c in chunks)
    assert len(rule) > 200
    assert all(len(c.text) <= 200 for c in chunks if c.text != rule)


def test_csv_chunks_cite_their_row_range():
    rows = "".join(f"R{i},Payments over {i}00 EUR need approval\n" for i in range(1, 30))
    chunks = chunk(extract(("id,rule\n" + rows).encode(), "r.csv"), max_chars=300)
    assert chunks[0].section == "row 2 to row 7"
    assert all(c.page is None for c in chunks)
    assert sum(c.text.count("id: R") for c in chunks) == 29


def test_table_rows_and_list_items_are_never_cut():
    item = "Agents may only pay " + "approved vendor " * 20 + "invoices."
    sections = tuple(Section(item, None, None, "list") for _ in range(5))
    chunks = chunk(Document("t", "txt", sections), max_chars=400)
    assert all(c.text.split("\n") == [item] * len(c.text.split("\n")) for c in chunks)


def test_max_chars_has_a_floor():
    with pytest.raises(ValueError):
        chunk(Document("t", "txt", (Section("x", None, None, "paragraph"),)), max_chars=10)
