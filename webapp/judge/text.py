"""Tokens, a light stemmer and the small lexicon the rule engine and retrieval share."""

from __future__ import annotations

import re
from functools import lru_cache

_SPLIT = re.compile(r"[a-z0-9]+")
# 'PowerUserAccess' is three words; 'eGFR', 'iOS', 'mRNA' (one lower-case letter first) are one.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?<!\b[a-z])(?=[A-Z])")
_ACRONYM_PLURAL = re.compile(r"\b([A-Z]{2,})s\b")

STOPWORDS = frozenset(
    """a an the and or of to in on at by for from with without into onto as is are was were be
    been being it its this that these those there their they them we our us you your he she his
    her i me my any all each every some such no not nor than then so if when whenever while
    which who whom whose what where how do does did done has have had having will would shall
    should may might must can cannot could also only just very more most less least per via
    up down out over under above below again once both either neither own same other another
    ever never always after before during until unless within whether against
    don doesn didn isn aren wasn weren mustn shouldn shan couldn wouldn hasn haven
    please kindly""".split()
)

# Words that name who acts or how often, and say nothing about the request itself.
GENERIC = frozenset(
    """agent agents automat automated bot bots ai assistant system request requests call calls
    action actions operation operations tool tools anyone anybody anything everything someone
    something one single individual outgo outbound item items thing things way time times case
    cases user-initiated new kind rule rules them it everyon make do perform carry conduct
    take happen occur come get go goe""".split()
)

_IRREGULAR = {
    # British doubled l before -ed/-ing ('cancelled' meets 'cancel'; 'install' keeps its ll).
    **{
        f"{base}l{end}": base
        for base in ("cancel", "label", "travel", "model", "total", "signal", "channel", "fuel")
        for end in ("ed", "ing")
    },
    # 'final' is not 'fine' (both would lose their ending to 'fin')
    "final": "final",
    "finals": "final",
    # a station or a statement is not a state (all three would be 'stat'): `station` read as a
    # state field excepted an embargoed station from its own prohibition
    "station": "station",
    "stations": "station",
    "statement": "statement",
    "statements": "statement",
    # 'Every access grant must have an expiry' is met by `expires_at`: the noun meets the verb
    "expiry": "expir",
    "expiries": "expir",
    "paid": "pay",
    "sent": "send",
    "given": "give",
    "written": "writ",  # 'in writing', 'written confirmation', 'write
    "gave": "give",
    "made": "make",
    "ran": "run",
    "using": "use",
    "used": "use",
    "daily": "day",
    "data": "data",
    "was": "be",
    "is": "be",
    "are": "be",
    "prod": "product",
    "prd": "product",  # `key_id: prd-eu-1`: production, as in the environment names of gates.py
    "stg": "stag",
    "dev": "develop",
    "db": "databas",
    "dbs": "databas",
    "vm": "instanc",
    "vms": "instanc",
    "pct": "percent",
    "percentage": "percent",
    "url": "link",
    "urls": "link",
    "mail": "email",
    "emails": "email",
    "e-mail": "email",
    "annual": "year",
    "annually": "year",
    "yearly": "year",
    "monthly": "month",
    "weekly": "week",
    "hourly": "hour",
    "compensation": "salary",
    "wage": "salary",
    "wages": "salary",
    "pay-out": "payout",
    "pay-outs": "payout",
    "anonymized": "anonymis",
    "anonymised": "anonymis",
    "anonymize": "anonymis",
    "anonymise": "anonymis",
    "rollbacks": "rollback",
    "staging": "stag",
    "stage": "stag",
    "sre": "sre",
    "ids": "id",
    # Nouns of action whose stem misses their verb's ('Data erasures' governs erase_profile).
    "erasur": "eras",
    "closur": "clos",
    "cancell": "cancel",
    "modific": "modify",
    "submiss": "submit",
    "revoc": "revok",
    "suspens": "suspend",
    "deni": "deny",  # 'denial', 'denials' meet 'deny'
}

