"""Building sections from a flat stream of lines (PDF pages, plain text).

PDF and plain text carry no structure, only lines. This module rebuilds paragraphs, list items
and headings from them, and keeps the heading path that chunks and citations need.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.document import Section, SectionKind
from ingest.text import normalise_whitespace, strip_list_marker

# Glyphs a PDF bullet becomes once extracted (ZapfDingbats bullets come out as DEL).
BULLET_GLYPHS = frozenset(
    "\x7f\u2022\u25cf\u25aa\u25a0\u25e6\u2023\u2043\u2219\uf0b7\uf0a7\u27a2o-*"
)
# Text wrapped narrower than this is a list of short lines, not wrapped prose.
_MIN_WRAP = 50
_TERMINAL = ".!?:;\"'\u201d\u2019)"


@dataclass(slots=True)
class Block:
    """A section under construction."""

    kind: SectionKind
    lines: list[str]
    page: int | None
    level: int | None = None

    def text(self) -> str:
        """The block's lines joined, mending words hyphenated across lines."""
        joined = ""
        for line in self.lines:
            line = line.strip()
            if not joined:
                joined = line
            elif re.search(r"[A-Za-z]-$", joined) and line[:1].islower():
                joined = joined[:-1] + line
            else:
                joined = f"{joined} {line}"
        return normalise_whitespace(joined)


def ends_sentence(text: str) -> bool:
    """Whether text ends like a finished sentence or clause."""
    text = text.rstrip()
    return bool(text) and text[-1] in _TERMINAL


def sections_from_blocks(blocks: list[Block]) -> list[Section]:
    """Turn blocks into sections, giving each the path of headings that encloses it."""
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    for block in blocks:
        text = block.text()
        if not text:
            continue
        if block.kind == "heading":
            level = block.level or 1
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, text))
        path = tuple(title for _, title in stack)
        sections.append(
            Section(
                text=text,
                heading=path[-1] if path else None,
                page=block.page,
                kind=block.kind,
                heading_path=path,
                level=block.level if block.kind == "heading" else None,
            )
        )
    return sections


def is_bullet_only(line: str) -> bool:
    """A line holding nothing but a bullet glyph (PDFs often put the bullet on its own line)."""
    stripped = line.strip()
    return len(stripped) == 1 and stripped in BULLET_GLYPHS


def blocks_from_lines(
    lines: list[str], levels: list[int | None], page: int | None, wrap: int | None = None
) -> list[Block]:
    """Group lines into blocks; `levels[i]` is the heading level of line i, or None.

    `wrap` is the width the text was wrapped at (measured on these lines if not given).
    A blank line ends a block; a bullet or enumeration starts a list item; a line joins the
    one before only if that one was wrapped (long) or the new line starts in lower case, so a
    file with one rule per line keeps its rules apart.
    """
    blocks: list[Block] = []
    current: Block | None = None
    pending_bullet = False
    if wrap is None:
        wrap = wrap_width(
            [line for line, level in zip(lines, levels, strict=True) if level is None]
        )
    for line, level in zip(lines, levels, strict=True):
        text = line.strip()
        if not text:
            current = None
            continue
        if is_bullet_only(text):
            pending_bullet, current = True, None
            continue
        if level is not None and not pending_bullet:
            if (
                current is not None
                and current.kind == "heading"
                and current.level == level
                and joins(current.lines[-1], text, wrap)
            ):
                current.lines.append(text)  # a long heading wrapped over two lines
            else:
                current = Block("heading", [text], page, level)
                blocks.append(current)
            continue
        item, marked = strip_list_marker(text)
        if pending_bullet or marked:
            current = Block("list", [item if marked else text], page)
            blocks.append(current)
            pending_bullet = False
            continue
        if current is None or current.kind == "heading" or not joins(current.lines[-1], text, wrap):
            current = Block("paragraph", [text], page)
            blocks.append(current)
        else:
            current.lines.append(text)
    return blocks


def wrap_width(lines: list[str]) -> int:
    """The width text was wrapped at: a high percentile of the line lengths."""
    lengths = sorted(len(line.strip()) for line in lines if line.strip())
    if not lengths:
        return 0
    return lengths[min(len(lengths) - 1, int(len(lengths) * 0.9))]


def joins(previous: str, line: str, wrap: int) -> bool:
    """Whether `line` continues the paragraph whose last line is `previous`.

    Splitting where a sentence ended is always safe (no sentence is cut), so only a line
    that was wrapped mid-sentence is joined: one that starts in lower case, follows a comma
    or a hyphen, or follows a line as long as the text's wrap width.
    """
    previous = previous.strip()
    if line[:1].islower() or previous.endswith((",", "-")):
        return True
    if ends_sentence(previous):
        return False
    return wrap >= _MIN_WRAP and len(previous) >= 0.7 * wrap
