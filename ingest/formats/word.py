"""DOCX (python-docx): headings from paragraph styles, paragraphs, list items and tables, in
document order. The zip directory is checked for bombs before anything is decompressed.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib

import docx
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree

from ingest.document import Document, Section
from ingest.errors import IngestError
from ingest.formats.tables import column_names, looks_like_header, render_row, rule_column
from ingest.text import clean_text, normalise_whitespace

MAX_UNCOMPRESSED_BYTES = 100 * 1024 * 1024
MAX_COMPRESSION_RATIO = 100
MAX_ENTRIES = 10_000
# Small parts compress extremely well (runs of identical XML); only large ones can be bombs.
_RATIO_FLOOR_BYTES = 1024 * 1024
_HEADING_STYLE = re.compile(r"^heading\s*(\d)$", re.I)


def check_zip_bomb(data: bytes, name: str) -> None:
    """Refuse an archive whose directory promises too much data, before decompressing any."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise IngestError("corrupt_file", f"{name} is a damaged Word document ({exc}).") from None
    total = sum(entry.file_size for entry in entries)
    packed = sum(entry.compress_size for entry in entries)
    refusal = (
        f"{name} expands to far more data than a document holds (a zip bomb); it was not opened."
    )
    if len(entries) > MAX_ENTRIES or total > MAX_UNCOMPRESSED_BYTES:
        raise IngestError("zip_bomb", refusal)
    for entry in entries:
        if entry.file_size > _RATIO_FLOOR_BYTES and entry.file_size > MAX_COMPRESSION_RATIO * max(
            entry.compress_size, 1
        ):
            raise IngestError("zip_bomb", refusal)
    if total > _RATIO_FLOOR_BYTES and total > MAX_COMPRESSION_RATIO * max(packed, 1):
        raise IngestError("zip_bomb", refusal)


def extract_docx(data: bytes, name: str, stem: str) -> Document:
    """Extract a DOCX into sections: styled headings, paragraphs, list items, table rows."""
    check_zip_bomb(data, name)
    try:
        document = docx.Document(io.BytesIO(data))
        sections = list(_sections(document))
        title = normalise_whitespace(document.core_properties.title or "")
    except IngestError:
        raise
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        KeyError,
        ValueError,
        TypeError,
        AttributeError,
        IndexError,
        etree.LxmlError,
        NotImplementedError,
        OSError,
        RecursionError,
    ) as exc:
        raise IngestError(
            "corrupt_file", f"{name} is a damaged Word document and cannot be read ({exc})."
        ) from None
    if not title:
        title = next((s.text for s in sections if s.kind == "heading"), stem)
    return Document(title=title[:300], format="docx", sections=tuple(sections))


def _sections(document) -> list[Section]:
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []

    def path() -> tuple[str, ...]:
        return tuple(text for _, text in stack)

    tables = 0
    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            text = normalise_whitespace(clean_text(block.text))
            if not text:
                continue
            level = _heading_level(block)
            if level is not None:
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, text))
                sections.append(Section(text, text, None, "heading", path(), level))
            else:
                kind = "list" if _is_list_item(block) else "paragraph"
                current = path()
                level_in_list = _list_depth(block) if kind == "list" else None
                sections.append(
                    Section(
                        text, current[-1] if current else None, None, kind, current, level_in_list
                    )
                )
        elif isinstance(block, Table):
            current = path()
            tables += 1
            for row_text, locator, rule in _table_rows(block, tables):
                sections.append(
                    Section(
                        row_text,
                        current[-1] if current else None,
                        None,
                        "table",
                        current,
                        None,
                        locator,
                        rule,
                    )
                )
    return sections


def _heading_level(paragraph: Paragraph) -> int | None:
    style = paragraph.style
    for _ in range(4):  # custom styles based on a heading style are headings too
        if style is None:
            break
        style_name = (style.name or "").strip()
        if style_name.lower() == "title":
            return 0
        match = _HEADING_STYLE.match(style_name)
        if match:
            return int(match.group(1))
        style = style.base_style
    ppr = paragraph._p.pPr
    outline = ppr.find(qn("w:outlineLvl")) if ppr is not None else None
    if outline is not None:
        value = outline.get(qn("w:val"))
        if value is not None and value.isdigit() and int(value) < 9:
            return int(value) + 1
    return None


def _is_list_item(paragraph: Paragraph) -> bool:
    ppr = paragraph._p.pPr
    if ppr is not None and ppr.numPr is not None:
        return True
    name = (paragraph.style.name or "").lower() if paragraph.style is not None else ""
    return name.startswith("list")


def _list_depth(paragraph: Paragraph) -> int:
    ppr = paragraph._p.pPr
    if ppr is not None and ppr.numPr is not None and ppr.numPr.ilvl is not None:
        return int(ppr.numPr.ilvl.val) + 1
    match = re.search(r"(\d)$", paragraph.style.name or "") if paragraph.style else None
    return int(match.group(1)) if match else 1


def _cell_text(cell) -> str:
    parts = [paragraph.text for paragraph in cell.paragraphs]
    for nested in cell.tables:
        for row in nested.rows:
            parts.append(" ".join(_cell_text(inner) for inner in _unique_cells(row)))
    return normalise_whitespace(clean_text(" ".join(parts)))


def _unique_cells(row) -> list:
    """A row's cells, once each: python-docx repeats a merged cell for every grid column."""
    seen: set[int] = set()
    cells = []
    for cell in row.cells:
        if id(cell._tc) in seen:
            continue
        seen.add(id(cell._tc))
        cells.append(cell)
    return cells


def _table_rows(table: Table, table_number: int) -> list[tuple[str, str, str | None]]:
    """(text, locator, declared rule) for each row; a header row labels the values."""
    rows = [[_cell_text(cell) for cell in _unique_cells(row)] for row in table.rows]
    rows = [row for row in rows if any(row)]
    if not rows:
        return []
    header: list[str] | None = None
    if len(rows) > 1 and looks_like_header(rows[0]):
        header = column_names(rows[0])
        body = list(enumerate(rows[1:], start=2))
    else:
        body = list(enumerate(rows, start=1))
    rule_index = rule_column(header) if header else None
    rendered = []
    for number, cells in body:
        if header:
            text = render_row(header, cells)
        else:
            text = " | ".join(cell for cell in cells if cell)
        if not text:
            continue
        rule = None
        if rule_index is not None and rule_index < len(cells) and cells[rule_index]:
            rule = cells[rule_index]
        rendered.append((text, f"table {table_number}, row {number}", rule))
    return rendered
