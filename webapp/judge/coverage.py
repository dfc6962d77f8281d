"""The understanding invariant: which words of a rule its compiled checks account for.

A rule is *understood* only when every content word of it is accounted for: it names what the
rule is about (a check's subject words, bound to the tool name or arguments at evaluation), the
value or list a check compares with, the quantity and its unit, the effect ("must not", "needs
review") or the time window. Two kinds of words are never accounted for by subject matching alone,
because reading them as subject words is exactly the guess that approved forbidden requests:

- a condition ("unless the balance is zero", "only if the identity check passed", "except for
  orders under 20 EUR", "when ..."): its marker and every word after it in the clause stay
  unaccounted for unless a recogniser consumed that condition;
- an open category named by a qualifier ("personal email accounts", "privileged roles",
  "sanctioned countries", "external domains"): membership can be decided only through a
  vocabulary (built-in or the tenant glossary), so its words stay unaccounted for unless one
  resolved it.

A rule with any word unaccounted for is *partly understood*: it never approves or denies on its
own; the engine judges it as text (review, or the language model when one is configured).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from webapp.judge.text import GENERIC, STOPWORDS, stem, words

# Words that carry a rule's force, its numbers' comparison or its time window: accounted for by
# the effect, the boundary table or the window of every check, whatever its kind.
_FUNCTION_WORDS = frozenset(
    stem(w)
    for w in """
    must shall should never not no may can cannot could would will need needs needed require
    requires required requirement mandatory prohibited prohibit forbidden forbid forbids banned
    ban disallowed allowed allow permitted permit ok okay fine always only any every each all
    more less than over above under below exceed exceeds exceeding excess at least most up
    beyond greater fewer larger lower higher smaller max maximum min minimum limit limited cap
    capped ceiling floor within stay remain kept keep strictly strict hard
    approval approve approved review reviewed sign off signoff signed human manual manually
    per day daily hour hourly week weekly month monthly year yearly annually today calendar
    single one go time times total agent agents automatically auto nobody
    blocked block blocks illegal restricted restriction restrictions without
    be is are was were been being has have had do does done doesn't don't can't won't isn't
    aren't mustn't shan't period whatsoever anything else but
    include includes contain contains reference references specify specifies provide provides
    cite cites carry carries mention mentions state states attach attached supply give
    field argument parameter param arg list following freeze frozen locked named called
    """.split()
)

# Condition markers. A recogniser that handles the condition lists it in `consumed_conditions`.
CONDITION = re.compile(
    r"\b(?P<marker>unless|except(?:\s+(?:for|when|if|where))?|only\s+(?:if|when|after|once|while)|"
    r"provided(?:\s+that)?|providing|as\s+long\s+as|so\s+long\s+as|if|when|whenever|until|"
    r"in\s+case|without(?!\s+(?:any\s+)?(?:restrictions?|limits?)\b)|who|whose|which|"
    # a time or a state the request is in ('while an incident is open', 'during a chargeback
    # dispute', 'once they are approved', 'once the term is closed'): as subject words they were
    # matched by any argument sharing a word, and dropped when none did ('Refunds may not be
    # issued during a dispute' approved every refund); not a count ('once per day', 'at once',
    # 'once a week', 'once every 3 days')
    r"while|whilst|during|throughout|for\s+the\s+duration\s+of|as\s+soon\s+as|"
    r"(?<!\bat\s)once(?!\s+(?:per|an?\s+(?:day|week|month|year|quarter|hour|shift|session)|"
    r"every\s+(?:\d|day|week|month|year|quarter|hour)|daily|weekly|monthly|yearly|only|more|"
    r"again)\b)|"
    r"that(?!\s+(?:is|are)\b))\b(?P<rest>[^,;.]*)",
    re.I,
)

ONLY_MARKER = re.compile(
    r"(?<![-\w])(?:only|exclusively|solely|limited to|restricted to)\b"
    r"(?!\s+(?:if|when|after|once|while)\b)(?!\s*(?:[$€£¥]|[A-Z]{3}\s)?\s*\d)"
    # 'only within 14 days', 'only up to 5 seats': the bound itself, read by the limit
    r"(?!\s+(?:within|up to|under|below)\s+(?:[$€£¥]|[A-Z]{3}\s)?\s*\d)",
    re.I,
)

# Qualifiers that turn a noun into an open category whose members no rule text lists.
CATEGORY_QUALIFIERS = frozenset(
    {
        "personal",
        "private",
        "consumer",
        "external",
        "privileged",
        "sanctioned",
        "restricted",
        "debarred",
        "blacklisted",
        "denylisted",
        "embargoed",
        "sensitive",
        "confidential",
        "controlled",
        "high-risk",
        "risky",
        "suspicious",
        "untrusted",
        "unapproved",
        "unvetted",
        "vip",
        "third-party",
        "non-approved",
        "unencrypted",
        "insecure",
        "unverified",
        "non-compliant",
        "preferred",
        "trusted",
        "competing",
    }
)
_QUALIFIER = re.compile(
    r"\b(?P<qual>" + "|".join(re.escape(q) for q in sorted(CATEGORY_QUALIFIERS)) + r")\s+"
    r"(?P<noun>[a-z][a-z\-]*(?:\s+[a-z][a-z\-]*){0,2})\b",
    re.I,
)
# "on the debarred list", "the restricted list": the qualifier names a list nobody gave.
_NAMED_LIST = re.compile(
    r"\b(?:on|in|from|to|against)\s+(?:the|our|a|an|any)\s+(?P<name>(?!other\b)(?:[a-z][a-z\-]*\s+){1,2}"
    r"(?:list|lists|register|registry|watchlist|blacklist|blocklist))\b",
    re.I,
)
# "only to contacts on the approved list", "only with members of the finance team": the phrase
# after the inner preposition restricts to a class the rule does not list. Its words are never
# accounted for by subject matching, only by a value a check compares with or a vocabulary.
RESTRICTING = re.compile(
    r"\bonly\s+(?:(?:be\s+)?[a-z]+\s+)?(?:to|with|for|by|from|in|on|at|between)\s+[^,;.]*?"
    r"\b(?:in|on|of|from|at|within|inside|under|belonging\s+to)\s+"
    r"(?P<owner>(?:the|our|a|an|its|their|this|that)\s+(?:(?!\b(?:and|but|or)\b)[^,;.])+)",
    re.I,
)
# 'above that', 'more than that': an anaphor, not a relative clause.
_ANAPHOR_BEFORE = re.compile(
    r"\b(?:above|over|below|under|beyond|than|exceeds?|exceeding)\s*$", re.I
)
_RELATIVES = frozenset({"who", "whose", "which", "that"})
_PREPOSITIONS = frozenset(
    "through via across into onto within during before after from to for with by on in at of "
    "over under towards toward per".split()
)
_LIST_NOUNS = frozenset({"list", "lists", "register", "registry"})


# 'an open MEL Cat A item', 'Class B drugs': a one-letter name of a class, never an article
_CLASS_LETTER = re.compile(
    r"\b(?:cat|category|class|type|grade|tier|level|zone|group|schedule)\.?\s+([A-Z])\b", re.I
)


def content_words(text: str) -> list[str]:
    """The words of `text` that carry content (in order, lower case, repeated ones once)."""
    out: list[str] = []
    seen: set[str] = set()
    for w in words(text):
        if w.isdigit() or len(w) < 2:
            continue
        s = stem(w)
        if w in STOPWORDS or s in STOPWORDS or s in GENERIC or s in _FUNCTION_WORDS:
            continue
        if w in seen:
            continue
        seen.add(w)
        out.append(w)
    return out


def condition_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, marker) of every condition in `text`, marker lower-cased with single spaces."""
    spans = []
    # Every marker starts a span of its own, even inside an earlier marker's span ('customers
    # who opted out must not be emailed unless …'): a consumed outer one never hides an inner one.
    pos = 0
    while True:
        m = CONDITION.search(text, pos)
        if m is None:
            break
        pos = m.end("marker")
        marker = re.sub(r"\s+", " ", m.group("marker").lower())
        if marker in _RELATIVES:
            if _ANAPHOR_BEFORE.search(text[: m.start()]):
                continue
            if re.search(r"\d", m.group("rest")):
                continue  # 'queries that return more than 1 million records': the limit reads it
        spans.append((m.start(), m.end(), marker))
    return spans


