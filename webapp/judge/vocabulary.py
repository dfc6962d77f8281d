"""Vocabularies that decide membership of an open category: the tenant glossary and built-ins.

A rule that names a category ("privileged roles", "personal email accounts") can decide only
through one of these; otherwise it stays partly understood and goes to review (CONTRACT §6a).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from webapp.judge.text import stem, words

MAX_TERMS = 500
MAX_VALUES = 1000
MAX_VALUE_CHARS = 200


def term_key(phrase: str) -> str:
    """Case- and number-insensitive key of a term: 'Privileged Roles' and 'privileged role' agree."""
    return " ".join(stem(w) for w in words(phrase))


@dataclass(frozen=True)
class Glossary:
    """A tenant's terms, keyed case- and number-insensitively; `fingerprint` keys compiled caches."""

    terms: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    fingerprint: str = ""

    @classmethod
    def of(cls, raw: Mapping[str, list[str]] | Glossary | None) -> Glossary:
        if isinstance(raw, Glossary):
            return raw
        if not raw:
            return EMPTY
        keyed = {term_key(k): tuple(str(v) for v in vs) for k, vs in raw.items() if term_key(k)}
        digest = hashlib.sha256(
            json.dumps(sorted(keyed.items()), ensure_ascii=False).encode()
        ).hexdigest()[:16]
        return cls(keyed, digest)

    def lookup(self, phrase: str) -> tuple[str, ...] | None:
        """The values of the term `phrase` names, or of the longest term it ends with."""
        key = term_key(phrase)
        if key in self.terms:
            return self.terms[key]
        parts = key.split()
        for i in range(1, len(parts)):
            tail = " ".join(parts[i:])
            if len(parts) - i >= 2 and tail in self.terms:
                return self.terms[tail]
        # 'personal email accounts' against the term 'personal email': a term the phrase starts with
        for j in range(len(parts) - 1, 1, -1):
            head = " ".join(parts[:j])
            if head in self.terms:
                return self.terms[head]
        return None


EMPTY = Glossary()


_DOMAIN_SHAPED = re.compile(r"[a-z0-9][a-z0-9\-]*(?:\.[a-z0-9\-]+)+")
_SUFFIX_WORDS = frozenset("com net org co ac gov edu io me".split())


def _domain_words(domain: str) -> set[str]:
    """The words of a domain's name without its top level and generic second level."""
    labels = domain.split(".")[:-1]
    return {w for label in labels for w in re.findall(r"[a-z0-9]+", label)} - _SUFFIX_WORDS


_HOMOGLYPHS = str.maketrans("103584", "loesba")


