"""Plain text: paragraphs split on blank lines, bullets as list items, headings by shape."""

from __future__ import annotations

import re

from ingest.document import Document
from ingest.formats.blocks import blocks_from_lines, sections_from_blocks
from ingest.text import clean_text, looks_like_heading

_UNDERLINE = re.compile(r"^\s*(=+|-+)\s*$")
_RULER = re.compile(r"^[-=_*~#.]{3,}$")


def extract_text_document(text: str, stem: str) -> Document:
    """Extract plain text into sections; headings are guessed from standalone short lines."""
    lines = clean_text(text).split("\n")
    levels: list[int | None] = [None] * len(lines)
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        if _RULER.match(stripped):
            lines[index] = ""  # a horizontal rule drawn with characters
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        underline = _UNDERLINE.match(following) if len(following.strip()) >= 3 else None
        if underline and not _UNDERLINE.match(line):
            levels[index] = 1 if underline.group(1)[0] == "=" else 2
            lines[index + 1] = ""
            continue
        previous = lines[index - 1] if index > 0 else ""
        standalone = not previous.strip() or not following.strip()
        if standalone and looks_like_heading(stripped):
            number = re.match(r"^(\d+(?:\.\d+)*)", stripped)
            # Numbered headings ("2.1 Refunds") sit below an unnumbered title, which is 1.
            levels[index] = min(number.group(1).count(".") + 2, 6) if number else 1
    sections = sections_from_blocks(blocks_from_lines(lines, levels, None))
    title = next((s.text for s in sections if s.kind == "heading"), stem)
    return Document(title=title[:300], format="txt", sections=tuple(sections))