_SUFFIXES = (
    "ations",
    "ation",
    "ating",
    "ated",
    "ates",
    "ate",
    "ings",
    "ing",
    "ions",
    "ion",
    "ies",
    "sses",
    "ed",
    "es",
    "als",  # 'withdrawals' meets 'withdrawal' (-> 'withdraw'), 'approvals' meets 'approval'
    "al",
    "s",
    "e",
)
_DERIVATIONAL = ("ments", "ment", "ness", "fully", "ful", "ly")


@lru_cache(maxsize=65536)
def short_forms(term: str) -> tuple[str, ...]:
    """The short forms the lexicon reads as `term` ('product': 'prod', 'prd'), from _IRREGULAR."""
    return _SHORT_FORMS.get(term, ())


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Reduce a lower-case word to a crude stem so that 'deletion' meets 'delete'.

    Kept per word: a pure function of it, asked for the same few words by every request (the
    tool name's first word, a rule's counted noun) and again when rules are compiled."""
    w = word.lower().strip("'")
    if w.endswith("'s"):
        w = w[:-2]
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ied") and len(w) > 4:
        w = w[:-3] + "y"  # 'applied', 'modified', 'denied' meet 'apply', 'modify', 'deny'
    for suffix in _DERIVATIONAL:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            if suffix == "ly" and (w.endswith("ply") or len(w) - len(suffix) < 4):
                break  # 'apply', 'supply', 'reply' and 'early' are not adverbs
            w = w[: -len(suffix)]
            break
    for suffix in _SUFFIXES:
        if not w.endswith(suffix):
            continue
        base = w[: -len(suffix)]
        if suffix == "ies":
            base += "y"
        elif suffix == "sses":
            base += "ss"
        elif suffix == "s" and (w.endswith("ss") or w.endswith("us")):
            continue
        elif suffix == "es" and not re.search(r"(ss|sh|ch|x|z|s)$", base):
            base = w[:-1]  # 'invoices' -> 'invoice' -> handled below
            if base.endswith("e") and len(base) > 3:
                base = base[:-1]
        if len(base) < 3:
            continue
        w = base
        if suffix in ("ing", "ings") and w.endswith("ion") and len(w) > 6:
            # 'deprovisioning' meets 'deprovision' (-> 'deprovis'), 'versioning' 'version'
            w = w[:-3]
        break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "ls":
        w = w[:-1]  # 'skipp' -> 'skip', 'transferr' -> 'transfer'
    if len(w) > 6 and w.endswith("script"):
        w = w[:-6] + "scrib"  # 'prescriptions' meet 'prescribe', 'subscription' 'subscribe'
    return _IRREGULAR.get(w, w)


GENERIC = GENERIC | frozenset(stem(w) for w in GENERIC)


def words(text: str) -> list[str]:
    """Lower-case words of `text`, splitting snake_case, kebab-case, dotted and camelCase names."""
    # 'POs', 'SKUs', 'APIs': the plural of an acronym is the acronym ('create_po').
    text = _ACRONYM_PLURAL.sub(r"\1", text)
    text = _CAMEL.sub(" ", text).lower().replace("'s ", " ").replace("’s ", " ")
    return _SPLIT.findall(text)


@lru_cache(maxsize=32768)
def content_stems(text: str) -> tuple[str, ...]:
    """Stems of the words of `text` that carry meaning (no stopwords), in order."""
    return tuple(stem(w) for w in words(text) if w not in STOPWORDS)


def meaningful(stems: tuple[str, ...] | list[str] | set[str]) -> set[str]:
    """Drop generic stems that describe the actor rather than the action."""
    return {s for s in stems if s not in GENERIC and not s.isdigit()}


@lru_cache(maxsize=65536)
def normalise_value(value: str) -> str:
    """Compare argument values without case or separator noise ('Crypto Wallet' = 'crypto_wallet')."""
    return re.sub(r"[\s_\-]+", " ", value.strip().lower())


# 'prod' and 'prd' for 'product', 'stg' for 'stag': the irregular table read backwards, once.
_SHORT_FORMS: dict[str, tuple[str, ...]] = {}
for _short, _full in _IRREGULAR.items():
    if len(_short) < len(_full):
        _SHORT_FORMS[_full] = (*_SHORT_FORMS.get(_full, ()), _short)
