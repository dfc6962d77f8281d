"""Wiki pages: the main content of an HTML page, without navigation, read as Markdown.

readability-lxml finds the article body; markdownify turns it into Markdown, which keeps the
headings, lists and tables that the Markdown extractor then splits into sections.
"""

from __future__ import annotations

import re

import lxml.html
from lxml import etree
from markdownify import markdownify
from readability import Document as ReadableDocument

from ingest.document import Document
from ingest.errors import IngestError
from ingest.formats.markdown import extract_markdown
from ingest.text import normalise_whitespace

# Elements that are never policy text, removed before readability scores the page.
_NOISE = ("script", "style", "noscript", "template", "svg", "iframe", "form", "nav")
# Wiki chrome that sits inside the content area: edit links, tables of contents, nav boxes.
_NOISE_CLASSES = re.compile(
    r"(?:^|\s)(?:mw-editsection|editsection|toc|toctitle|navbox|noprint|catlinks|breadcrumbs?|"
    r"printfooter|page-metadata|confluence-information-macro-icon)(?:\s|$)"
)
_EDIT_LINK = re.compile(r"\s*\[\s*edit(?: source)?\s*\]", re.IGNORECASE)


def html_to_document(html: str, url: str) -> Document:
    """Extract the main content of an HTML page (a wiki page) into a document."""
    if not html.strip():
        raise IngestError("empty_document", f"The page {url} is empty.")
    try:
        cleaned = _without_noise(html)
        readable = ReadableDocument(cleaned, url=url)
        title = normalise_whitespace(readable.short_title() or "")
        content = readable.summary(html_partial=True)
    except (etree.LxmlError, ValueError, TypeError) as exc:
        raise IngestError("corrupt_file", f"The page {url} is not readable HTML ({exc}).") from None
    if not normalise_whitespace(_visible_text(content)):
        content = cleaned  # readability found no article: fall back to the whole page
    markdown = markdownify(content, heading_style="ATX", bullets="-", strip=["img", "a"])
    markdown = re.sub(r"(?m)^(#{1,6} .*)$", lambda m: _EDIT_LINK.sub("", m.group(1)), markdown)
    document = extract_markdown(markdown, title or url, fmt="html")
    if not any(section.text for section in document.sections):
        raise IngestError("empty_document", f"The page {url} has no text.")
    headings = [s for s in document.sections if s.kind == "heading"]
    if not title and headings:
        title = headings[0].text
    return Document(
        title=(title or url)[:300], format="html", sections=document.sections, source=url
    )


def _without_noise(html: str) -> str:
    try:
        root = lxml.html.document_fromstring(html)
    except (etree.LxmlError, ValueError):
        return html
    noise = list(root.iter(*_NOISE)) + root.xpath(
        "//*[@role='navigation' or @role='banner' or @role='contentinfo' or @aria-hidden='true']"
    )
    noise += [el for el in root.iter() if _NOISE_CLASSES.search(str(el.get("class") or ""))]
    for element in noise:
        if element.getparent() is not None:
            element.drop_tree()
    return lxml.html.tostring(root, encoding="unicode")


def _visible_text(fragment: str) -> str:
    return re.sub(r"<[^>]+>", " ", fragment)
