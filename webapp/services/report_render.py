"""Rendering a report document into its artifacts: canonical JSON, and a PDF with tables and
charts (reportlab, `invariant=1` so that the same document gives the same bytes)."""

from __future__ import annotations

import io
import json
from typing import Any
from xml.sax.saxutils import escape

from reportlab.graphics.charts.barcharts import VerticalBarChart
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.shapes import Drawing, String
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import (
    KeepTogether,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

CONTENT_TYPES = {"json": "application/json", "pdf": "application/pdf"}
PDF_ROWS = 200  # rows per table in the PDF; the JSON lists them all
_APPROVED = colors.HexColor("#2e7d32")
_DENIED = colors.HexColor("#c62828")


def render(document: dict[str, Any], fmt: str) -> bytes:
    """The bytes of one artifact format."""
    if fmt == "json":
        return render_json(document)
    if fmt == "pdf":
        return render_pdf(document)
    raise ValueError(f"unknown format {fmt}")


def render_json(document: dict[str, Any]) -> bytes:
    """Sorted keys, two-space indent, UTF-8: stable bytes for a stable hash."""
    return (json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()


def render_pdf(document: dict[str, Any]) -> bytes:
    buffer = io.BytesIO()
    pdf = SimpleDocTemplate(
        buffer,
        pagesize=A4,
        invariant=1,
        title=f"SOX 404 evidence pack {document['report_id']}",
        author="Clearance Vault",
        leftMargin=15 * mm,
        rightMargin=15 * mm,
        topMargin=15 * mm,
        bottomMargin=15 * mm,
    )
    pdf.build(_story(document))
    return buffer.getvalue()


# --- the story ---------------------------------------------------------------------------------

_styles = getSampleStyleSheet()
_H1, _H2, _BODY = _styles["Title"], _styles["Heading2"], _styles["BodyText"]
_SMALL = _styles["BodyText"].clone("small", fontSize=7.5, leading=9)


def _p(text: Any, style: Any = _BODY) -> Paragraph:
    return Paragraph(escape(str(text)), style)


def _story(doc: dict[str, Any]) -> list[Any]:
    summary = doc["summary"]
    period = doc["period"]
    story: list[Any] = [
        _p("SOX 404 evidence pack", _H1),
        _p(f"Report {doc['report_id']} for tenant {doc['client_id']}"),
        _p(f"Period: {period['start']} to {period['end']} (end excluded)"),
        _p(f"Generated at {doc['generated_at']}"),
        Spacer(1, 4 * mm),
        _p("Summary", _H2),
        _table(
            [["Figure", "Value"]]
            + [
                ["Total decisions", summary["decisions"]],
                ["Approved", summary["approved"]],
                ["Denied", summary["denied"]],
                ["Manual reviews", summary["manual_reviews"]],
                ["Self-approvals", summary["self_approvals"]],
                ["Expired reviews", summary["expired_reviews"]],
                ["Policy changes", summary["policy_changes"]],
                ["Settings changes", summary["settings_changes"]],
                ["Exceptions", summary["exceptions"]],
                ["Ledger intact", "yes" if summary["ledger_intact"] else "NO"],
                ["Tree size", summary["tree_size"]],
            ]
        ),
        _p(f"Root hash: {summary['root_hash'] or '(no checkpoint yet)'}", _SMALL),
        _p("Controls covered", _H2),
        _table(
            [["Control", "Name", "Objective"]]
            + [[c["id"], c["name"], c["objective"]] for c in doc["controls"]],
            small=True,
        ),
    ]
    story += _population(doc["population"])
    story += _reviews(doc["manual_reviews"])
    story += _changes(doc)
    story += _exceptions(doc["exceptions"])
    story += _attestation(doc["attestation"])
    return story


def _table(rows: list[list[Any]], *, small: bool = False, widths: Any = None) -> Table:
    style = _SMALL if small else _BODY
    cells = [
        [_p(cell, style) if isinstance(cell, str) else _p(cell, style) for cell in row]
        for row in rows
    ]
    table = Table(cells, colWidths=widths, repeatRows=1, hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8eaf0")),
                ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#9aa0aa")),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ]
        )
    )
    return table


def _population(population: dict[str, Any]) -> list[Any]:
    parts: list[Any] = [_p("Population: decisions by outcome", _H2)]
    parts.append(_decisions_chart(population["per_day"]))
    parts.append(
        _table(
            [["Day", "Approved", "Denied"]]
            + [[d["day"], d["approved"], d["denied"]] for d in population["per_day"][:PDF_ROWS]]
        )
    )
    parts.append(_p("By reason code", _H2))
    parts.append(
        _table(
            [["Reason code", "Approved", "Denied"]]
            + [
                [code, c["approved"], c["denied"]]
                for code, c in population["by_reason_code"].items()
            ]
        )
    )
    parts.append(_p("Authorised by", _H2))
    parts.append(
        _table(
            [["Authority", "Approved", "Denied"]]
            + [[who, c["approved"], c["denied"]] for who, c in population["by_authority"].items()]
        )
    )
    return parts


def _decisions_chart(per_day: list[dict[str, Any]]) -> Any:
    drawing = Drawing(170 * mm, 70 * mm)
    drawing.add(String(0, 66 * mm, "Decisions per day by outcome", fontSize=9))
    if not per_day:
        drawing.add(String(10, 30 * mm, "No decisions in the period", fontSize=9))
        return drawing
    chart = VerticalBarChart()
    chart.x, chart.y, chart.width, chart.height = 12 * mm, 12 * mm, 150 * mm, 48 * mm
    chart.data = [[d["approved"] for d in per_day], [d["denied"] for d in per_day]]
    chart.categoryAxis.style = "stacked"
    chart.categoryAxis.categoryNames = [d["day"][5:] for d in per_day]
    chart.categoryAxis.labels.fontSize = 6
    chart.categoryAxis.labels.angle = 45 if len(per_day) > 10 else 0
    chart.categoryAxis.labels.boxAnchor = "ne" if len(per_day) > 10 else "n"
    chart.valueAxis.valueMin = 0
    chart.valueAxis.labels.fontSize = 7
    chart.bars[0].fillColor = _APPROVED
    chart.bars[1].fillColor = _DENIED
    drawing.add(chart)
    legend = Legend()
    legend.x, legend.y = 130 * mm, 66 * mm
    legend.fontSize = 7
    legend.colorNamePairs = [(_APPROVED, "approved"), (_DENIED, "denied")]
    drawing.add(legend)
    return drawing


def _durations_chart(histogram: list[dict[str, Any]]) -> Any:
    drawing = Drawing(170 * mm, 55 * mm)
    drawing.add(String(0, 51 * mm, "How long reviews took", fontSize=9))
    chart = VerticalBarChart()
    chart.x, chart.y, chart.width, chart.height = 12 * mm, 8 * mm, 150 * mm, 38 * mm
    chart.data = [[item["count"] for item in histogram]]
    chart.categoryAxis.categoryNames = [item["bucket"] for item in histogram]
    chart.categoryAxis.labels.fontSize = 7
    chart.valueAxis.valueMin = 0
    chart.valueAxis.labels.fontSize = 7
    chart.bars[0].fillColor = colors.HexColor("#3949ab")
    drawing.add(chart)
    return drawing


def _reviews(reviews: dict[str, Any]) -> list[Any]:
    durations = reviews["duration_seconds"]
    parts: list[Any] = [
        _p("Manual reviews", _H2),
        _p(
            f"Reviews: {reviews['count']}; approved {reviews['approved']}, denied "
            f"{reviews['denied']}, expired {reviews['expired']}, self-approvals "
            f"{reviews['self_approvals']}. Time taken (s): min {durations['min']}, median "
            f"{durations['median']}, max {durations['max']}."
        ),
        _durations_chart(reviews["duration_histogram"]),
    ]
    rows = [["Request", "Outcome", "Reviewer", "Decided at", "Seconds", "Flags", "Reason"]]
    for item in reviews["items"][:PDF_ROWS]:
        flags = ", ".join(
            name
            for name, on in (("SELF-APPROVAL", item["self_approval"]), ("expired", item["expired"]))
            if on
        )
        rows.append(
            [
                item["request_id"],
                item["outcome"],
                item["reviewer_email"] or "-",
                item["decided_at"],
                item["duration_seconds"],
                flags or "-",
                item["review_reason"][:160],
            ]
        )
    parts.append(_table(rows, small=True))
    if len(reviews["items"]) > PDF_ROWS or reviews["truncated"]:
        parts.append(_p("The JSON artifact lists every review.", _SMALL))
    return parts


def _changes(doc: dict[str, Any]) -> list[Any]:
    policy = doc["policy_changes"]
    parts: list[Any] = [_p(f"Policy changes ({policy['count']})", _H2)]
    parts.append(
        _table(
            [["Policy", "Version", "Change", "Content hash", "Who", "When"]]
            + [
                [
                    i["policy_id"],
                    i["version"] if i["version"] is not None else "-",
                    i["change"],
                    i["content_hash"],
                    i["actor"],
                    i["accepted_at"],
                ]
                for i in policy["items"][:PDF_ROWS]
            ],
            small=True,
        )
    )
    settings = doc["settings_changes"]
    parts.append(_p(f"Settings changes ({settings['count']})", _H2))
    parts.append(
        _table(
            [["Settings", "Who", "When", "Changes"]]
            + [
                [
                    i["settings"],
                    i["actor"],
                    i["accepted_at"],
                    json.dumps(i["changes"], sort_keys=True)[:200],
                ]
                for i in settings["items"][:PDF_ROWS]
            ],
            small=True,
        )
    )
    lockdowns = doc["lockdowns"]
    parts.append(_p(f"Lockdowns and releases ({lockdowns['count']})", _H2))
    parts.append(
        _table(
            [["Action", "Agent", "Who", "When", "Reason"]]
            + [
                [i["action"], i["agent_id"], i["actor"], i["accepted_at"], i["reason"][:160]]
                for i in lockdowns["items"][:PDF_ROWS]
            ],
            small=True,
        )
    )
    access = doc["access"]
    parts.append(_p(f"Users and API keys ({access['count']})", _H2))
    parts.append(
        _table(
            [["When", "Change", "Subject"]]
            + [[i["at"], i["kind"], i["subject"]] for i in access["items"][:PDF_ROWS]],
            small=True,
        )
    )
    return parts


def _exceptions(exceptions: dict[str, Any]) -> list[Any]:
    return [
        _p("Exceptions", _H2),
        _table(
            [["Exception", "Count"]]
            + [
                ["judge_unavailable outcomes", exceptions["judge_unavailable"]],
                ["Expired reviews", exceptions["expired_reviews"]],
                ["Approved tokens never consumed", exceptions["unconsumed_approvals"]],
                ["args_mismatch burns", exceptions["args_mismatch_burns"]],
                ["Total exceptions", exceptions["total"]],
            ]
        ),
    ]


def _attestation(att: dict[str, Any]) -> list[Any]:
    verification = att["verification"]
    sample = att["sample"]
    parts: list[Any] = [
        _p("Ledger attestation", _H2),
        _p(f"Verification result: {'INTACT' if verification['intact'] else 'NOT INTACT'}"),
        _p(f"Tree size: {att['tree_size']}"),
        _p(f"Root hash: {att['root_hash'] or '-'}", _SMALL),
        _p(f"Method: {verification['method']}", _SMALL),
    ]
    for error in verification["errors"][:20]:
        parts.append(_p(f"Problem: {error}", _SMALL))
    parts.append(
        _table(
            [["Checkpoint", "Tree size", "Signed at", "Root hash", "Signature (Ed25519)", "OK"]]
            + [
                [
                    c["checkpoint_id"],
                    c["tree_size"],
                    c["signed_at"],
                    c["root_hash"],
                    c["checkpoint_signature"],
                    "yes" if c["verified"] else "NO",
                ]
                for c in att["checkpoints"][:PDF_ROWS]
            ],
            small=True,
            widths=[18 * mm, 16 * mm, 30 * mm, 45 * mm, 53 * mm, 10 * mm],
        )
    )
    parts.append(_p(f"Sample seed: {sample['seed']} ({sample['size']} events)"))
    parts.append(_p(f"Drawing rule: {sample['algorithm']}", _SMALL))
    parts.append(
        KeepTogether(
            _table(
                [["Leaf", "Event", "Category", "Leaf hash", "Proof"]]
                + [
                    [
                        e["leaf_index"],
                        e["event_uuid"],
                        e["action_category"],
                        e["leaf_hash"],
                        "verified" if e["verified"] else "FAILED",
                    ]
                    for e in sample["events"]
                ],
                small=True,
                widths=[14 * mm, 50 * mm, 28 * mm, 66 * mm, 14 * mm],
            )
        )
    )
    return parts
