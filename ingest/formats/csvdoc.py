"""CSV (stdlib csv): the first row names the columns; each row becomes one table section
rendered as "column: value; column: value", and a rule/statement column is recognised.
"""

from __future__ import annotations

import csv
import io

from ingest.document import Document, Section
from ingest.errors import IngestError
from ingest.formats.tables import column_names, render_row, rule_column

_DELIMITERS = (",", ";", "\t", "|")


def extract_csv(text: str, name: str, stem: str) -> Document:
    """Extract CSV rows; the delimiter is the one the header row uses most."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    first_line = text.lstrip("\n").split("\n", 1)[0]
    delimiter = max(_DELIMITERS, key=first_line.count)
    if first_line.count(delimiter) == 0:
        delimiter = ","
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error as exc:
        raise IngestError("corrupt_file", f"{name} is not a readable CSV file ({exc}).") from None
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not rows:
        return Document(title=stem, format="csv", sections=())
    columns = column_names(rows[0])
    rule_index = rule_column(columns)
    sections: list[Section] = []
    for number, cells in enumerate(rows[1:], start=2):
        rendered = render_row(columns, cells)
        if not rendered:
            continue
        rule = None
        if rule_index is not None and rule_index < len(cells) and cells[rule_index].strip():
            rule = " ".join(cells[rule_index].split())
        sections.append(Section(rendered, None, None, "table", (), None, f"row {number}", rule))
    return Document(title=stem, format="csv", sections=tuple(sections))
