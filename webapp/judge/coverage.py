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
# The words that open a bound after a colon ('…: max 50k rows', '…: up to 2 per team', '…: at
# most $1,000'): a limit, never the list defining the category before the colon.
_BOUND_WORDS = (
    r"(?:max|maximum|min|minimum|up\s+to|at\s+most|at\s+least|no\s+more|not\s+more|"
    r"no\s+less|limit(?:ed)?|cap(?:ped)?|ceiling|floor|under|below|above|over|less\s+than|"
    r"more\s+than|[<>\u2264\u2265])"
)


# 'residents of sanctioned countries (residence_country)', '(open_claims > 0)': a bracket that
# names the argument the phrase speaks of lists no members (jgloss): the category stays open
_GLOSS_AFTER = re.compile(
    r"(?:\s+[a-z\-]+){0,2}\s*\(\s*[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+\s*"
    r"(?:\)|(?:=|==|!=|:|>|<|>=|<=|over|under|at\s+least|at\s+most)\s*[^,()]*\))"
)


# 'an open MEL Cat A item', 'Class B drugs': a one-letter name of a class, never an article
_CLASS_LETTER = re.compile(
    r"\b(?:cat|category|class|type|grade|tier|level|zone|group|schedule)\.?\s+([A-Z])\b", re.I
)


