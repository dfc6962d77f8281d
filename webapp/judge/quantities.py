"""Amounts, counts and sizes written in rule text: '$25,000', '€1.5m', '2,500 EUR', '10 MB', '15 days'."""

from __future__ import annotations

import re
from dataclasses import dataclass

from webapp.judge.text import STOPWORDS

# Crypto assets are amounts in their own unit: '5 BTC' is never 5 of another asset.
CRYPTO_CODES = frozenset("BTC ETH SOL USDT USDC XRP LTC DOGE ADA DOT MATIC AVAX".split())
CURRENCY_CODES = (
    frozenset(
        "USD EUR GBP JPY CHF CAD AUD INR CNY SEK NOK DKK PLN BRL MXN SGD HKD NZD ZAR CZK HUF TRY "
        "RUB BYN IRR KPW SYP CUP VES AED SAR QAR KRW TWD THB IDR MYR PHP ILS EGP NGN KES ARS CLP "
        "COP PEN UAH RON BGN ISK".split()
    )
    | CRYPTO_CODES
)
_SYMBOLS = {
    "$": "USD",
    "US$": "USD",
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "₹": "INR",
    "C$": "CAD",
    "A$": "AUD",
}
_CURRENCY_WORDS = {
    "dollar": "USD",
    "dollars": "USD",
    "euro": "EUR",
    "euros": "EUR",
    "pound": "GBP",
    "pounds": "GBP",
    "sterling": "GBP",
    "yen": "JPY",
    "francs": "CHF",
}
_MULTIPLIERS = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mm": 1e6,
    "mn": 1e6,
    "mio": 1e6,
    "million": 1e6,
    "millions": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
}
# unit word (lower case) -> (family, factor to the family's base unit)
UNITS: dict[str, tuple[str, float]] = {
    "%": ("percent", 1.0),
    # Mass, in kilograms ('parcels over 20 kg').
    "kg": ("mass", 1.0),
    "kgs": ("mass", 1.0),
    "kilo": ("mass", 1.0),
    "kilos": ("mass", 1.0),
    "kilogram": ("mass", 1.0),
    "kilograms": ("mass", 1.0),
    "g": ("mass", 1e-3),
    "mg": ("mass", 1e-6),
    "milligram": ("mass", 1e-6),
    "milligrams": ("mass", 1e-6),
    "mcg": ("mass", 1e-9),
    "gram": ("mass", 1e-3),
    "grams": ("mass", 1e-3),
    "lb": ("mass", 0.45359237),
    "lbs": ("mass", 0.45359237),
    "tonne": ("mass", 1e3),
    "tonnes": ("mass", 1e3),
    # jred32: 'max 1.2 t', 'min stock 2 t' (a bare 't' after a number: tonnes). Read as "the
    # number of t" the bound compared 500 `ballast_kg` with 2 and passed a floor of 2 t.
    "t": ("mass", 1e3),
    "percent": ("percent", 1.0),
    # 'leverage above 5x': a multiple, written glued to the number like '4h'.
    "x": ("ratio", 1.0),
    "pct": ("percent", 1.0),
    "b": ("bytes", 1.0),
    "byte": ("bytes", 1.0),
    "bytes": ("bytes", 1.0),
    "kb": ("bytes", 1e3),
    "kib": ("bytes", 1024.0),
    "mb": ("bytes", 1e6),
    "mib": ("bytes", 1024.0**2),
    "gb": ("bytes", 1e9),
    "gib": ("bytes", 1024.0**3),
    "tb": ("bytes", 1e12),
    "tib": ("bytes", 1024.0**4),
    "second": ("time", 1.0),
    "seconds": ("time", 1.0),
    "sec": ("time", 1.0),
    # jred32: 'cooldown at least 90 s': a bare 's' after a number is seconds (unread, 90 was
    # compared with `cooldown_ms`: 5000 ms passed as 'not below 90')
    "s": ("time", 1.0),
    "secs": ("time", 1.0),
    "minute": ("time", 60.0),
    "minutes": ("time", 60.0),
    "min": ("time", 60.0),
    "mins": ("time", 60.0),
    "hour": ("time", 3600.0),
    "hours": ("time", 3600.0),
    "hr": ("time", 3600.0),
    "hrs": ("time", 3600.0),
    "h": ("time", 3600.0),
    "day": ("time", 86400.0),
    "days": ("time", 86400.0),
    "d": ("time", 86400.0),
    "week": ("time", 604800.0),
    "weeks": ("time", 604800.0),
    "month": ("time", 2592000.0),
    "months": ("time", 2592000.0),
    # jred32: 'over 6 mo (loan_days)' had read a bare 6 against days
    "mo": ("time", 2592000.0),
    "mos": ("time", 2592000.0),
    # jred32: 'Max input lag 50 ms (input_lag_s)' had read a bare 50 and passed 0.2 s (200 ms)
    "ms": ("time", 0.001),
    "year": ("time", 31536000.0),
    "years": ("time", 31536000.0),
    # Lengths, in metres ('excavations deeper than 1.5 m'); a bare 'm' is a length only before a
    # word of size ('1.5m deep'), elsewhere it stays a million ('$1.5m').
    "metre": ("length", 1.0),
    "metres": ("length", 1.0),
    "meter": ("length", 1.0),
    "meters": ("length", 1.0),
    "cm": ("length", 0.01),
    "km": ("length", 1000.0),
    "ft": ("length", 0.3048),
    "feet": ("length", 0.3048),
    "foot": ("length", 0.3048),
    # Speeds, in metres per second ('max wind 20 mph', 'exceeds 20 m/s').
    "mph": ("speed", 0.44704),
    "kph": ("speed", 1 / 3.6),
    "kmh": ("speed", 1 / 3.6),
    "knot": ("speed", 0.514444),
    "knots": ("speed", 0.514444),
    "kts": ("speed", 0.514444),
}
# a word of length in a rule: a spaced 'm' beside it is metres (jred31)
_LENGTH_CONTEXT = re.compile(
    r"\b(?:depth|deep(?:er)?|height|high(?:er)?|tall(?:er)?|length|long(?:er)?|width|wide(?:r)?|"
    r"distance|clearance|headroom|altitude|elevation|radius|span|draft|draught|diameter)\b",
    re.I,
)
# 'm/s', 'km/h', and 'm' before a word of size: units the word pattern does not read.
_SPEED_OR_LENGTH = re.compile(
    r"\s?(?:(?P<speed>m/s|km/h|mph|kph|kmh|knots?|kts)\b"
    r"|(?P<m>m)\s+(?:deep|high|tall|long|wide|in\s+(?:depth|height|length|width))\b)",
    re.I,
)
# a word of duration right before its bound ('Tenor > 12m', 'Maturity: max 6m'); 'Term loans over
# 12m' is money (the word is not right before the bound)
_DURATION_HEAD = re.compile(
    r"\b(?:tenor|maturity|duration|lock-?up|vesting|term)\s*(?:\([^()]*\)\s*)?:?\s*"
    r"(?:max(?:imum)?|min(?:imum)?|<=?|>=?|up\s+to|at\s+most|at\s+least|over|under|above|below|"
    r"more\s+than|less\s+than|no\s+more\s+than|not\s+over)?\s*$",
    re.I,
)
# words of size before a bound ('Pallet height max 1.8 m', 'Depth: up to 2m')
# jred34: only the noun right before its bound ('Pallet height max 1.8m', 'Depth: up to 2m'); an
# adjective or a noun further back ('Long positions max 2m', 'Depth of book max 3m') is money, and
# read as metres, a 3,000,000 notional passed (unsafe)
_LENGTH_SUBJECT = re.compile(
    r"\b(?:height|length|width|depth|clearance|span|radius|diameter|thickness|distance|altitude|"
    r"elevation)\s*(?:\([^()]*\)\s*)?[:,]?\s*(?:max(?:imum)?|min(?:imum)?|<=?|>=?|\u2264|\u2265|"
    r"up\s+to|at\s+most|at\s+least|over|under|above|below|more\s+than|less\s+than|"
    r"no\s+more\s+than|not\s+over|(?:must|should)\s+(?:not\s+exceed|be\s+(?:under|below|at\s+most)))?"
    r"\s*$",
    re.I,
)
# Suffixes of argument names that carry a unit ('size_gb', 'ttl_seconds', 'amount_cents').
ARG_UNIT_SUFFIXES: dict[str, tuple[str, float]] = {
    **{k: v for k, v in UNITS.items() if len(k) > 1 and k not in ("min",)},
    "ms": ("time", 0.001),
    "g": ("mass", 1e-3),  # 'weight_g'
    "gr": ("mass", 1e-3),
    "cents": ("minor", 0.01),
    "cent": ("minor", 0.01),
    "minor": ("minor", 0.01),
    "pence": ("minor", 0.01),
    # jred31: suffixes staff write on arguments that no rule unit spells ('clearance_mm',
    # 'route_mi', 'term_yrs'): left without a unit, the value was compared as if in the rule's
    # own unit ('at least 2 m' passed `clearance_mm: 1500`)
    "mm": ("length", 0.001),
    "mi": ("length", 1609.344),
    "mile": ("length", 1609.344),
    "miles": ("length", 1609.344),
    "yd": ("length", 0.9144),
    "yds": ("length", 0.9144),
    "yards": ("length", 0.9144),
    "oz": ("mass", 0.028349523125),
    "wk": ("time", 604800.0),
    "wks": ("time", 604800.0),
    "yr": ("time", 31536000.0),
    "yrs": ("time", 31536000.0),
    "mo": ("time", 2592000.0),
    "mos": ("time", 2592000.0),
}
# an argument's unit suffix that names more than one unit ('depth_m': metres, minutes or months)
AMBIGUOUS_ARG_UNITS = frozenset({"m"})
_WORD_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "fifty": 50,
    "hundred": 100,
}

