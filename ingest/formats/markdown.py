"""Markdown (markdown-it-py, CommonMark plus tables): sections by heading, list items with
their nesting depth, table rows rendered with their column names.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ingest.document import Document, DocumentFormat, Section, SectionKind
from ingest.formats.tables import column_names, render_row, rule_column
from ingest.text import clean_text, normalise_whitespace

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_TAG = re.compile(r"<[^>]*>")
_PARSER = MarkdownIt("commonmark", {"html": True}).enable("table")


def extract_markdown(text: str, stem: str, fmt: DocumentFormat = "markdown") -> Document:
    """Extract Markdown into sections; every section records the headings above it."""
    text = clean_text(text)
    title: str | None = None
    front = _FRONT_MATTER.match(text)
    if front:
        text = text[front.end() :]
        found = re.search(r"(?m)^title:\s*['\"]?(.+?)['\"]?\s*$", front.group(1))
        title = normalise_whitespace(found.group(1)) if found else None
    sections = _sections(_PARSER.parse(text))
    if not title:
        title = next((s.text for s in sections if s.kind == "heading"), stem)
    return Document(title=title[:300], format=fmt, sections=tuple(sections))


def _sections(tokens: list[Token]) -> list[Section]:
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    list_depth = 0
    table_count = 0
    index = 0

    def add(text: str, kind: SectionKind, level: int | None = None, **extra) -> None:
        text = normalise_whitespace(text)
        if not text:
            return
        path = tuple(title for _, title in stack)
        sections.append(Section(text, path[-1] if path else None, None, kind, path, level, **extra))

    while index < len(tokens):
        token = tokens[index]
        if token.type == "heading_open":
            level = int(token.tag[1])
            text = normalise_whitespace(_inline_text(tokens[index + 1]))
            if text:
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, text))
                add(text, "heading", level)
            index += 3
            continue
        if token.type in ("bullet_list_open", "ordered_list_open"):
            list_depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            list_depth -= 1
        elif token.type == "inline" and tokens[index - 1].type == "paragraph_open":
            if list_depth:
                add(_inline_text(token), "list", list_depth)
            else:
                add(_inline_text(token), "paragraph")
        elif token.type in ("fence", "code_block"):
            add(token.content, "paragraph")
        elif token.type == "html_block":
            add(_TAG.sub(" ", re.sub(r"(?s)<!--.*?-->", " ", token.content)), "paragraph")
        elif token.type == "table_open":
            table_count += 1
            end = _closing(tokens, index, "table_close")
            for text, row, rule in _table_rows(tokens[index:end]):
                add(text, "table", locator=f"table {table_count}, row {row}", declared_rule=rule)
            index = end
        index += 1
    return sections


def _closing(tokens: list[Token], start: int, close_type: str) -> int:
    for index in range(start, len(tokens)):
        if tokens[index].type == close_type:
            return index
    return len(tokens) - 1


def _table_rows(tokens: list[Token]) -> list[tuple[str, int, str | None]]:
    rows: list[list[str]] = []
    header: list[str] | None = None
    current: list[str] = []
    in_head = False
    for token in tokens:
        if token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            current = []
        elif token.type == "inline":
            current.append(normalise_whitespace(_inline_text(token)))
        elif token.type == "tr_close":
            if in_head:
                header = column_names(current)
            elif any(current):
                rows.append(current)
    columns = header or [f"column {i + 1}" for i in range(max(map(len, rows), default=0))]
    rule_index = rule_column(columns) if header else None
    result = []
    for number, cells in enumerate(rows, start=2 if header else 1):
        rule = cells[rule_index] if rule_index is not None and rule_index < len(cells) else None
        result.append((render_row(columns, cells), number, rule or None))
    return result


def _inline_text(token: Token) -> str:
    """Plain text of an inline token: markup dropped, link text and image alt text kept."""
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(_inline_text(child))
        elif child.type == "html_inline" and child.content.lower().startswith("<br"):
            parts.append(" ")
    return "".join(parts)
