"""Rendering table rows (CSV, DOCX and Markdown tables) as readable, self-contained text.

Each row becomes "column: value; column: value", so a row read alone (in a chunk, a citation
or a rule statement) still says what each value means.
"""

from __future__ import annotations

import re

from ingest.text import normalise_whitespace

RULE_COLUMNS = frozenset(
    {"rule", "rules", "statement", "rule statement", "rule text", "policy rule", "requirement"}
)


def column_names(header: list[str]) -> list[str]:
    """Header cells cleaned, with a name made up for blank ones."""
    return [normalise_whitespace(cell) or f"column {i + 1}" for i, cell in enumerate(header)]


def rule_column(columns: list[str]) -> int | None:
    """The index of the column that holds rule statements, if the header names one."""
    for index, name in enumerate(columns):
        if re.sub(r"[^a-z]+", " ", name.lower()).strip() in RULE_COLUMNS:
            return index
    return None


def render_row(columns: list[str], cells: list[str]) -> str:
    """A row as "column: value; column: value", leaving out empty cells."""
    parts = []
    for index, cell in enumerate(cells):
        value = normalise_whitespace(cell)
        if not value:
            continue
        name = columns[index] if index < len(columns) else f"column {index + 1}"
        parts.append(f"{name}: {value}")
    return "; ".join(parts)


def looks_like_header(row: list[str]) -> bool:
    """A first row whose cells are all short, non-empty labels rather than data."""
    cells = [normalise_whitespace(cell) for cell in row]
    return (
        len(cells) > 1
        and all(cells)
        and all(len(cell) <= 60 for cell in cells)
        and not any(re.fullmatch(r"[\d.,%$€£ -]+", cell) for cell in cells)
    )