_NOT_NOUNS = frozenset(
    "need needs needed require requires required go goes are is be get gets per total in rolling "
    "total daily require must without except unless excluding other apart save "
    # adverbs of manner: 'up to $250 automatically' names no measure
    "automatically manually immediately instantly directly freely "
    # what is done past the bound once an arrow is read away ('above 1M USD -> escalate to …'):
    # a verb, never the thing counted (read as 'the number of escalate', it bound a count)
    "escalate escalated escalates route routed refer referred forward forwarded flag flagged "
    "notify reject rejected deny denied block blocked then "
    # a verdict on what comes before the bound ('up to 72 OK; above 72 -> review'): read as
    # 'the number of ok', it bound a count of nothing the request carries
    "ok okay fine allowed permitted auto auto-approve auto-approved autoapprove approve approved".split()
)
_PRE = r"(?P<pre>US\$|C\$|A\$|[$€£¥₹]|(?:" + "|".join(sorted(CURRENCY_CODES)) + r")\b)?\s?"
_NUM = r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:\.\d{3}){2,}|\d{1,3}(?: \d{3})+(?!\d)|\d+(?:\.\d+)?)"
_AFTER = (
    r"(?:\s?(?P<unit>%|[KMGT]i?B\b|bytes?\b)"
    r"|\s?(?P<mult>(?i:thousand|millions?|billion|mio|mm|mn|bn|k|m|b))\b)?"
    r"(?:\s?(?P<post>"
    + "|".join(sorted(CURRENCY_CODES))
    + r"|dollars?|euros?|pounds?|sterling|yen)\b)?"
)
# The lookahead fails fast wherever no number follows, before the long list of currency codes
# is tried (the list grew with crypto assets and more ISO codes).
_QUANTITY = re.compile(r"(?=(?:US\$|C\$|A\$|[$€£¥₹]|[A-Z]{3,5})?\s?\d)" + _PRE + _NUM + _AFTER)
_CAPPED_WORD = re.compile(
    r"\b(?:max(?:imum)?|at most|no more than|up to|limit(?:ed)? to)\s*:?\s*$", re.I
)
_PER_AFTER = re.compile(r"\s+per\s+[a-z]", re.I)
_WORD_QUANTITY = re.compile(r"\b(?P<word>" + "|".join(_WORD_NUMBERS) + r")\b", re.IGNORECASE)
_POINTS = re.compile(r"\s+points?\b", re.I)
_NEXT_WORD = re.compile(r"\s*(?:'s\s*|’s\s*)?([A-Za-z%][A-Za-z\-]*)")


