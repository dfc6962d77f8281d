"""Countries and regions, so that 'Iran' in a rule meets 'IR' in the arguments and 'EMEA' meets 'FR'."""

from __future__ import annotations

import re
from functools import lru_cache

# code | names (comma separated, lower case) | regions
_TABLE = """
AT|austria|EU EEA EMEA EUROPE
BE|belgium|EU EEA EMEA EUROPE
BG|bulgaria|EU EEA EMEA EUROPE
HR|croatia|EU EEA EMEA EUROPE
CY|cyprus|EU EEA EMEA EUROPE
CZ|czechia,czech republic|EU EEA EMEA EUROPE
DK|denmark|EU EEA EMEA EUROPE
EE|estonia|EU EEA EMEA EUROPE
FI|finland|EU EEA EMEA EUROPE
FR|france|EU EEA EMEA EUROPE
DE|germany|EU EEA EMEA EUROPE
GR|greece|EU EEA EMEA EUROPE
HU|hungary|EU EEA EMEA EUROPE
IE|ireland|EU EEA EMEA EUROPE
IT|italy|EU EEA EMEA EUROPE
LV|latvia|EU EEA EMEA EUROPE
LT|lithuania|EU EEA EMEA EUROPE
LU|luxembourg|EU EEA EMEA EUROPE
MT|malta|EU EEA EMEA EUROPE
NL|netherlands,the netherlands,holland|EU EEA EMEA EUROPE
PL|poland|EU EEA EMEA EUROPE
PT|portugal|EU EEA EMEA EUROPE
RO|romania|EU EEA EMEA EUROPE
SK|slovakia|EU EEA EMEA EUROPE
SI|slovenia|EU EEA EMEA EUROPE
ES|spain|EU EEA EMEA EUROPE
SE|sweden|EU EEA EMEA EUROPE
NO|norway|EEA EMEA EUROPE
IS|iceland|EEA EMEA EUROPE
LI|liechtenstein|EEA EMEA EUROPE
CH|switzerland|EMEA EUROPE
GB|united kingdom,uk,great britain,britain,england|EMEA EUROPE
UA|ukraine|EMEA EUROPE
RS|serbia|EMEA EUROPE
TR|turkey,turkiye|EMEA EUROPE
RU|russia,russian federation|EMEA EUROPE
BY|belarus|EMEA EUROPE
AE|united arab emirates,uae|EMEA MIDDLE_EAST
SA|saudi arabia|EMEA MIDDLE_EAST
IL|israel|EMEA MIDDLE_EAST
QA|qatar|EMEA MIDDLE_EAST
IR|iran|EMEA MIDDLE_EAST
IQ|iraq|EMEA MIDDLE_EAST
SY|syria|EMEA MIDDLE_EAST
LB|lebanon|EMEA MIDDLE_EAST
YE|yemen|EMEA MIDDLE_EAST
EG|egypt|EMEA AFRICA
ZA|south africa|EMEA AFRICA
NG|nigeria|EMEA AFRICA
KE|kenya|EMEA AFRICA
MA|morocco|EMEA AFRICA
SD|sudan|EMEA AFRICA
SS|south sudan|EMEA AFRICA
LY|libya|EMEA AFRICA
SO|somalia|EMEA AFRICA
US|united states,united states of america,usa,america|AMER NA AMERICAS
CA|canada|AMER NA AMERICAS
MX|mexico|AMER LATAM AMERICAS
BR|brazil|AMER LATAM AMERICAS
AR|argentina|AMER LATAM AMERICAS
CL|chile|AMER LATAM AMERICAS
CO|colombia|AMER LATAM AMERICAS
PE|peru|AMER LATAM AMERICAS
VE|venezuela|AMER LATAM AMERICAS
CU|cuba|AMER LATAM AMERICAS
NI|nicaragua|AMER LATAM AMERICAS
JP|japan|APAC ASIA
CN|china|APAC ASIA
HK|hong kong|APAC ASIA
TW|taiwan|APAC ASIA
KR|south korea,korea|APAC ASIA
KP|north korea,dprk|APAC ASIA
SG|singapore|APAC ASIA
IN|india|APAC ASIA
ID|indonesia|APAC ASIA
MY|malaysia|APAC ASIA
TH|thailand|APAC ASIA
VN|vietnam,viet nam|APAC ASIA
PH|philippines|APAC ASIA
PK|pakistan|APAC ASIA
AF|afghanistan|APAC ASIA
MM|myanmar,burma|APAC ASIA
AU|australia|APAC OCEANIA
NZ|new zealand|APAC OCEANIA
"""

COUNTRY_NAMES: dict[str, str] = {}  # name -> code
COUNTRY_REGIONS: dict[str, frozenset[str]] = {}  # code -> regions
for _line in _TABLE.strip().splitlines():
    _code, _names, _regions = _line.split("|")
    COUNTRY_REGIONS[_code] = frozenset(_regions.split())
    for _name in _names.split(","):
        COUNTRY_NAMES[_name] = _code

# 'Russian or Belarusian IBANs', 'Iranian vendors': an adjective names its country.
_DEMONYMS = {
    "russian": "RU",
    "belarusian": "BY",
    "iranian": "IR",
    "iraqi": "IQ",
    "syrian": "SY",
    "cuban": "CU",
    "north korean": "KP",
    "venezuelan": "VE",
    "chinese": "CN",
    "german": "DE",
    "french": "FR",
    "british": "GB",
    "american": "US",
    "canadian": "CA",
    "mexican": "MX",
    "turkish": "TR",
    "ukrainian": "UA",
    "italian": "IT",
    "spanish": "ES",
    "dutch": "NL",
    "swiss": "CH",
    "irish": "IE",
    "polish": "PL",
    "indian": "IN",
    "japanese": "JP",
    "brazilian": "BR",
    "nigerian": "NG",
    "lebanese": "LB",
    "yemeni": "YE",
    "sudanese": "SD",
}
for _name, _code in _DEMONYMS.items():
    if _code in COUNTRY_REGIONS:
        COUNTRY_NAMES.setdefault(_name, _code)

