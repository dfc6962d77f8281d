"""PDF text with page numbers (pypdf), rebuilt into headings, paragraphs and list items.

Headings are recognised by font size where pypdf reports it (a line clearly larger than the
body text), else by the shape of the line. Running headers and footers that repeat on most
pages are dropped, and a sentence that runs over a page break is joined back together.
"""

from __future__ import annotations

import io
import logging
import re
import struct
import threading
import zlib
from collections import Counter
from dataclasses import dataclass

from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError

from ingest.document import Document
from ingest.errors import IngestError
from ingest.formats.blocks import (
    Block,
    blocks_from_lines,
    ends_sentence,
    sections_from_blocks,
    wrap_width,
)
from ingest.text import clean_text, looks_like_heading, normalise_whitespace

MAX_PAGES = 2000
# What pypdf raises on damaged input besides its own errors (found by fuzzing mutated files).
_PARSE_ERRORS = (
    PyPdfError,
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    IndexError,
    RecursionError,
    OSError,
    AssertionError,
    ZeroDivisionError,
    NotImplementedError,
    EOFError,
    zlib.error,
    struct.error,
)
_HEADING_SIZE_RATIO = 1.15
_LIGATURES = {0xFB00: "ff", 0xFB01: "fi", 0xFB02: "fl", 0xFB03: "ffi", 0xFB04: "ffl", 0xFB06: "st"}
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BAD_TITLES = re.compile(r"^(?:untitled|\(?unspecified\)?|microsoft word\b.*|document\d*)$", re.I)


@dataclass(slots=True)
class _Line:
    text: str
    size: float | None
    page: int


def extract_pdf(data: bytes, name: str, stem: str) -> Document:
    """Extract a PDF into sections that carry their 1-based page number."""
    reader = _open(data, name)
    try:
        page_count = len(reader.pages)
        if page_count > MAX_PAGES:
            raise IngestError(
                "too_large", f"{name} has {page_count} pages; the limit is {MAX_PAGES} pages."
            )
        with _StreamProblems() as problems:
            pages = [_page_lines(page, n) for n, page in enumerate(reader.pages, start=1)]
        if problems.messages:
            # pypdf skips a content stream it cannot decode and goes on: the text of that
            # page would silently be missing, so the whole file is refused instead.
            raise IngestError(
                "corrupt_file",
                f"{name} is a damaged PDF: part of its content cannot be decoded "
                f"({problems.messages[0]}).",
            )
        title = _metadata_title(reader)
    except IngestError:
        raise
    except _PARSE_ERRORS as exc:
        raise IngestError(
            "corrupt_file", f"{name} is a damaged PDF and its text cannot be read ({_why(exc)})."
        ) from None
    pages = _drop_running_lines(pages)
    blocks = _blocks(pages)
    sections = sections_from_blocks(blocks)
    if not title:
        title = next((s.text for s in sections if s.kind == "heading"), stem)
    return Document(
        title=title[:300], format="pdf", sections=tuple(sections), page_count=page_count
    )