@dataclass(frozen=True)
class Quantity:
    """A number found in rule text, with its currency or unit when written."""

    value: float
    start: int
    end: int
    currency: str | None = None
    unit_family: str | None = None  # percent | bytes | time | mass | None
    unit_factor: float = 1.0  # the value times this is in the family's base unit
    noun: str | None = None  # the word right after the number ('rows', 'instances', 'payouts')


def find_quantities(text: str) -> list[Quantity]:
    """Every quantity written in `text`, in order of appearance."""
    found: list[Quantity] = []
    for m in _QUANTITY.finditer(text):
        raw = m.group("num")
        # A year or an identifier digit ('eu-west-1', 't3.micro') is not a quantity.
        before = text[m.start("num") - 1] if m.start("num") > 0 else " "
        after = text[m.end("num")] if m.end("num") < len(text) else " "
        if (before.isalpha() or before in "-_/.:") and not m.group("pre"):
            continue
        special = (
            None
            if m.group("pre") or m.group("post")
            else _SPEED_OR_LENGTH.match(text, m.end("num"))
        )
        if special:
            unit = (special.group("speed") or "").lower()
            family, factor = (
                ("speed", 1.0)
                if unit == "m/s"
                else ("speed", 1 / 3.6)
                if unit == "km/h"
                else UNITS[unit]
                if unit
                else ("length", 1.0)
            )
            value = _parse_number(raw)
            found.append(Quantity(value, m.start(), special.end(), None, family, factor, None))
            continue
        glued = re.match(r"[A-Za-z]+", text[m.end("num") :])
        glued_unit = (
            bool(glued)
            and glued.group(0).lower() in UNITS
            and (len(glued.group(0)) > 1 or glued.group(0).lower() in ("h", "x"))
        )
        if after.isalpha() and not (
            m.group("mult") or m.group("unit") or m.group("post") or glued_unit
        ):
            continue  # '20kg' and '5GB' are quantities; 't3' or '2fa' are not
        if after in "-_/:" or (
            after == "." and m.end("num") + 1 < len(text) and text[m.end("num") + 1].isdigit()
        ):
            continue
        value = _parse_number(raw)
        currency = None
        if m.group("pre"):
            p = m.group("pre")
            currency = _SYMBOLS.get(p, p.upper() if p.upper() in CURRENCY_CODES else None)
        if m.group("post"):
            p = m.group("post")
            currency = p.upper() if p.upper() in CURRENCY_CODES else _CURRENCY_WORDS.get(p.lower())
        mult = m.group("mult")
        if mult == "m" and not currency and text[m.end("num") : m.start("mult")].isspace():
            # jred31: 'Dive depth max 30 m', 'clearance at least 2 m': a lower-case 'm' apart
            # from its number, with no currency, is metres as often as a million (read as
            # 30,000,000, a 40 m dive passed); the number is left unread (a human reads the
            # rule). Glued ('1.5m') it stays a million. Beside a word of length ('Dive depth
            # max 30 m') it is metres.
            if not _LENGTH_CONTEXT.search(text):
                continue
            found.append(
                Quantity(_parse_number(raw), m.start(), m.end(), None, "length", 1.0, None)
            )
            continue
        unit_family, factor = None, 1.0
        if (
            mult
            and mult.lower() == "m"
            and currency is None
            and _LENGTH_SUBJECT.search(text[max(0, m.start() - 40) : m.start()])
        ):
            # 'Pallet height max 1.8m' (glued; a spaced 'm' is read above): after a word of
            # size, an 'm' with no currency is metres (read as a million, 1.8 m approved a 200 cm
            # pallet: unsafe)
            unit_family = "length"
        elif (
            mult == "m"
            and currency is None
            and _DURATION_HEAD.search(text[max(0, m.start() - 40) : m.start()])
        ):
            # 'Tenor > 12m -> deny', 'Maturity max 6m': right after a word of duration and its
            # bound, a glued 'm' is months (read as 12 million, no tenor was ever over it)
            unit_family, factor = UNITS["months"]
        elif mult:
            value *= _MULTIPLIERS[mult.lower()]
        end = m.end()
        if m.group("unit"):
            unit_family, factor = UNITS[m.group("unit").lower()]
        noun = None
        nxt = _NEXT_WORD.match(text, end)
        if nxt and unit_family is None:
            word = nxt.group(1).lower()
            if word in UNITS and not (word == "m" or word == "b"):
                unit_family, factor = UNITS[word]
                end = nxt.end()
            elif word in ("percent", "per") and text[nxt.end() :].lower().startswith(" cent"):
                unit_family, factor = "percent", 1.0
            elif word in ("percentage", "basis") and (points := _POINTS.match(text, nxt.end())):
                # jred29: '2 percentage points' is 2 %, '150 basis points' 1.5 %; read as a
                # count of 'percentage', the bound compared no argument and approved a 2.5 % cut
                unit_family, factor = "percent", 1.0
                value = value if word == "percentage" else value / 100
                end = points.end()
            elif word not in STOPWORDS and word not in _NOT_NOUNS:
                noun = word
        found.append(Quantity(value, m.start(), end, currency, unit_family, factor, noun))
    for m in _WORD_QUANTITY.finditer(text):
        if any(q.start <= m.start() < q.end for q in found):
            continue
        value = float(_WORD_NUMBERS[m.group("word").lower()])
        nxt = _NEXT_WORD.match(text, m.end())
        unit_family, factor, noun, end = None, 1.0, None, m.end()
        if nxt:
            word = nxt.group(1).lower()
            if word in UNITS:
                unit_family, factor = UNITS[word]
                end = nxt.end()
            elif word not in STOPWORDS and word not in _NOT_NOUNS:
                noun = word
        if (
            unit_family is None
            and noun is None
            and not (_CAPPED_WORD.search(text[: m.start()]) and _PER_AFTER.match(text, m.end()))
        ):
            # 'one' alone is usually not a number in a rule ('one of the'); after 'max' / 'at
            # most' and before 'per' ('max one per grant') it is the cap
            continue
        found.append(Quantity(value, m.start(), end, None, unit_family, factor, noun))
    found.sort(key=lambda q: q.start)
    return found