def _one_edit(a: str, b: str) -> bool:
    """At most one letter changed, added or dropped."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) <= 1
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def _lookalike(v: str, mm: str) -> bool:
    """A domain made to look like a member: 'gmai1.com', 'gmall.com', 'rnail' for 'mail' (dev_jred30:
    a manifest sent to jo@gmai1.com against a glossary of gmail.com, yahoo.com was approved)."""
    a, b = v.split(".", 1)[0], mm.split(".", 1)[0]
    if a == b or len(b) < 4:
        return False
    a2 = a.translate(_HOMOGLYPHS).replace("rn", "m").replace("vv", "w")
    return a2 == b or _one_edit(a, b)


def near(value: str, members: tuple[str, ...]) -> bool:
    """A value close to a category's members without being one ('Billing Administrator')."""
    v = value.strip().lower()
    if "@" in v and _DOMAIN_SHAPED.fullmatch(v.rsplit("@", 1)[1].rstrip(">")):
        v = v.rsplit("@", 1)[1].rstrip(">")  # an address is compared by its domain
    vw = set(re.findall(r"[a-z0-9]+", v))
    for m in members:
        mm = m.strip().lower()
        if not mm:
            continue
        if mm in v or (len(v) >= 3 and v in mm):  # 'M' is not close to 'datamart-q3'
            return True
        if ":" in v and ":" in mm:
            continue  # 'repo:read' and 'repo:admin' are two scoped names, not near each other
        if "/" in v and "/" in mm and v.rsplit("/", 1)[0] == mm.rsplit("/", 1)[0]:
            continue  # 'roles/viewer' and 'roles/owner': two names under one path
        mw = set(re.findall(r"[a-z0-9]+", mm))
        words = vw
        if _DOMAIN_SHAPED.fullmatch(v) and _DOMAIN_SHAPED.fullmatch(mm):
            # two domains share their top level ('acme-shipping.com', 'gmail.com'): that makes
            # them no closer (holdout_56: every .com address was 'close' to a glossary of
            # personal mail providers); their names are compared without it
            if _lookalike(v, mm):
                return True
            # (the value's own words stay for the members that are not domains)
            words, mw = _domain_words(v), _domain_words(mm)
            if not words or not mw:
                continue
        if (
            words
            and mw
            and len(words & mw) >= max(1, min(len(words), len(mw)) // 2 + (1 if len(mw) > 2 else 0))
        ):
            return True
    return False


# Built-in vocabulary: consumer (personal) mail providers. An address at one of these is in the
# open category "personal email accounts"; an address anywhere else cannot be told apart from a
# company's own domain, so it stays undecided (review), never approved by default.
CONSUMER_MAIL_DOMAINS: tuple[str, ...] = (
    "gmail.com",
    "googlemail.com",
    "outlook.com",
    "hotmail.com",
    "hotmail.co.uk",
    "hotmail.fr",
    "live.com",
    "msn.com",
    "yahoo.com",
    "yahoo.co.uk",
    "yahoo.fr",
    "ymail.com",
    "icloud.com",
    "me.com",
    "mac.com",
    "aol.com",
    "proton.me",
    "protonmail.com",
    "pm.me",
    "gmx.com",
    "gmx.net",
    "gmx.de",
    "gmx.at",
    "web.de",
    "t-online.de",
    "mail.com",
    "zoho.com",
    "yandex.com",
    "yandex.ru",
    "mail.ru",
    "tutanota.com",
    "tuta.io",
    "fastmail.com",
    "hey.com",
    "orange.fr",
    "wanadoo.fr",
    "free.fr",
    "laposte.net",
    "libero.it",
    "qq.com",
    "163.com",
    "126.com",
    "naver.com",
)
_CONSUMER_MAIL_PHRASE = re.compile(
    r"^(?:personal|private|consumer|free|webmail)\s+(?:e-?mail|mail|webmail|inbox)"
    r"(?:\s+(?:account|address|domain|provider|inbox|box)e?s?)?$"
)


def builtin_category(phrase: str) -> str | None:
    """The built-in vocabulary that decides the open category `phrase`, if any ('consumer_mail')."""
    if _CONSUMER_MAIL_PHRASE.match(re.sub(r"\s+", " ", phrase.strip().lower())):
        return "consumer_mail"
    return None


# Built-in vocabulary of branded references: a rule asking for 'the Zendesk ticket number', 'a
# Jira key' or 'the ServiceNow change' names the system the reference lives in. An argument
# named for the system (`zendesk_ticket`, `jira_key`) is that reference; an argument named only
# for the thing (`ticket_id`, `change_ref`) is it only when its value is shaped like the system's
# references (a Jira key 'PAY-4411' in `ticket_id` is no Zendesk ticket: review, never approval).
# Each entry: the stems of the rule's words that name the system, the stems an argument's name
# uses for it, a readable name, and the shape of its references.
@dataclass(frozen=True)
class ReferenceBrand:
    rule_words: tuple[str, ...]
    key_words: frozenset[str]
    label: str
    shape: re.Pattern[str]


REFERENCE_BRANDS: tuple[ReferenceBrand, ...] = (
    ReferenceBrand(
        ("zendesk",),
        frozenset({"zendesk", "zd"}),
        "Zendesk ticket",
        re.compile(r"(?:zd|zen|zendesk)?[\s#\-]*\d{1,12}", re.I),
    ),
    ReferenceBrand(
        ("jira",),
        frozenset({"jira"}),
        "Jira key",
        re.compile(r"[A-Z][A-Z0-9_]{1,9}-\d{1,7}", re.I),
    ),
    ReferenceBrand(
        ("servicenow",),
        frozenset({"servicenow", "snow"}),
        "ServiceNow record",
        re.compile(r"(?:CHG|INC|RITM|REQ|PRB|TASK|CTASK|SCTASK|STRY|CS)\d{4,12}", re.I),
    ),
)


def reference_brands(source: str, arg_words: tuple[str, ...]) -> tuple[ReferenceBrand, ...]:
    """The systems a required reference names: a brand word among the argument's words, or
    'ServiceNow' written in the rule (split by case as 'service now') before them."""
    flat = re.sub(r"[\s\-]+", "", source.lower())
    return tuple(
        b
        for b in REFERENCE_BRANDS
        if any(w in arg_words for w in b.rule_words)
        or (b.rule_words == ("servicenow",) and "servicenow" in flat and "servic" in arg_words)
    )