REGION_ALIASES: dict[str, str] = {
    "eu": "EU",
    "european union": "EU",
    "eea": "EEA",
    "emea": "EMEA",
    "europe": "EUROPE",
    "european": "EUROPE",
    "apac": "APAC",
    "asia": "ASIA",
    "asia pacific": "APAC",
    "amer": "AMER",
    "americas": "AMERICAS",
    "north america": "NA",
    "latam": "LATAM",
    "latin america": "LATAM",
    "middle east": "MIDDLE_EAST",
    "africa": "AFRICA",
    "oceania": "OCEANIA",
    # Regions under sanctions of their own, inside a country ('the Crimea, DNR and LNR regions of
    # Ukraine' in OFAC and EU programmes): see SUBNATIONAL
    "crimea": "CRIMEA",
    "the crimea": "CRIMEA",
    "crimean peninsula": "CRIMEA",
    "sevastopol": "CRIMEA",
    "dnr": "DNR",
    "donetsk": "DNR",
    "donetsk people's republic": "DNR",
    "lnr": "LNR",
    "luhansk": "LNR",
    "lugansk": "LNR",
    "luhansk people's republic": "LNR",
}
# A region inside a country (or claimed by two): a request that names only the country may be in
# it, so membership is for a human to decide (a payment to 'UA' under "No payments to … Crimea"
# had been approved).
SUBNATIONAL: dict[str, frozenset[str]] = {
    "CRIMEA": frozenset({"UA", "RU"}),
    "DNR": frozenset({"UA", "RU"}),
    "LNR": frozenset({"UA", "RU"}),
}
# Cloud region prefixes ('eu-west-1', 'us-central1', 'europe-west4') and the regions they lie in.
_CLOUD_PREFIXES = {
    "eu": {"EU", "EEA", "EMEA", "EUROPE"},
    "europe": {"EU", "EEA", "EMEA", "EUROPE"},
    "us": {"AMER", "NA", "AMERICAS"},
    "ca": {"AMER", "NA", "AMERICAS"},
    "sa": {"AMER", "LATAM", "AMERICAS"},
    "southamerica": {"AMER", "LATAM", "AMERICAS"},
    "northamerica": {"AMER", "NA", "AMERICAS"},
    "ap": {"APAC"},
    "asia": {"APAC", "ASIA"},
    "australia": {"APAC", "OCEANIA"},
    "me": {"EMEA", "MIDDLE_EAST"},
    "af": {"EMEA", "AFRICA"},
}
_CLOUD_REGION = re.compile(r"^([a-z]+)-[a-z]+(?:-[a-z]+)?-?\d+[a-z]?$")


def country_code(text: str) -> str | None:
    """ISO 3166 alpha-2 code for a country name or code, else None."""
    t = text.strip().lower().removeprefix("the ")
    if t in COUNTRY_NAMES:
        return COUNTRY_NAMES[t]
    if len(t) == 2 and t.upper() in COUNTRY_REGIONS:
        return t.upper()
    if len(t) == 3 and t == "usa":
        return "US"
    return None


def country_names(code: str) -> tuple[str, ...]:
    """Every name the built-in vocabulary knows country `code` by ('united states', 'usa' …)."""
    return tuple(n for n, c in COUNTRY_NAMES.items() if c == code.upper())


def region_name(text: str) -> str | None:
    """Canonical name of a region ('EMEA', 'EU' …) named by `text`, else None."""
    return REGION_ALIASES.get(text.strip().lower().removeprefix("the "))


def location_regions(value: str) -> tuple[str | None, frozenset[str]] | None:
    """(country code or None, regions) for an argument value naming a place, else None."""
    v = value.strip()
    code = country_code(v)
    if code:
        return code, COUNTRY_REGIONS[code] | {code}
    region = region_name(v)
    if region:
        return None, frozenset({region})
    m = _CLOUD_REGION.match(v.lower())
    if m and m.group(1) in _CLOUD_PREFIXES:
        return None, frozenset(_CLOUD_PREFIXES[m.group(1)])
    iban = _IBAN.match(v.replace(" ", "").upper())
    if iban and iban.group(1) in COUNTRY_REGIONS:
        code = iban.group(1)
        return code, COUNTRY_REGIONS[code] | {code}
    return None


_IBAN = re.compile(r"^([A-Z]{2})\d{2}[A-Z0-9]{10,30}$")


@lru_cache(maxsize=1)
def _place_names() -> tuple[tuple[str, str, str], ...]:
    """Every country name (over 3 letters) and region alias, longest first (built once)."""
    names = [(n, "country", c) for n, c in COUNTRY_NAMES.items() if len(n) > 3]
    names += [(n, "region", r) for n, r in REGION_ALIASES.items()]
    return tuple(sorted(names, key=lambda x: -len(x[0])))


def find_places(text: str) -> list[tuple[str, str]]:
    """Places named in `text` as (kind, canonical) pairs: ('country', 'IR'), ('region', 'EMEA')."""
    lower = " " + re.sub(r"[^a-z0-9 ]+", " ", text.lower()) + " "
    found: list[tuple[str, str]] = []
    for name, kind, canonical in _place_names():
        needle = f" {name} "
        while needle in lower:  # longest names first, so 'north korea' is not also 'korea'
            found.append((kind, canonical))
            lower = lower.replace(needle, " " + "#" * len(name) + " ", 1)
    return found