def _parse_number(raw: str) -> float:
    if raw.count(".") >= 2:  # European thousands: 2.000.000
        return float(raw.replace(".", ""))
    return float(raw.replace(",", "").replace(" ", ""))


_THOUSANDS = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_DOT_THOUSANDS = re.compile(r"[+-]?[1-9]\d{0,2}(?:\.\d{3})+")


def parse_number_value(value: object) -> float | None:
    """A numeric argument value as a float; None for anything that is not a finite number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        f = float(value)
        return f if f == f and f not in (float("inf"), float("-inf")) else None
    if isinstance(value, str):
        s = value.strip().lstrip("$€£¥").strip()
        if "," in s and not _THOUSANDS.fullmatch(s):
            return None  # '800.000,00', '1,5': a decimal comma, not thousands: not guessed
        if _DOT_THOUSANDS.fullmatch(s):
            return None  # '800.000', '1.250.000': thousands or a decimal? not guessed
        s = s.replace(",", "").replace("_", "")
        try:
            f = float(s)
        except ValueError:
            return None
        return f if f == f and f not in (float("inf"), float("-inf")) else None
    return None


# Currencies a text names: ISO codes (upper case only: 'try', 'cup' and 'php' are words), the
# symbols and the unambiguous currency words ('pounds' is also a weight, so it is left out).
_CURRENCY_MENTION = re.compile(
    r"(?:US\$|C\$|A\$|[$€£¥₹])|\b(?:"
    + "|".join(sorted(CURRENCY_CODES - CRYPTO_CODES))
    + r")\b|\b(?i:dollars?|euros?|sterling|yen)\b"
)
# Wording that says amounts come in several currencies, or in one the text does not name.
_SEVERAL_CURRENCIES = re.compile(
    r"\b(?:currencies|multi-?currency|any currency|local currency|(?:account|original|"
    r"invoice|card|settlement|billing|home|functional) currency|equivalent|converted|conversion|"
    r"fx)\b",
    re.IGNORECASE,
)


def names_currency(text: str) -> bool:
    """Whether `text` names a currency or says amounts come in several."""
    return bool(_SEVERAL_CURRENCIES.search(text) or _CURRENCY_MENTION.search(text))


def single_currency(text: str) -> str | None:
    """The one fiat currency `text` names ('All amounts USD.', '$' in every rule), or None when it
    names none, several, or says that amounts come in several ('we run GBP, EUR and USD
    accounts', 'in the account currency')."""
    if _SEVERAL_CURRENCIES.search(text):
        return None
    named: set[str] = set()
    for m in _CURRENCY_MENTION.finditer(text):
        token = m.group(0)
        code = _SYMBOLS.get(token) or _CURRENCY_WORDS.get(token.lower()) or token.upper()
        named.add(code)
        if len(named) > 1:
            return None
    return next(iter(named), None)