# Phrasings whose words the checks account for one by one while reading them wrongly as a
# whole. No recogniser reads them yet, so each leaves its word unaccounted for (partly
# understood: review), whatever the checks read:
# - a numbered grade of the subject ('Tier-1 agents', 'L1 agents', 'Tier 1 customers'): the
#   grade word was a subject word and its number was dropped, so the limit bound every tier;
# - a version bound ('below version 1.27', 'a version below 2.0', 'firmware v3 or lower',
#   'version 1.29 or later'): a version is not an amount, an age or a literal to contain;
# - a bound on what an act leaves behind ('withdrawals leaving a balance below $100', 'that
#   would leave less than $100', 'take the balance under $100'): the bound is on the balance
#   after the act, not on the request's amount;
# - an open last member of a list ('IR, KP or any country on the OFAC list'): read as a
#   condition on the listed values, it approved every country but the two;
# - a qualifier on the last member of a list ('us-east-1, us-west-2, and eu-west-1 for EU
#   customers only', 'USD, EUR and GBP for UK entities'): a condition on another argument;
# - a negated exception ('except those not above $100', 'unless not exceeding'): the
#   exception is of the opposite side, which the condition readers reverse;
# - 'no longer' before anything but a permission ('no longer need approval', 'are no longer
#   auto-approved'): read as the obligation without its negation;
# - a factor count ('2FA', '2SV') read as a literal value the argument must equal;
# - a round-the-clock or hyphenated qualifier of the people a permission names ('24/7 on-call
#   staff may restart services'): dropped, the permission allowed everyone;
# - 'X other than <word> X' ('domains other than client domains'): the word names a kind of X,
#   not a value X must equal;
# - an argument compared in notation ('retention_days >= 365 for audit logs', 'bulk
#   (record_count > 1000) -> deny'): read as a bound on the amount and a list holding the
#   argument's name, it approved a retention of 30 days.
# - a set written in braces ('scope in {contact, lead} ok'): read as subject words, 'contact'
#   and 'lead' had to be shown together;
# - a class named by a permission word ('must fall within the allowed relationship types',
#   'one of the permitted warehouses'): read as a permission of the whole subject, an
#   obligation became an allow.
# - a qualified actor of a permission ('Agents with the billing role may issue refunds up to
#   $100', 'Staff in the treasury team can …'): the cap was read, the actor's qualifier
#   dropped, and every agent got the permission.
# - a standard qualifying a kind ('PCI-DSS 4.0 scoped systems', 'HIPAA covered entities',
#   'SOX relevant apps'): read as a literal an argument must contain, a system flagged in scope
#   passed.
# - a department's acronym that is also a country code, alone after a place preposition
#   ('shared outside HR', 'must stay within IT'): read as Croatia or Italy, a share with a
#   recipient there passed;
# - a permission left to the agent with a qualifier ('Credits up to $50 for loyal customers:
#   agent discretion', '… : agent discretion for loyal customers'): the qualifier was read as a
#   subject word and the discretion as a cap, so a new customer's credit was approved.
_TRAPS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\b(?:agents?|reps?)(?:'s|')?\s+(?:discretion|decides|call)\s*[,;]?\s+(?:for|to|"
            r"on|with|if|when|where|unless|except|excluding|only|but|not)\b"
            r"|\b(?:for|to)\s+(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*\s*(?::|\s-|->)\s*"
            r"(?:at\s+(?:the\s+)?)?(?:agents?|reps?)(?:'s|')?\s+(?:discretion|decides|call)\b",
            re.I,
        ),
        "discretion",
    ),
    # a person present as the condition of an act ('up to $100 with a supervisor on the call'):
    # read as a subject word, a request naming a supervisor was cleared whoever was on the call
    (
        re.compile(
            r"\bwith\s+(?:a|an|the|their|one)\s+(?:[a-z]+\s+)?(?P<w>[a-z]+)\s+(?:on\s+the\s+"
            r"(?:call|line|phone)|present|in\s+the\s+loop|on\s+hand|watching|attending|cc'?d)\b",
            re.I,
        ),
        "",
    ),
    # a frequency beside a bound ('may issue credits up to $50 once per customer', '… up to
    # $100 without review, once per customer'): read as a subject word beside the bound, it had
    # approved a third credit ('once per order' alone is a count, read by the count readers)
    (
        re.compile(
            r"\d[^.;]*?\b(?P<w>once|twice|thrice|\d+\s+times|one\s+time)\s+"
            r"(?:per|a|an|each|every|in)\b"
            r"|\b(?P<w2>once|twice|thrice|one\s+time)\s+(?:per|a|an|each|every|in)\b[^.;]*?\d",
            re.I,
        ),
        "",
    ),
    (
        re.compile(
            r"\b(?:outside|within|inside|beyond|except|but)\s+(?:of\s+)?(?:the\s+)?"
            r"(?P<w>HR|IT|PR|QA|IS|PA|MA)\b(?!\s*(?:,|/|\bor\b|\band\b)\s*[A-Z]{2}\b)"
            r"(?<!(?:,|/)\s[A-Z]{2})"
        ),
        "",
    ),
    (
        re.compile(
            r"\b(?P<w>[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)(?:\s+v?\d+(?:\.\d+)*)?\s+"
            r"(?:scoped|in-scope|covered|certified|compliant|regulated|relevant|governed|"
            r"controlled|audited|designated)\s+[a-z]+s\b"
        ),
        "",
    ),
    (
        re.compile(
            r"^\s*(?:(?:only|all|any)\s+)?(?:[a-z][a-z\-]*\s+)?(?:agents?|bots?|users?|staff|employees?|"
            r"operators?|analysts?|engineers?|members?|people|personnel|accounts?)\s+"
            r"(?P<w>with|in|on|from|holding|having)\s+[^,;.]*?\b(?:may|can|are\s+allowed|"
            r"are\s+permitted)\b(?!'t|not\b|\s+not\b|\s+never\b|\s+only\b)",
            re.I,
        ),
        "",
    ),
    (re.compile(r"\b(?P<w>in|of|not\s+in)\s*\{[^}]*\}", re.I), ""),
    (
        re.compile(
            r"\b(?:within|in|among|to|from|of|on|by)\s+(?:one\s+of\s+)?(?:the|our|their|its)\s+"
            r"(?P<w>allowed|permitted|approved|authori[sz]ed|accepted|whitelisted|allowlisted)\s+"
            # ('on the approved list: WH-01, WH-02' gives its list: read by the list)
            r"(?!(?:[a-z\-]+\s+)?(?:list|lists|register|registry)\b)[a-z]",
            re.I,
        ),
        "",
    ),
    (re.compile(r"\b(?P<w>[a-z]+_[a-z0-9_]+)\s*(?:>=|<=|=>|=<|>|<|\u2265|\u2264)\s*\d"), ""),
    (
        re.compile(
            r"\bno\s+(?P<w>longer)\b(?!\s+(?:be\s+)?(?:allowed|permitted|accepted|supported|"
            r"authori[sz]ed|possible)\b)",
            re.I,
        ),
        "",
    ),
    (re.compile(r"\b(?P<w>\d(?:FA|SV))\b"), ""),
    (
        re.compile(
            r"(?:\b(?P<w>24/7)|\b(?P<w2>(?:on|off|in|out|up)-[a-z]+))\s+(?:[a-z][a-z\-]*\s+){0,2}?"
            r"(?:staff|engineers?|agents?|users?|employees?|members?|personnel|teams?|admins?|"
            r"managers?|operators?|analysts?|leads?|people)\s+(?:may|can|are\s+allowed|"
            r"are\s+permitted)\b",
            re.I,
        ),
        "",
    ),
    (
        re.compile(
            r"\b(?P<n>[a-z]+s)\s+other\s+than\s+(?:the\s+|our\s+|their\s+)?(?P<w>[a-z]+)\s+(?P=n)\b",
            re.I,
        ),
        "",
    ),
    (
        re.compile(
            r"\b(?P<w>(?:tier|level|lvl|grade|band|l|t)(?:[- ]?\d{1,2}))\b"
            r"(?![.,\-]?\d)(?=\s+(?:\([^)]{1,40}\)\s+)?"
            r"(?:(?!(?:is|was|has|does|as|its|this|us)\b)[a-z][a-z\-]*\s+){0,2}?"
            r"(?!(?:is|was|has|does|as|its|this|us)\b)[a-z][a-z\-]{2,}s\b)",
            re.I,
        ),
        "",
    ),
    (
        re.compile(
            r"\b(?P<w>versions?|firmware|release|build|v(?=\d))(?:\b\s*|(?<=[vV]))\d[\d.]*"
            r"(?=[^,;.]{0,20}\b(?:or\s+(?:lower|higher|later|earlier|newer|older|above|below|"
            r"less|more|greater)|and\s+(?:lower|higher|later|earlier|newer|older|above|below)|"
            r"onwards?|or\s+up)\b)"
            r"|(?:\b(?:below|under|above|over|older\s+than|newer\s+than|earlier\s+than|"
            r"later\s+than|less\s+than|lower\s+than|greater\s+than|higher\s+than|at\s+least|"
            r"at\s+most|before|after|prior\s+to|<=?|>=?)\s+(?P<w2>versions?|v(?=\d)|firmware|"
            r"release|build|v(?=\d))(?:\b\s*|(?<=[vV]))\d)"
            r"|\b(?P<w3>versions?|firmware|releases?|builds?)\s+(?:\w+\s+){0,2}?"
            r"(?:below|under|above|over|older\s+than|newer\s+than|earlier\s+than|later\s+than|"
            r"less\s+than|lower\s+than|greater\s+than|higher\s+than|at\s+least|at\s+most|"
            r"<=?|>=?)\s*v?\d",
            re.I,
        ),
        "version",
    ),
    (
        re.compile(
            r"\b(?P<w>leav(?:e|es|ing)(?=\s+(?:(?:a|an|the|its|their|behind|only)\s+)?"
            r"(?:(?:account|wallet|remaining|available|minimum|cash|stock)\s+)*"
            r"(?:balances?|less\s+than|fewer\s+than|more\s+than|at\s+least|under|below|"
            r"above|over|nothing|zero|negative)\b)|(?:remaining|resulting)(?=\s+balance\b)|"
            r"(?:take|takes|taking|bring|brings|"
            r"bringing|put|puts|putting|push|pushes|pushing)(?=\s+(?:the\s+|its\s+|their\s+|"
            r"an?\s+)?(?:account\s+|wallet\s+|remaining\s+|available\s+)?balance\b))\b"
            r"[^,;.]{0,50}?\b(?:below|under|less\s+than|fewer\s+than|beneath|at\s+least|above|"
            r"over|more\s+than|lower\s+than|negative|zero)\b",
            re.I,
        ),
        "",
    ),
    (
        re.compile(
            r"(?:,|\bor\b|\band\b)\s+(?:to\s+|from\s+|with\s+)?(?P<w>any|every|all|other)\s+"
            r"(?:[a-z][a-z\-]*\s+){0,3}?(?:on|in|from|under|of)\s+(?:the|our|a|an|any)\b",
            re.I,
        ),
        "",
    ),
    (
        re.compile(
            r"(?:,|\band\b|\bor\b)\s+[\w.\-]*\d[\w.\-]*\s+(?P<w>for)\s+[^,;.]{1,40}?\bonly\b"
            r"|(?:,\s*|\b)[A-Z][A-Z0-9\-]{1,}\s+(?:and|or)\s+[A-Z][A-Z0-9\-]{1,}\s+"
            r"(?P<w2>for)\s+(?:[A-Za-z\-]+\s+){0,2}[a-z]+s\b",
            re.I,
        ),
        "",
    ),
    (
        re.compile(
            r"\b(?P<w>except|unless)\b(?:\s+(?:for|where|when|if|those|these|ones|they|it|that|"
            r"which|the|do|does|is|are|amounts?))*\s+(?:not|no|never|n't)\b",
            re.I,
        ),
        "",
    ),
)