def category_phrases(text: str, closed: bool = False) -> list[tuple[int, int, str]]:
    """(start, end, phrase) of every open category named in `text` ("privileged roles").

    With `closed`, the categories that a literal list right after them defines instead
    ("sanctioned countries (Iran, Cuba)", "personal email addresses (gmail.com, ...)").
    """
    out = []
    # 'on the watch list', 'in the vendor register': a list the rule does not give.
    for m in _NAMED_LIST.finditer(text):
        closed_here = bool(re.match(r"\s*[(:]", text[m.end() :]))
        if closed_here == closed:
            name = re.sub(r"\s+", " ", m.group("name").strip().lower())
            out.append((m.start("name"), m.end(), name))
    for m in _QUALIFIER.finditer(text):
        noun_words = m.group("noun").lower().split()
        all_words = list(noun_words)
        if noun_words[0] in STOPWORDS:
            continue  # 'restricted to the acme.com domain' is a list, not a category
        # 'a blacklisted single trade': a function word between the qualifier and its noun
        while (
            noun_words
            and stem(noun_words[0]) in _FUNCTION_WORDS
            and noun_words[0] not in _LIST_NOUNS
            and noun_words[0] not in STOPWORDS
        ):
            noun_words = noun_words[1:]
        if not noun_words or noun_words[0] in STOPWORDS:
            continue
        kept = []
        for w in noun_words:  # the noun phrase ends at the first function word
            if (
                w in STOPWORDS
                or w in _PREPOSITIONS
                or (stem(w) in _FUNCTION_WORDS and w not in _LIST_NOUNS)
            ):
                break
            kept.append(w)
        skipped = all_words[: len(all_words) - len(noun_words)]
        end = m.start("noun") + len(" ".join(skipped + kept))
        # A list after a colon or in brackets defines the category; a number there is a limit
        # ('sensitive session duration: 12 hours max'), not a list.
        is_closed = bool(
            re.match(r"(?:\s+[a-z\-]+){0,2}\s*[(:]\s*(?![$€£¥]?\s*\d)", text[end:], re.I)
        )
        if is_closed != closed:
            continue
        phrase = m.group("qual").lower() + " " + " ".join(kept)
        out.append((m.start(), end, phrase))
    return out


