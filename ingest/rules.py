"""Rule statements: the sentences, list items and table rows of a document that state a rule.

A statement is a rule when it carries a normative word (must, shall, never, may not, only, at
most, prohibited, requires approval ...), or when the source declares it a rule (the `rules`
of a policy JSON, a CSV `rule` column). A list introduced by a normative lead-in ("The
following are prohibited:") yields one statement per item, each with the lead-in in front, so
that an item read alone keeps its meaning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.document import Document, Section, SectionKind
from ingest.text import is_normative, normalise_whitespace, split_sentences

MAX_STATEMENT_CHARS = 2000
_MIN_WORDS = 2


@dataclass(frozen=True, slots=True)
class RuleStatement:
    """One rule as written, with where it was found (page and section) for citations."""

    text: str
    page: int | None
    section: str | None
    kind: SectionKind = "paragraph"


def extract_rule_statements(document: Document) -> list[RuleStatement]:
    """The rule statements of a document, in order, whitespace-normalised and deduplicated."""
    if document.policy is not None:
        # A policy file states its rules explicitly: its description is scope, not rules.
        return _dedupe(
            RuleStatement(normalise_whitespace(rule), None, "Rules", "list")
            for rule in document.policy.rules
        )
    return _dedupe(_statements(document.sections))


def _statements(sections: tuple[Section, ...]):
    lead_in: tuple[str, int | None] | None = None  # (text, list level it applies below)
    pending: RuleStatement | None = None  # a lead-in not yet followed by its list
    for section in sections:
        if pending is not None and section.kind != "list":
            yield pending  # the lead-in had no list after it: it is a statement of its own
            pending = None
        if section.kind == "heading":
            lead_in = None
            continue
        if section.declared_rule:
            yield _statement(section.declared_rule, section)
            continue
        text = _body(section)
        if section.kind == "list":
            depth = section.level or 1
            if lead_in is not None and (lead_in[1] is None or depth > lead_in[1]):
                pending = None
                yield _statement(f"{lead_in[0]} {text}", section)
                continue
            lead_in = None
            if _is_lead_in(text):
                lead_in, pending = (text, depth), _statement(text, section)
                continue
            yield from _normative_parts(text, section)
        elif section.kind == "table":
            lead_in = None
            yield from _normative_parts(text, section)
        else:
            lead_in = None
            sentences = split_sentences(text)
            for index, sentence in enumerate(sentences):
                if index == len(sentences) - 1 and _is_lead_in(sentence):
                    lead_in, pending = (sentence, None), _statement(sentence, section)
                elif is_normative(sentence):
                    yield _statement(sentence, section)
    if pending is not None:
        yield pending


def _normative_parts(text: str, section: Section):
    """A list item or table row is one statement; a long one is cut into its sentences."""
    if len(text) <= MAX_STATEMENT_CHARS:
        if is_normative(text):
            yield _statement(text, section)
        return
    for sentence in split_sentences(text):
        if is_normative(sentence):
            yield _statement(sentence, section)


def _is_lead_in(text: str) -> bool:
    return text.rstrip().endswith(":") and is_normative(text)


def _body(section: Section) -> str:
    """The section text without the "path: " label that flattened JSON values carry."""
    if section.locator and section.text.startswith(f"{section.locator}: "):
        return section.text[len(section.locator) + 2 :]
    return section.text


def _statement(text: str, section: Section) -> RuleStatement:
    return RuleStatement(normalise_whitespace(text), section.page, section.place, section.kind)


def _dedupe(statements) -> list[RuleStatement]:
    seen: set[str] = set()
    unique: list[RuleStatement] = []
    for statement in statements:
        for text in _within_limit(statement.text):
            if len(text.split()) < _MIN_WORDS:
                continue
            key = re.sub(r"[\s.;:!]+$", "", text.casefold())
            if key in seen:
                continue
            seen.add(key)
            unique.append(RuleStatement(text, statement.page, statement.section, statement.kind))
    return unique


def _within_limit(text: str) -> list[str]:
    """Statements over the contract's 2,000 characters, cut at clause then word boundaries."""
    if len(text) <= MAX_STATEMENT_CHARS:
        return [text]
    pieces: list[str] = []
    current = ""
    for clause in re.split(r"(?<=;)\s+", text):
        while len(clause) > MAX_STATEMENT_CHARS:
            cut = clause.rfind(" ", 0, MAX_STATEMENT_CHARS)
            cut = cut if cut > 0 else MAX_STATEMENT_CHARS
            pieces.append(clause[:cut].strip())
            clause = clause[cut:].strip()
        if current and len(current) + 1 + len(clause) > MAX_STATEMENT_CHARS:
            pieces.append(current)
            current = clause
        else:
            current = f"{current} {clause}".strip()
    if current:
        pieces.append(current)
    return [piece for piece in pieces if is_normative(piece)] or pieces[:1]