def misread_traps(text: str) -> list[str]:
    """The words of the phrasings in `_TRAPS` that `text` holds (left unaccounted for)."""
    out: list[str] = []
    for rx, word in _TRAPS:
        for m in rx.finditer(text):
            named = [v for k, v in sorted(m.groupdict().items()) if k.startswith("w") and v]
            got = word or (named[0] if named else m.group(0))
            if got.lower() not in (w.lower() for w in out):
                out.append(got)
    return out


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
        # ('sensitive session duration: 12 hours max'), not a list, and so is a bound word
        # before one ('Blacklisted exports: max 50k rows': the category is still open).
        is_closed = bool(
            re.match(
                r"(?:\s+[a-z\-]+){0,2}\s*[(:]\s*(?![$€£¥]?\s*\d)(?!\s*" + _BOUND_WORDS + r")",
                text[end:],
                re.I,
            )
        ) and not _GLOSS_AFTER.match(text[end:])
        if is_closed != closed:
            continue
        phrase = m.group("qual").lower() + " " + " ".join(kept)
        out.append((m.start(), end, phrase))
    return out


# 'and a permit', 'needs a valid work permit': the noun asked for, not the verb ('permitted'); as
# the subject ('A building permit may be issued …') subject matching reads it.
_NOUN_BEFORE = re.compile(
    r"\b(?:and|with|plus|needs?|requires?|have|has|carry|carries|hold|holds|without|obtain|"
    r"show|shows)\s+(?:(?:a|an|the|valid|work|its|their|his|her|no|signed|approved|current|"
    r"building|hot[- ]work|environmental|entry|access|export|import|special|site)\s+){1,3}$",
    re.I,
)


def permit_asked(text: str) -> bool:
    """Whether `text` asks for a permit as a thing ('… and a permit', 'needs a valid work
    permit'), which the effect word 'permitted' does not account for."""
    return any(
        _NOUN_BEFORE.search(text[max(0, m.start() - 40) : m.start()])
        for m in re.finditer(r"\bpermits?\b", text, re.I)
    )


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