def unaccounted_words(
    text: str,
    accounted_stems: Iterable[str],
    consumed_conditions: Iterable[str] = (),
    resolved_categories: Iterable[str] = (),
    value_stems: Iterable[str] = (),
    value_spans: Iterable[tuple[int, int]] = (),
) -> tuple[str, ...]:
    """The content words of rule `text` that no check accounts for, in the order they appear.

    `accounted_stems` are the stems the checks read (subject, values, measure, argument names);
    `consumed_conditions` the condition markers a recogniser handled; `resolved_categories` the
    category phrases a vocabulary resolved.
    """
    accounted = set(accounted_stems)
    for _, _, phrase in category_phrases(text, closed=True):
        accounted.update(stem(w) for w in words(phrase))
    consumed = {c.lower() for c in consumed_conditions}
    resolved = {c.lower() for c in resolved_categories}
    for phrase in resolved:  # a category a vocabulary resolved is read by its membership check
        accounted.update(stem(w) for w in words(phrase))
    # Spans whose words are not accounted for by subject matching.
    blind: list[tuple[int, int]] = []
    forced: list[str] = []
    for start, end, marker in condition_spans(text):
        if marker in consumed:
            continue
        blind.append((start, end))
        forced.append(marker.split()[0])
    # 'only' restricts to something: unless an allow-list consumed it, it is a guess to drop it.
    if "only" not in consumed:
        for m in ONLY_MARKER.finditer(text):
            forced.append(m.group(0).lower().split()[0])
    for start, end, phrase in category_phrases(text):
        if phrase in resolved or any(r in phrase for r in resolved):
            accounted.update(stem(w) for w in words(phrase))
            continue
        blind.append((start, end))
        forced.append(phrase.split()[0])
    # A restricting phrase is read only by values and vocabularies, never by subject words.
    values = set(value_stems)
    for _, _, phrase in category_phrases(text, closed=True):
        values.update(stem(w) for w in words(phrase))
    for phrase in resolved:
        values.update(stem(w) for w in words(phrase))
    restricting = [
        (m.start("owner"), m.end("owner"))
        for m in RESTRICTING.finditer(text)
        # 'in the hr-ops group' names a closed list a check compares with: read by that check.
        if not any(stem(w) in values or w in values for w in words(m.group("owner")) if len(w) > 1)
    ]
    out: list[str] = []
    pos = 0
    # Where a literal value a check compares with is written: read whole by that check.
    literal = list(value_spans)
    # the class a one-letter name gives ('Cat A'): read only by a check that lists the letter
    letters = {m.start(1) for m in _CLASS_LETTER.finditer(text) if m.group(1).isupper()}
    for m in re.finditer(r"[A-Za-z][A-Za-z0-9_\-']*", text):
        w = m.group(0)
        pos = m.start()
        if any(s <= pos < e for s, e in literal):
            continue
        if pos in letters and w.lower() not in values and w not in values:
            if w not in out:
                out.append(w)
            continue
        in_blind = any(s <= pos < e for s, e in blind)
        in_restricting = any(s <= pos < e for s, e in restricting)
        for part in content_words(w):
            if in_restricting and stem(part) not in values and stem(part.lower()) not in values:
                if part not in out:
                    out.append(part)
            elif in_blind or stem(part) not in accounted:
                if part not in out:
                    out.append(part)
    for f in forced:
        if f not in out:
            out.append(f)
    return tuple(out)