class _StreamProblems(logging.Handler):
    """Collects the warnings pypdf logs, in this thread, while it decodes content streams."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []
        self._thread = threading.get_ident()
        self._logger = logging.getLogger("pypdf.filters")

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread != self._thread:
            return
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a warning whose arguments do not fit its format
            message = str(record.msg)
        self.messages.append(normalise_whitespace(message)[:120])

    def __enter__(self) -> _StreamProblems:
        self._logger.addHandler(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._logger.removeHandler(self)


def _open(data: bytes, name: str) -> PdfReader:
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            # A PDF with only an owner password (printing or copying restrictions) opens
            # with the empty user password, as in every viewer; anything else is refused.
            try:
                opened = reader.decrypt("")
            except (DependencyError, NotImplementedError, PyPdfError):
                opened = 0
            if not opened:
                raise IngestError(
                    "encrypted_pdf",
                    f"{name} is password-protected. Remove the password (print or export it "
                    "to an unprotected PDF) and upload it again.",
                )
        return reader
    except IngestError:
        raise
    except FileNotDecryptedError:
        raise IngestError("encrypted_pdf", f"{name} is password-protected.") from None
    except _PARSE_ERRORS as exc:
        raise IngestError(
            "corrupt_file", f"{name} is not a readable PDF: the file is damaged ({_why(exc)})."
        ) from None


def _page_lines(page, number: int) -> list[_Line]:
    runs: list[tuple[str, float | None]] = []

    def visit(text: str, cm, tm, font_dict, font_size) -> None:
        if text:
            runs.append((text, _effective_size(font_size, cm, tm)))

    text = page.extract_text(visitor_text=visit) or ""
    visited = "".join(run for run, _ in runs)
    if normalise_whitespace(visited) != normalise_whitespace(text):
        # The visitor saw a different text than pypdf returned: keep the text, lose sizes.
        return [_Line(_clean(line), None, number) for line in text.split("\n")]
    lines: list[_Line] = []
    current: list[tuple[str, float | None]] = []
    for run, size in runs:
        parts = run.split("\n")
        for index, part in enumerate(parts):
            if part:
                current.append((part, size))
            if index < len(parts) - 1:
                lines.append(_line_from_runs(current, number))
                current = []
    if current:
        lines.append(_line_from_runs(current, number))
    return lines


def _line_from_runs(runs: list[tuple[str, float | None]], page: int) -> _Line:
    text = "".join(part for part, _ in runs)
    weights: Counter[float] = Counter()
    for part, size in runs:
        if size is not None and part.strip():
            weights[round(size, 1)] += len(part.strip())
    size = weights.most_common(1)[0][0] if weights else None
    return _Line(_clean(text), size, page)


def _effective_size(font_size, cm, tm) -> float | None:
    try:
        scale = abs(float(tm[3]) * float(cm[3])) or abs(float(tm[0]) * float(cm[0]))
        return float(font_size) * (scale or 1.0)
    except (TypeError, ValueError, IndexError):
        return None


def _clean(text: str) -> str:
    text = clean_text(text).translate(_LIGATURES)
    # A lone DEL is what a ZapfDingbats bullet extracts to: keep it as a bullet.
    if text.strip() == "\x7f":
        return "\u2022"
    return _CONTROL.sub(" ", text)


def _drop_running_lines(pages: list[list[_Line]]) -> list[list[_Line]]:
    """Drop headers and footers: lines at a page's top or bottom that repeat on most pages."""
    if len(pages) < 3:
        return pages

    def key(line: _Line) -> str:
        text = normalise_whitespace(line.text).lower()
        # Short lines differ only by their numbers from page to page ("Page 3 of 40").
        return re.sub(r"\d+", "#", text) if len(text) <= 40 else text

    counts: Counter[str] = Counter()
    for lines in pages:
        texts = [line for line in lines if line.text.strip()]
        edge = {key(line) for line in texts[:2] + texts[-2:]}
        counts.update(edge)
    threshold = max(3, len(pages) // 2)
    running = {k for k, n in counts.items() if n >= threshold and k}
    if not running:
        return pages
    kept: list[list[_Line]] = []
    for lines in pages:
        texts = [i for i, line in enumerate(lines) if line.text.strip()]
        edges = set(texts[:2] + texts[-2:])
        kept.append(
            [line for i, line in enumerate(lines) if not (i in edges and key(line) in running)]
        )
    return kept


def _blocks(pages: list[list[_Line]]) -> list[Block]:
    sizes: Counter[float] = Counter()
    for lines in pages:
        for line in lines:
            if line.size is not None:
                sizes[line.size] += len(line.text.strip())
    body = sizes.most_common(1)[0][0] if sizes else None
    heading_sizes = sorted(
        {s for s in sizes if body is not None and s >= body * _HEADING_SIZE_RATIO}, reverse=True
    )
    level_of = {size: min(index + 1, 6) for index, size in enumerate(heading_sizes)}

    wrap = wrap_width([line.text for lines in pages for line in lines if line.size == body])
    blocks: list[Block] = []
    for lines in pages:
        page_blocks = _page_blocks(lines, level_of, wrap)
        if blocks and page_blocks and _continues(blocks[-1], page_blocks[0]):
            blocks[-1].lines.extend(page_blocks.pop(0).lines)
        blocks.extend(page_blocks)
    return blocks


def _page_blocks(lines: list[_Line], level_of: dict[float, int], wrap: int) -> list[Block]:
    texts = [line.text for line in lines]
    levels = [_heading_level(line, level_of) if line.text.strip() else None for line in lines]
    return blocks_from_lines(texts, levels, lines[0].page if lines else None, wrap)


def _heading_level(line: _Line, level_of: dict[float, int]) -> int | None:
    text = line.text.strip()
    if len(text) > 200:
        return None
    if line.size is not None and level_of:
        return level_of.get(line.size)
    if looks_like_heading(text):
        number = re.match(r"^(\d+(?:\.\d+)*)", text)
        # Numbered headings ("2.1 Refunds") sit below an unnumbered title, which is 1.
        return min(number.group(1).count(".") + 2, 6) if number else 1
    return None


def _continues(previous: Block, first: Block) -> bool:
    """Whether the first block of a page continues the sentence the last page broke off."""
    if previous.kind == "heading" or first.kind != "paragraph":
        return False
    tail = previous.lines[-1].strip()
    head = first.lines[0].strip()
    return not ends_sentence(tail) and (head[:1].islower() or head[:1].isdigit())


def _metadata_title(reader: PdfReader) -> str | None:
    try:
        title = reader.metadata.title if reader.metadata else None
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not isinstance(title, str):
        return None
    title = normalise_whitespace(title)
    if not title or _BAD_TITLES.match(title):
        return None
    return title


def _why(exc: BaseException) -> str:
    detail = normalise_whitespace(str(exc))[:120]
    return detail or type(exc).__name__
