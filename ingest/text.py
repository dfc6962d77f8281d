"""Text helpers shared by extraction, chunking and rule extraction.

Sentence splitting lives here once, so that the chunker and the rule extractor agree on where a
sentence ends: a chunk boundary can then never fall inside a rule statement.
"""

from __future__ import annotations

import re
import unicodedata

_WHITESPACE = re.compile(r"\s+")
# Zero-width and soft-hyphen characters that PDF and Word text often carry.
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"), None)

_LIST_MARKER = re.compile(
    r"""^\s*(?:
        [\u2022\u2023\u2043\u2219\u25aa\u25ab\u25cf\u25cb\u25e6\u25a0\u25a1\u2013\u2014\u00b7*+\-]
        |\(?(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,5})[.)](?!\d)
    )\s+""",
    re.VERBOSE,
)

# Words before a full stop that do not end a sentence.
_ABBREVIATIONS = frozenset(
    """e.g i.e etc vs cf approx incl excl no nos art sec para fig p pp mr mrs ms dr st co inc ltd
    corp dept est min max jan feb mar apr jun jul aug sep sept oct nov dec
    u.s u.k e.u a.m p.m""".split()
)
_SENTENCE_END = re.compile(r"""[.!?][)"'\u201d\u2019\]]*(?=\s+(?=[("'\u201c\u2018\[]?[A-Z0-9]))""")

NORMATIVE = re.compile(
    r"""\b(?:
        must|shall|should|never|cannot|can\s*not|can't|won't|mustn't|shan't|
        may\s+(?:not|only)|might\s+not|(?:is|are)\s+not\s+to|(?:is|are)\s+expected\s+to|
        ha(?:s|ve)\s+to|needs?\s+to|do\s+not|does\s+not\s+(?:allow|permit)|don't|
        not\s+(?:be\s+)?(?:allowed|permitted|authori[sz]ed|exceed\w*)|
        allowed|permitted|allow-?list\w*|deny-?list\w*|block-?list\w*|white-?list\w*|
        black-?list\w*|permission|authori[sz](?:ed|ation)|consent|sign[- ]?off|
        only|exclusively|solely|avoid|refrain\s+from|ensure|make\s+sure|
        at\s+(?:most|least)|(?:no|not)\s+(?:more|less|fewer)\s+than|up\s+to|
        exceed(?:s|ed|ing)?|maximum|minimum|max|min|limit|limits\s+(?:of|per|are)|
        limited\s+to|cap|capped|ceiling|threshold|
        prohibit\w*|forbid\w*|forbidden|banned|disallowed|restricted|blocked|denied|
        requires?|required|requirement|mandatory|obligatory|
        approv\w+|escalat\w+|review|reviewer|reviewers|review(?:ed)?\s+by|
        subject\s+to|always|under\s+no\s+circumstances|
        no\s+(?:one|agent|user|employee|staff|person|payment|transfer)\s+(?:may|can|shall)
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)


# The words that make a short line a rule rather than a title ("Approval limits" is a title,
# "Never pay twice" is a rule).
_RULE_VERBS = re.compile(
    r"\b(?:must|shall|should|never|cannot|can't|may|might|not|no|don't|only|always|"
    r"prohibited|forbidden|banned|requires?|required|needs?|exceed\w*|avoid|ensure)\b",
    re.IGNORECASE,
)


def normalise_whitespace(text: str) -> str:
    """Collapse every run of whitespace to one space and drop invisible characters."""
    return _WHITESPACE.sub(" ", text.translate(_INVISIBLE)).strip()


def strip_list_marker(text: str) -> tuple[str, bool]:
    """Remove a leading bullet or enumeration marker; tell whether there was one."""
    match = _LIST_MARKER.match(text)
    if match is None:
        return text, False
    return text[match.end() :], True


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences, keeping abbreviations, decimals and initials intact."""
    text = normalise_whitespace(text)
    if not text:
        return []
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
        if text[match.start()] == "." and _ends_with_abbreviation(text[start : match.start()]):
            continue
        sentence = text[start:end].strip()
        if sentence:
            sentences.append(sentence)
        start = end
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def is_normative(text: str) -> bool:
    """Whether the text contains a word that makes it a rule (must, never, at most, ...)."""
    return NORMATIVE.search(text) is not None


def looks_like_heading(line: str) -> bool:
    """Guess whether a line of plain or PDF text is a heading.

    Only short lines without end punctuation qualify, and never a line with a normative word:
    a rule mistaken for a heading would be lost to rule extraction.
    """
    line = line.strip()
    if not line or len(line) > 90 or line[-1] in ".,;:!?" or _RULE_VERBS.search(line):
        return False
    words = line.split()
    if len(words) > 12 or not any(ch.isalpha() for ch in line):
        return False
    if re.match(
        r"^(?:\d+(?:\.\d+)*\.?|[A-Z]\.|(?:section|chapter|part|article)\s+\S+)\s+\S", line, re.I
    ):
        return True
    letters = [ch for ch in line if ch.isalpha()]
    if len(letters) >= 3 and all(ch.isupper() for ch in letters):
        return True
    return False


def clean_text(text: str) -> str:
    """Normalise Unicode (NFC), line endings and invisible characters, keeping line breaks."""
    text = unicodedata.normalize("NFC", text).translate(_INVISIBLE)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _ends_with_abbreviation(before: str) -> bool:
    words = before.rsplit(None, 1)
    if not words:
        return False
    word = words[-1].lstrip("(\"'").lower()
    if len(word) == 1 and word.isalpha():
        return True  # an initial such as "J. Smith" or a list letter
    return word in _ABBREVIATIONS or word.rstrip(".") in _ABBREVIATIONS
