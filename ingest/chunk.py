"""Chunking: a document cut into retrieval-sized pieces that cite where they came from.

A chunk never crosses a heading boundary and never cuts a sentence, a list item or a table row
that states a rule: the units packed into chunks are whole sentences (of paragraphs) and whole
items (of lists and tables), cut with the same sentence splitter the rule extractor uses.
Only a long sentence without any normative word may be wrapped at word boundaries.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from ingest.document import Document, Section
from ingest.rules import MAX_STATEMENT_CHARS
from ingest.text import is_normative, normalise_whitespace, split_sentences

DEFAULT_MAX_CHARS = 1200
MIN_MAX_CHARS = 200


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of a document for retrieval, with its provenance for citations.

    `page` and `page_end` are the first and last PDF pages it covers; `section` is a readable
    position ("1. Payments > 1.2 Refunds", or "row 12" for a CSV).
    """

    ordinal: int
    text: str
    heading_path: tuple[str, ...]
    page: int | None
    page_end: int | None
    section: str | None
    kinds: tuple[str, ...] = field(default=())

    @property
    def chunk_id_suffix(self) -> str:
        """The chunk's stable id within its policy version (its ordinal, zero-padded)."""
        return f"{self.ordinal:05d}"

    @property
    def content_hash(self) -> str:
        """SHA-256 of the text: the same text keeps its embedding across versions."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def indexable_text(self) -> str:
        """The text to index: the heading path first, so that headings are searchable too."""
        path = self.heading_path
        if path and self.text.startswith(path[-1]):
            path = path[:-1]  # the chunk opens with its own heading already
        return " > ".join(path) + "\n" + self.text if path else self.text


@dataclass(slots=True)
class _Buffer:
    parts: list[str] = field(default_factory=list)
    length: int = 0
    path: tuple[str, ...] = ()
    pages: list[int] = field(default_factory=list)
    locators: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    only_headings: bool = True

    def add(self, text: str, section: Section, new_section: bool) -> None:
        separator = "\n" if new_section else " "
        if self.parts:
            self.parts.append(separator)
            self.length += 1
        self.parts.append(text)
        self.length += len(text)
        self.path = section.heading_path
        if section.page is not None:
            self.pages.append(section.page)
        if section.locator and (not self.locators or self.locators[-1] != section.locator):
            self.locators.append(section.locator)
        if section.kind not in self.kinds:
            self.kinds.append(section.kind)
        self.only_headings = self.only_headings and section.kind == "heading"


def chunk(document: Document, max_chars: int = DEFAULT_MAX_CHARS) -> list[Chunk]:
    """Cut a document into chunks of at most `max_chars` (a single longer statement excepted)."""
    if max_chars < MIN_MAX_CHARS:
        raise ValueError(f"max_chars must be at least {MIN_MAX_CHARS}")
    chunks: list[Chunk] = []
    buffer = _Buffer()

    def flush() -> None:
        nonlocal buffer
        if buffer.parts:
            chunks.append(_make_chunk(len(chunks), buffer))
        buffer = _Buffer()

    for section in document.sections:
        if buffer.parts and _starts_new_chunk(buffer, section):
            flush()
        first = True
        for unit in _units(section, max_chars):
            if buffer.parts and buffer.length + 1 + len(unit) > max_chars:
                flush()
            buffer.add(unit, section, new_section=first)
            first = False
    flush()
    return chunks


def _starts_new_chunk(buffer: _Buffer, section: Section) -> bool:
    if buffer.only_headings:
        # A heading followed at once by its subheading or its text stays with them.
        return section.heading_path[: len(buffer.path)] != buffer.path
    if section.kind == "heading":
        return True
    return section.heading_path != buffer.path


def _units(section: Section, max_chars: int) -> list[str]:
    """The pieces of a section that must never be cut: whole items, whole sentences."""
    text = normalise_whitespace(section.text)
    if section.kind == "heading":
        return [text]
    if section.kind in ("list", "table") and (
        len(text) <= max_chars or (len(text) <= MAX_STATEMENT_CHARS and is_normative(text))
    ):
        return [text]
    units: list[str] = []
    for sentence in split_sentences(text):
        if len(sentence) <= max_chars or is_normative(sentence):
            units.append(sentence)
        else:
            units.extend(_wrap(sentence, max_chars))
    return units


def _wrap(text: str, width: int) -> list[str]:
    pieces: list[str] = []
    while len(text) > width:
        cut = text.rfind(" ", 0, width + 1)
        cut = cut if cut > 0 else width
        pieces.append(text[:cut].strip())
        text = text[cut:].strip()
    if text:
        pieces.append(text)
    return pieces


def _make_chunk(ordinal: int, buffer: _Buffer) -> Chunk:
    if buffer.path:
        place: str | None = " > ".join(buffer.path)
    elif buffer.locators:
        first, last = buffer.locators[0], buffer.locators[-1]
        place = first if first == last else f"{first} to {last}"
    else:
        place = None
    return Chunk(
        ordinal=ordinal,
        text="".join(buffer.parts),
        heading_path=buffer.path,
        page=min(buffer.pages) if buffer.pages else None,
        page_end=max(buffer.pages) if buffer.pages else None,
        section=place,
        kinds=tuple(buffer.kinds),
    )
