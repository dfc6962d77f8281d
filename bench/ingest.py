"""Benchmark of ingestion: a 200-page PDF policy extracted, chunked, mined for rules and
embedded (not a test). Target from issue 4: under 30 s in all.

Run: .venv/bin/python bench/ingest.py [--pages 200] [--model hashing-v1] [--keep]

The PDF is generated with reportlab (headings, wrapped prose, bullet lists and tables on
every page, so every extraction path is exercised), then each stage is timed on its own.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from reportlab.lib.pagesizes import A4  # noqa: E402
from reportlab.lib.styles import getSampleStyleSheet  # noqa: E402
from reportlab.platypus import (  # noqa: E402
    ListFlowable,
    ListItem,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Table,
)

from ingest import chunk, extract, extract_rule_statements, get_embedder  # noqa: E402

TARGET_SECONDS = 30.0
TOPICS = [
    "payments",
    "refunds",
    "payouts",
    "cloud changes",
    "data exports",
    "email",
    "hiring",
    "deploys",
    "vendor onboarding",
    "expense claims",
]
RULES = [
    "{Topic} above {n},000 EUR must be approved by the {role} before they are executed.",
    "Agents shall never initiate {topic} to counterparties on the sanctions list.",
    "No more than {k} {topic} may be made by one agent in any hour.",
    "{Topic} to a counterparty that has not been paid before require review by the {role}.",
    "Only the {role} may change the limits that apply to {topic}.",
    "{Topic} outside business hours are prohibited unless the on-call {role} agrees in writing.",
]
PROSE = [
    "This section explains how automated agents handle {topic} on behalf of the company and "
    "which controls the {role} relies on when reviewing them.",
    "The controls below were agreed with internal audit after the review of last year's "
    "incidents, and they are read together with the group treasury standard.",
    "Records of {topic} are kept for seven years in the archive, together with the ticket "
    "that requested them and the identity of the agent that performed them.",
    "Questions about the interpretation of this section go to the {role}, who maintains it "
    "and publishes changes in the monthly compliance bulletin.",
]
ROLES = ["finance manager", "treasury lead", "head of compliance", "platform owner", "CFO"]


def build_policy_pdf(pages: int, seed: int = 4) -> bytes:
    """A realistic policy of exactly `pages` pages: one numbered section per page."""
    rng = random.Random(seed)
    styles = getSampleStyleSheet()
    story: list[object] = [
        Paragraph("Group operations policy for automated agents", styles["Title"])
    ]
    for page in range(1, pages + 1):
        topic = TOPICS[page % len(TOPICS)]
        fill = {
            "topic": topic,
            "Topic": topic.capitalize(),
            "role": rng.choice(ROLES),
            "n": rng.randint(1, 50),
            "k": rng.randint(2, 20),
        }
        story.append(
            Paragraph(f"{page}. {topic.capitalize()} controls ({page})", styles["Heading1"])
        )
        for _ in range(4):
            text = " ".join(rng.choice(PROSE).format(**fill) for _ in range(3))
            story.append(Paragraph(text, styles["BodyText"]))
        story.append(Paragraph(f"{page}.1 Rules", styles["Heading2"]))
        story.append(Paragraph(rng.choice(RULES).format(**fill), styles["BodyText"]))
        items = [
            ListItem(Paragraph(rng.choice(RULES).format(**fill), styles["BodyText"]))
            for _ in range(3)
        ]
        story.append(ListFlowable(items, bulletType="bullet"))
        story.append(
            Table(
                [
                    ["Tool", "Limit"],
                    [f"{topic.replace(' ', '_')}.run", f"at most {fill['k']} calls per hour"],
                ]
            )
        )
        story.append(PageBreak())
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer, pagesize=A4, invariant=1).build(story[:-1])
    return buffer.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--model", default="hashing-v1")
    parser.add_argument("--keep", action="store_true", help="write the PDF to bench/out/")
    args = parser.parse_args()

    started = time.perf_counter()
    pdf = build_policy_pdf(args.pages)
    generated = time.perf_counter() - started
    if args.keep:
        out = ROOT / "bench" / "out"
        out.mkdir(parents=True, exist_ok=True)
        (out / f"policy-{args.pages}p.pdf").write_bytes(pdf)

    timings: dict[str, float] = {}
    clock = time.perf_counter()
    document = extract(pdf, "policy.pdf", "application/pdf")
    timings["extract"] = time.perf_counter() - clock
    clock = time.perf_counter()
    chunks = chunk(document)
    timings["chunk"] = time.perf_counter() - clock
    clock = time.perf_counter()
    rules = extract_rule_statements(document)
    timings["rules"] = time.perf_counter() - clock
    clock = time.perf_counter()
    embedder = get_embedder(args.model)
    vectors = embedder.embed([c.indexable_text for c in chunks])
    timings[f"embed ({embedder.name})"] = time.perf_counter() - clock
    total = sum(timings.values())

    print(
        f"input: {document.page_count} pages, {len(pdf) / 1024:.0f} KiB "
        f"(generated in {generated:.1f} s, not counted)"
    )
    headings = sum(1 for section in document.sections if section.kind == "heading")
    pages_with_text = len({section.page for section in document.sections})
    print(
        f"text: {len(document.text):,} chars, {headings} headings, "
        f"text found on {pages_with_text} pages"
    )
    print(
        f"output: {len(document.sections)} sections, {len(chunks)} chunks "
        f"(mean {sum(len(c.text) for c in chunks) / max(len(chunks), 1):.0f} chars), "
        f"{len(rules)} rule statements, vectors {vectors.shape}"
    )
    for stage, seconds in timings.items():
        print(f"  {stage:<28} {seconds:7.2f} s")
    verdict = "ok" if total < TARGET_SECONDS else "OVER TARGET"
    print(f"  {'total':<28} {total:7.2f} s   (target < {TARGET_SECONDS:.0f} s: {verdict})")
    return 0 if total < TARGET_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
