"""The values extraction produces: a document made of ordered, located sections."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SectionKind = Literal["heading", "paragraph", "table", "list"]
DocumentFormat = Literal["pdf", "docx", "txt", "markdown", "json", "csv", "html"]


@dataclass(frozen=True, slots=True)
class Section:
    """One block of a document, in reading order, with where it came from.

    `heading` is the nearest enclosing heading (for a heading, the heading itself) and
    `heading_path` all enclosing headings from the outermost. `page` is 1-based (PDF only).
    `level` is a heading's level (0 for a DOCX title) or a list item's nesting depth.
    `locator` names a position that pages and headings cannot (a CSV row, a table row, a JSON
    path); flattened JSON values are written "locator: value".
    `declared_rule` is set when the source itself marks the text as a rule (the `rules` of a
    policy JSON, a CSV `rule` column), so it counts as a rule even without a normative word.
    """

    text: str
    heading: str | None
    page: int | None
    kind: SectionKind
    heading_path: tuple[str, ...] = ()
    level: int | None = None
    locator: str | None = None
    declared_rule: str | None = None

    @property
    def place(self) -> str | None:
        """A readable position for citations: the heading path, else the locator."""
        if self.heading_path:
            return " > ".join(self.heading_path)
        return self.locator


@dataclass(frozen=True, slots=True)
class PolicySpec:
    """A policy given as JSON in the shape of `POST /register-policy`."""

    policy_id: str | None
    description: str
    rules: tuple[str, ...]
    tools: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Document:
    """A whole extracted document: its title, detected format and sections in order."""

    title: str
    format: DocumentFormat
    sections: tuple[Section, ...]
    policy: PolicySpec | None = None
    source: str | None = None
    page_count: int | None = None

    @property
    def text(self) -> str:
        """The plain text of every section, one per line."""
        return "\n".join(section.text for section in self.sections)
