"""What one decision adds to its agent's counters for the hour it happened in.

An agent's history is a set of hourly buckets, each a flat map of counter name to integer, so
that the decision path only increments a handful of counters (O(1), one round trip) and the
scorer merges buckets without ever reading a request row. Counter names:

    n                       decisions in the hour
    q\\t<0..3>               decisions per quarter of the hour (bursts shorter than an hour)
    t\\t<tool>               decisions per tool
    o\\t<allow|deny|review>  the judge's outcome (before any drift-forced review)
    a\\t<tool>\\t<arg>\\t<bin>  numeric argument, binned on a log scale (quarter octaves)
    c\\t<digest>             a counterparty (destination value), as a short digest
    k\\t<minted|consumed|args_mismatch|replay>   token hygiene
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

SEP = "\t"
TOTAL = "n"
MAX_NUMERIC_ARGS = 8
MAX_COUNTERPARTIES = 6
BINS_PER_OCTAVE = 4
OUTCOMES = ("allow", "deny", "review")
TOKEN_EVENTS = ("minted", "consumed", "args_mismatch", "replay")

# Argument names that name where money, data or messages go.
_COUNTERPARTY_NAME = re.compile(
    r"(^destination|iban|account|recipient|payee|beneficiary|counterparty|domain|"
    r"^to$|^to_|_to$|email|url|uri|host|bic|swift|wallet|address)",
    re.IGNORECASE,
)
_IBAN = re.compile(r"^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$")
_URL_HOST = re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^@/]*@)?([^/:?#]+)", re.IGNORECASE)
_EMAIL_DOMAIN = re.compile(r"^[^@\s]+@([^@\s]+\.[^@\s]+)$")


def hour_of(epoch_seconds: float) -> int:
    """The bucket index: hours since the Unix epoch (UTC)."""
    return int(epoch_seconds // 3600)


def decision_counters(
    tool_name: str,
    tool_args: Mapping[str, Any],
    metadata: Mapping[str, Any],
    outcome: str,
    at: float | None = None,
) -> dict[str, int]:
    """The counters one first decision adds (see the module docstring for the names); ``at``
    (Unix seconds) places it in a quarter of its hour."""
    counters: dict[str, int] = {TOTAL: 1, f"t{SEP}{tool_name}": 1}
    if at is not None:
        counters[f"q{SEP}{quarter_of(at)}"] = 1
    if outcome in OUTCOMES:
        counters[f"o{SEP}{outcome}"] = 1
    for name, value in _numeric_args(tool_args):
        key = f"a{SEP}{tool_name}{SEP}{name}{SEP}{value_bin(value)}"
        counters[key] = counters.get(key, 0) + 1
    for party in counterparties(tool_args, metadata):
        counters[f"c{SEP}{party}"] = 1
    return counters


def quarter_of(epoch_seconds: float) -> int:
    """Which quarter (0..3) of its hour a moment falls in."""
    return int(epoch_seconds % 3600 // 900)


def first_seen_keys(counters: Mapping[str, int]) -> list[str]:
    """The counters whose first appearance is remembered beyond the baseline: tools and
    counterparties ("never seen before" means before, not only within the baseline)."""
    return [key for key in counters if key[:2] in ("t" + SEP, "c" + SEP)]


def token_counter(event: str) -> str:
    return f"k{SEP}{event}"


def value_bin(value: float) -> int:
    """Quarter-octave log bins (about 19 % wide); 0 for |x| < 1, negative bins for x < 0."""
    magnitude = abs(value)
    if magnitude < 1:
        return 0
    index = 1 + int(math.log2(magnitude) * BINS_PER_OCTAVE)
    return index if value > 0 else -index


def bin_upper_edge(index: int) -> float:
    """The largest value a (positive) bin holds, for evidence that people can read."""
    if index <= 0:
        return 1.0
    return 2 ** (index / BINS_PER_OCTAVE)


def counterparties(tool_args: Mapping[str, Any], metadata: Mapping[str, Any]) -> list[str]:
    """Digests of the destination values of a call: ``destination_*`` metadata and arguments
    whose name says destination (IBAN, account, recipient, domain…), plus any IBAN-shaped
    string; URLs and email addresses count by their domain."""
    found: list[str] = []
    for name, value in _leaves({**dict(metadata), **dict(tool_args)}):
        if not isinstance(value, str) or not value.strip() or len(found) >= MAX_COUNTERPARTIES:
            continue
        text = value.strip()
        compact = text.replace(" ", "").upper()
        if _IBAN.match(compact):
            found.append(_digest("iban", compact))
        elif _COUNTERPARTY_NAME.search(name):
            found.append(_digest("party", _normalise_party(text)))
    return sorted(set(found))


def _normalise_party(text: str) -> str:
    host = _URL_HOST.match(text)
    if host:
        return "domain:" + host.group(1).lower().removeprefix("www.")
    email = _EMAIL_DOMAIN.match(text)
    if email:
        return "domain:" + email.group(1).lower()
    return text.lower()


def _digest(kind: str, text: str) -> str:
    # Short digests: the counters never hold a raw IBAN or address.
    return hashlib.sha256(f"{kind}\x00{text}".encode()).hexdigest()[:16]


def _numeric_args(tool_args: Mapping[str, Any]) -> list[tuple[str, float]]:
    numbers: list[tuple[str, float]] = []
    for name, value in _leaves(tool_args):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if isinstance(value, float) and not math.isfinite(value):
            continue
        numbers.append((name, float(value)))
        if len(numbers) >= MAX_NUMERIC_ARGS:
            break
    return numbers


def _leaves(
    value: Mapping[str, Any], prefix: str = "", depth: int = 0
) -> Iterator[tuple[str, Any]]:
    """(dotted name, value) of scalar leaves, two levels deep at most: enough for the
    arguments that matter, and a bounded cost whatever the caller sends."""
    for key, item in list(value.items())[:32]:
        name = f"{prefix}{key}"
        if isinstance(item, Mapping):
            if depth < 1:
                yield from _leaves(item, f"{name}.", depth + 1)
        elif not isinstance(item, list):
            yield name, item
