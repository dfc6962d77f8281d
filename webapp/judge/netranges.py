"""Numeric bounds, ports and network prefixes (helper jrange, bench/judge_cases/dev_jrange.json).

Two parts. The guards name the words of a rule whose checks read a bound, a port or a prefix
wrongly as a whole; those words stay unaccounted for, so the rule is partly understood and never
decides on its own (misreadings.py runs them beside its own guards). `network_shown` keeps a rule
that speaks of ports, prefixes, CIDRs or subnets relevant to every request that carries a port,
an address or a range, whatever words they share: such a rule had been skipped as irrelevant and
the request approved by the policy's other rules.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from webapp.judge.boundaries import CONDITION
from webapp.judge.checks import (
    NOT_APPLICABLE,
    SATISFIED,
    UNKNOWN,
    Check,
    NumericLimit,
    Outcome,
    ValueList,
)
from webapp.judge.request_view import RequestView, scalars
from webapp.judge.text import stem

# the boundary phrases of a condition ('above', 'at least'), from the one table (boundaries.py)
_CONDITION_PHRASES = frozenset(CONDITION)

# -- an argument named beside a bound read as a value -----------------------------------------------
# 'Leverage above 5x is forbidden (`leverage`)' read as "when leverage is above 5, deny when an
# argument is leverage": a 5.5x order passed, since no argument's value is 'leverage'. 'Any port
# range wider than 100 ports -> security review (`from_port`, `to_port`)' read as "review when an
# argument contains from_port": a 201-port range passed. A name written in backticks in a rule
# that states a number names the argument the number is about, never a value it may take.
_TICKED = re.compile(r"`\s*([A-Za-z][\w.\-]*)\s*`")
_NUMBER = re.compile(r"\d")


def _ticked_name_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    if not _NUMBER.search(_TICKED.sub(" ", text)):
        return []
    ticked = {m.group(1).lower() for m in _TICKED.finditer(text)}
    if not ticked:
        return []
    out = []
    for c in every:
        if isinstance(c, ValueList):
            for v in c.values or ():
                if str(v).lower() in ticked and str(v) not in out:
                    out.append(str(v))
    return out


# -- a port number set aside as a kind word -----------------------------------------------------
# 'SSH (port 22) open to 0.0.0.0/0 is never allowed' read as "Deny when an argument contains
# 0.0.0.0/0", the port taken as a word that names the kind of thing: every rule opening 443 to the
# world was denied, and a rule written 'ports 22 or 3389' could pass a port it names. A port number
# the rule writes is read only by a check that compares a port with it.
_PORTS = re.compile(
    r"\bports?\s*(?:[:=#]\s*)?(?P<n>\d{1,5}(?:\s*(?:,|/|\bor\b|\band\b|-|–)\s*\d{1,5})*)", re.I
)


def _port_set_aside(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for m in _PORTS.finditer(text):
        numbers = set(re.findall(r"\d+", m.group("n")))
        read = {
            str(v).strip() for c in every if isinstance(c, ValueList) for v in c.values or ()
        } | {str(p) for c in every if isinstance(c, PortsOpenTo) for p in c.ports}
        if not numbers <= read:
            out.append(m.group(0))
    return out


# -- a prefix length set aside ---------------------------------------------------------------------
# 'Ranges handed to partners wider than a /24 -> network team review' read as "Send to review
# requests about ranges handed to partners": the /24 was dropped, and a /22 passed. A prefix length
# written alone ('/24', not an address's own '10.0.0.0/8') is read only by a check on prefixes.
_BARE_PREFIX = re.compile(
    r"(?<![\d.\w/])/\d{1,3}\b(?!\s*(?:h|hrs?|hours?|d|days?|min|mins|minutes?|wks?|weeks?|mo|"
    r"months?|yrs?|years?|\d)\b)",
    re.I,
)


def _prefix_set_aside(text: str, every: Sequence[Check]) -> list[str]:
    if any(isinstance(c, PrefixWiderThan) for c in every):
        return []
    return [m.group(0) for m in _BARE_PREFIX.finditer(text)][:1]


GUARDS: tuple[Callable[[str, Sequence[Check]], list[str]], ...] = (
    _ticked_name_read_as_value,
    _port_set_aside,
    _prefix_set_aside,
)


# -- relevance: a rule on ports or prefixes and a request carrying one ---------------------------
_NETWORK_WORDS = re.compile(
    r"\b(?:ports?|cidrs?|subnets?|netmasks?|prefix(?:es)?|ip\s+ranges?|address\s+ranges?|"
    r"ip\s+blocks?|ipv[46])\b|(?:^|[\s(])/\d{1,3}\b|\b\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,3})?\b",
    re.I,
)
# an argument named for a port, an address or a range ('dst_port', 'source_cidr', 'ip_range')
_NETWORK_KEY = re.compile(
    r"(?:^|_|\b)(?:ports?|cidrs?|subnets?|prefix|ips?|ip_range|netmask)(?:$|_)"
)
_ADDRESS = re.compile(
    r"^\s*(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f:]*:[0-9a-f:]+)(?:/\d{1,3})?\s*$", re.I
)
_SHOWN_KEY = ("__network_shown__",)
# an IPv4 address or range written inside other words, and an IPv6 one (two hex groups and '::')
_EMBEDDED = re.compile(r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?(?![\d.])")
# (a clock time '10:30:00' has neither '::' nor seven groups)
_V6 = re.compile(r"[0-9a-f]{0,4}::[0-9a-f]{0,4}|\b[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){7}\b", re.I)


@lru_cache(maxsize=65536)
def speaks_of_network(text: str) -> bool:
    """Whether a rule names ports, prefixes, CIDRs, subnets or addresses, once per rule text."""
    return _NETWORK_WORDS.search(text) is not None


def network_shown(text: str, view: RequestView) -> bool:
    """'Prefix shorter than /24 -> network team review' and `cidr: "45.12.0.0/22"`: a text rule
    on ports or prefixes speaks to every request carrying a port, an address or a range (the /22
    shared no word with the rule, so the rule had been skipped and the request approved)."""
    if not speaks_of_network(text):
        return False
    shown = view.applicability_memo.get(_SHOWN_KEY)
    if shown is None:
        shown = view.applicability_memo[_SHOWN_KEY] = any(
            _NETWORK_KEY.search(leaf.path.lower().rsplit(".", 1)[-1])
            or any(
                isinstance(v, str) and (_ADDRESS.match(v) or _EMBEDDED.search(v))
                for v in scalars(leaf.value)
            )
            for leaf in view.leaves
        )
    return bool(shown)


# -- 'Never open port 22 or 3389 to 0.0.0.0/0' -------------------------------------------------
# read as "Deny when an argument contains 0.0.0.0/0", the ports set aside: 443 opened to the world
# was denied. Read whole: the request opens one of the ports (a `port`/`ports` argument, or the
# span `from_port`..`to_port`) to the range (an argument holding an address or a range).
_OPEN_TO = re.compile(
    r"^\s*(?:never|do\s+not|don'?t|must\s+not|no\s+one\s+may)\s+open\s+ports?\s+"
    r"(?P<ports>\d{1,5}(?:\s*(?:,|/|\bor\b)\s*\d{1,5})*)\s+to\s+"
    r"(?P<net>\d{1,3}(?:\.\d{1,3}){3}/\d{1,2})\s*\.?\s*$",
    re.I,
)


def _net(value: Any) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    if not isinstance(value, str) or not _ADDRESS.match(value):
        return None
    try:
        return ipaddress.ip_network(value.strip(), strict=False)
    except ValueError:
        return None


@dataclass(frozen=True)
class PortsOpenTo(Check):
    """'Never open port 22 or 3389 to 0.0.0.0/0': deny when the request opens one of `ports` to a
    range that takes in all of `network`. A range inside it (part of the world, or of the named
    block) that is not a private range, a port or a range not shown, or a port that is no
    number, goes to review."""

    ports: tuple[int, ...] = ()
    network: str = ""
    kind: str = field(default="ports_open_to", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(ports=list(self.ports), network=self.network)
        return d

    def reading(self) -> str:
        ports = " or ".join(str(p) for p in self.ports)
        return (
            f"Deny when the request opens port {ports} to {self.network} (a range inside it, "
            f"or a port or range not sent, goes to review){self._about()}"
        )

    def evaluate(self, view: RequestView) -> Outcome:
        ranges, ports, spans, odd = [], [], {}, False
        for leaf in view.leaves:
            key = leaf.path.lower().rsplit(".", 1)[-1]
            key = re.sub(r"\[\d*\]", "", key)
            for v in scalars(leaf.value):
                net = _net(v)
                if net is not None:
                    ranges.append((leaf.path, net))
                elif "port" in key:
                    try:
                        n = int(str(v).strip())
                    except ValueError:
                        odd = True
                        continue
                    if not 0 <= n <= 65535 or (
                        n == 0 and not key.startswith(("from", "start", "min", "to_", "end", "max"))
                    ):
                        # `from_port: -1`, `port: 0` are every port in some clouds' APIs: not
                        # read here
                        odd = True
                        continue
                    if key.startswith(("from", "start", "min")):
                        spans["lo"] = n
                    elif key.startswith(("to_", "end", "max")):
                        spans["hi"] = n
                    else:
                        ports.append(n)
        if "lo" in spans or "hi" in spans:
            lo, hi = spans.get("lo", spans.get("hi")), spans.get("hi", spans.get("lo"))
            ports.extend(p for p in self.ports if lo <= p <= hi)
            opened_any = True
        else:
            opened_any = bool(ports)
        if not ranges and not opened_any and not odd:
            return Outcome(UNKNOWN, "no port and no address range is sent", ())
        if not ranges or not (opened_any or odd):
            return Outcome(UNKNOWN, "the port or the address range is not sent", ())
        named = ipaddress.ip_network(self.network, strict=False)
        listed = set(ports) & set(self.ports)
        path, doubt = "", False
        for p, r in ranges:
            if r.version != named.version:
                # '::/0' against '0.0.0.0/0': the other family's world, which the rule may mean
                doubt = True
                continue
            if r.supernet_of(named):
                path = p
                break
            if r.network_address.is_unspecified and r.prefixlen > named.prefixlen:
                # `source: "0.0.0.0"` with no length: the world in some firewalls' syntax
                doubt = True
                continue
            if r.overlaps(named) and not (named.prefixlen == 0 and r.is_private):
                doubt = True
        if path and listed:
            said = f"{path} opens port {sorted(listed)[0]} to {self.network}"
            return self.fire("matched", said, (path,))
        if odd or (doubt and listed):
            return Outcome(UNKNOWN, f"the range opened may be part of {self.network}", ())
        return Outcome(SATISFIED, f"no port {self.ports} opened to {self.network}", ())


# 'SSH (port 22) open to 0.0.0.0/0 is never allowed': the service named with its own port
_SERVICE_PORTS = {"ssh": 22, "rdp": 3389, "telnet": 23, "ftp": 21, "smb": 445, "winrm": 5985}
_OPEN_TO_STATED = re.compile(
    r"^\s*(?:(?P<service>[A-Za-z]{3,6})\s+)?\(\s*ports?\s+(?P<ports>\d{1,5})\s*\)\s+open\s+to\s+"
    r"(?P<net>\d{1,3}(?:\.\d{1,3}){3}/\d{1,2})\s+(?:is|are)\s+(?:never\s+allowed|not\s+allowed|"
    r"forbidden|prohibited)\s*\.?\s*$",
    re.I,
)


def _mend_ports_open_to(text: str, checks: list[Check]) -> list[Check] | None:
    m = _OPEN_TO.match(text) or _OPEN_TO_STATED.match(text)
    if not m or len(checks) != 1:
        return None
    service = m.groupdict().get("service")
    if service and _SERVICE_PORTS.get(service.lower()) != int(m["ports"]):
        return None  # a service unknown here, or named with another port than its own
    c = checks[0]
    if not (isinstance(c, ValueList) and c.effect == "deny" and tuple(c.values) == (m["net"],)):
        return None
    ports = tuple(int(p) for p in re.findall(r"\d+", m["ports"]))
    return [
        PortsOpenTo(
            rule_index=c.rule_index,
            source=c.source,
            effect="deny",
            terms=c.terms,
            ports=ports,
            network=m["net"],
        )
    ]


# 'Leverage above 5x is forbidden (`leverage`)': read as "when leverage is above 5, deny when an
# argument is leverage". The bracket names the argument the bound is on: read as that bound, on
# that argument, when the rule says nothing else (its subject is the name's own words).
_TICKED_BOUND = re.compile(
    r"^\s*(?P<subject>[A-Za-z][A-Za-z \-]{0,40}?)\s+(?:is\s+|are\s+)?(?P<bound>[a-z ]{2,20}?)\s+"
    r"\d[\d,.]*\s*(?:x|%|percent)?\s+(?:is|are)\s+(?:forbidden|not\s+allowed|prohibited|blocked)\s*"
    r"\(\s*`(?P<name>[a-z][a-z0-9_]*)`\s*\)\s*\.?\s*$",
    re.I,
)


def _mend_ticked_bound(text: str, checks: list[Check]) -> list[Check] | None:
    m = _TICKED_BOUND.match(text)
    if not m or len(checks) != 1 or m["bound"].lower().strip() not in _CONDITION_PHRASES:
        return None
    c = checks[0]
    cond, body = getattr(c, "condition", None), getattr(c, "body", None)
    name = m["name"]
    if not (
        c.kind == "when"
        and isinstance(cond, NumericLimit)
        and isinstance(body, ValueList)
        and body.mode == "deny"
        and tuple(str(v).lower() for v in body.values) == (name.lower(),)
        and c.effect == "deny"
    ):
        return None
    own = {stem(w) for w in re.split(r"[^a-z0-9]+", name.lower()) if w}
    said = {stem(w) for w in re.split(r"[^a-z0-9]+", m["subject"].lower()) if w}
    if said != own or not set(cond.terms) <= own:
        return None
    return [replace(cond, effect="deny", named=name)]


MENDS: tuple[Callable[[str, list[Check]], list[Check] | None], ...] = (
    _mend_ports_open_to,
    _mend_ticked_bound,
)


# -- 'Prefix shorter than /24 (i.e. a range bigger than a /24) -> network team review' --------------
# A bound on the length of an IPv4 prefix: a shorter prefix is a wider range. Read whole by its
# own grammar or not at all (a qualifier, a second bound, a range written another way leave the
# rule to the prose readings, which leave it partly understood).
_LABEL = r"(?:(?:R\s*\d+|\d+[.)]|[A-Z]\d*[.)])\s*[:\-\u2013\u2014]?\s*)?"
_WIDER = r"(?:shorter|wider|bigger|larger|broader)\s+than"
_THING = (
    r"(?:(?:ip|ipv4|cidr|network|address|source|destination)\s+)?"
    r"(?:prefix(?:es)?(?:\s+length)?|ranges?|cidrs?|cidr\s+blocks?|blocks?|subnets?|networks?)"
)
_PREFIX_RULE = re.compile(
    rf"^\s*{_LABEL}(?:any\s+|an?\s+)?{_THING}\s+(?P<cmp>{_WIDER})\s+(?:an?\s+)?/\s*(?P<n>\d{{1,2}})"
    rf"(?:\s*\(\s*(?:i\.\s*e\.?|that\s+is|ie)\s*,?\s*(?:an?\s+)?{_THING}\s+{_WIDER}\s+"
    r"(?:an?\s+)?/\s*(?P<n2>\d{1,2})\s*\))?"
    r"\s*(?:->|\u2192|=>|:|-|\u2013|\u2014|=)\s*(?P<then>[A-Za-z][A-Za-z &/\-]{0,50}?)\s*\.?\s*$",
    re.I,
)
_REVIEW_THEN = re.compile(
    r"^(?!.*\b(?:no|not|without|never|skip(?:s|ped)?|unless|except)\b)(?:(?:send\s+to|needs?|requires?|goes\s+to)\s+)?(?:(?:the\s+)?[a-z][a-z &/\-]{0,30}?\s+)?"
    r"(?:review|approval|sign-?off)(?:\s+required)?$",
    re.I,
)
_DENY_THEN = re.compile(r"^(?:forbidden|not\s+allowed|denied|blocked|prohibited|never|deny)$", re.I)
_PREFIX_KEY = re.compile(r"prefix|mask|cidr|subnet|range|block|network|ip|addr|source|dest|from")


# a key that names a range, not a host: its address without a length is no /32
_RANGE_KEY = re.compile(r"prefix|cidr|subnet|range|block|network|route")
# an IPv4 address with a length written other than '/' and one or two digits right after it
_MISWRITTEN_LENGTH = re.compile(
    r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?:\s+/|/\s+|/\d{1,2}\.\d|/\d{3}|/\d{1,3}\.\d{1,3}\.|"
    r"\s*\\\s*\d|\s+(?:net)?mask\b|\s+len(?:gth)?\b)",
    re.I,
)
# an address followed by a netmask ('10.0.0.0 255.255.0.0', '10.0.0.0 mask 255.255.0.0')
_MASK_BESIDE = re.compile(
    r"\d{1,3}(?:\.\d{1,3}){3}\s*(?:,\s*)?(?:(?:net)?mask\s+)?(?:255|254|252|248|240|224|192|128)"
    r"\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\d.])",
    re.I,
)


@dataclass(frozen=True)
class PrefixWiderThan(Check):
    """'Prefix shorter than /24 -> network team review': fires when the request carries an IPv4
    range whose prefix is shorter than `/bits` (a wider range). A single address is /32; a
    range written another way (a dash, a netmask, IPv6) or a prefix argument that is no number
    goes to review; a request carrying no address or range is not concerned."""

    bits: int = 32
    kind: str = field(default="prefix_wider_than", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(bits=self.bits)
        return d

    def reading(self) -> str:
        verb = {"deny": "Deny", "review": "Send to review"}.get(self.effect, "Deny")
        return (
            f"{verb} when the request carries an IPv4 range with a prefix shorter than "
            f"/{self.bits} (wider than a /{self.bits}); a range written another way goes to review"
        )

    def evaluate(self, view: RequestView) -> Outcome:
        wide, doubt, seen = "", "", False
        for leaf in view.leaves:
            key = re.sub(r"\[\d*\]", "", leaf.path.lower()).rsplit(".", 1)[-1]
            lengthy = "prefix" in key or "mask" in key or "bits" in key
            for v in scalars(leaf.value):
                if isinstance(v, bool):
                    continue
                if isinstance(v, (int, float)) and lengthy:
                    # `prefix_length: 22`, `mask_bits: 22.0`: the length itself
                    seen = True
                    if v != int(v) or not 0 <= v <= 32:
                        doubt = doubt or f"{leaf.path} = {v!r}"
                    elif v < self.bits and not wide:
                        wide = f"{leaf.path} = /{int(v)} is wider than a /{self.bits}"
                    continue
                if not isinstance(v, str):
                    continue
                if "mask" in key and _ADDRESS.match(v):
                    # `netmask: "255.255.252.0"` is a /22 written as an address: not read here
                    seen = True
                    doubt = doubt or f"{leaf.path} = {v!r}"
                    continue
                found = _ADDRESS.match(v) is not None
                if _RANGE_KEY.search(key) and found and "/" not in v:
                    # `prefix: "10.0.0.0"`: a range whose length is not written, not a host
                    seen = True
                    doubt = doubt or f"{leaf.path} = {v!r}"
                    continue
                if _MISWRITTEN_LENGTH.search(v) or _MASK_BESIDE.search(v):
                    # '10.0.0.0 / 16', '10.0.0.0/24.5', '10.0.0.0/255.255.0.0', '10.0.0.0
                    # 255.255.0.0': a length the address alone would hide (read as a /32)
                    seen = True
                    doubt = doubt or f"{leaf.path} = {v!r}"
                    continue
                for text in [v] if found else _EMBEDDED.findall(v):
                    seen = True
                    net = _net(text)
                    if net is None or net.version != 4:
                        doubt = doubt or f"{leaf.path} = {v!r}"
                    elif net.prefixlen < self.bits and not wide:
                        wide = f"{leaf.path} = {v!r} is wider than a /{self.bits}"
                if not found and (_EMBEDDED.search(v) or _V6.search(v)):
                    # an address inside other words ('45.12.0.0/22 and 10.1.0.0/24'): the
                    # ones written in full are read above; the text around them is not
                    seen = True
                    if _V6.search(v) or re.search(
                        r"\d\s*(?:-|\u2013|\u2014|\bto\b|\bthru\b)\s*\d", v
                    ):
                        doubt = doubt or f"{leaf.path} = {v!r}"
                elif not found and (_NETWORK_KEY.search(key) or lengthy):
                    # '10.0.0.0 - 10.0.3.255', 'any', '22': a range not read here
                    seen = True
                    doubt = doubt or f"{leaf.path} = {v!r}"
        if wide:
            return self.fire("matched", wide, ())
        if doubt:
            return Outcome(UNKNOWN, f"{doubt} is a range not read as a prefix", ())
        if not seen:
            return Outcome(NOT_APPLICABLE)
        return Outcome(SATISFIED, f"every range is a /{self.bits} or narrower", ())


def prefix_checks(index: int, text: str) -> list[Check] | None:
    """The checks of a bound on a prefix's length read whole, or None (netranges.py)."""
    m = _PREFIX_RULE.match(re.sub(r"\s+", " ", text.replace("\u2019", "'")))
    if not m:
        return None
    bits = int(m["n"])
    if m["n2"] is not None and int(m["n2"]) != bits or not 1 <= bits <= 32:
        return None
    then = m["then"].strip()
    if _REVIEW_THEN.match(then):
        effect = "review"
    elif _DENY_THEN.match(then):
        effect = "deny"
    else:
        return None
    return [PrefixWiderThan(rule_index=index, source=text, effect=effect, bits=bits)]


# -- several numeric conditions on the arguments named in one bracket ------------------------------
# 'Do not disconnect if forecast high >= 95F or forecast low <= 32F (`forecast_high_f`,
# `forecast_low_f`)', 'Refer only when balance > $200 AND at least 60 days past due
# (`balance_usd`, `days_past_due`)': each condition is read against the name written in the same
# place of the bracket, when the condition's words are that name's own (its unit aside). Read
# whole or not at all: a third clause, a mixed 'and ... or', a name that is not the condition's,
# or a boundary phrase outside the table leave the rule to the prose readings.
_SIGNS = {">": "gt", ">=": "ge", "=>": "ge", "\u2265": "ge", "<": "lt", "<=": "le", "=<": "le"}
_SIGNS["\u2264"] = "le"
_SIGN = "|".join(re.escape(s) for s in sorted(_SIGNS, key=len, reverse=True))
_WORD_OPS = "|".join(
    r"\s+".join(map(re.escape, p.split())) for p in sorted(CONDITION, key=len, reverse=True)
)
_QTY = r"(?P<cur>\$)?\s*(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?P<unit>F|C|%|days?|hours?)?"
_COND_SIGN = re.compile(
    rf"^(?P<phrase>[A-Za-z][A-Za-z \-]{{0,40}}?)\s*(?P<op>{_SIGN}|{_WORD_OPS})\s*{_QTY}$", re.I
)
_COND_LEAD = re.compile(
    rf"^(?P<op>{_WORD_OPS})\s+{_QTY}\s+(?P<phrase>[A-Za-z][A-Za-z \-]{{0,40}})$", re.I
)
_NAMES = r"\(\s*(?P<names>`[a-z][a-z0-9_]*`(?:\s*,\s*`[a-z][a-z0-9_]*`)+)\s*\)"
_DENY_IF = re.compile(
    rf"^\s*(?:do\s+not|don'?t|never)\s+(?P<verb>[a-z]+)\s+(?:if|when)\s+(?P<conds>.+?)\s*{_NAMES}"
    r"\s*\.?\s*$",
    re.I,
)
_ONLY_WHEN = re.compile(
    rf"^\s*(?P<verb>[a-z]+)\s+only\s+(?:when|if)\s+(?P<conds>.+?)\s*{_NAMES}\s*\.?\s*$", re.I
)
_JOIN = re.compile(r"\s+(and|or|&&|\|\|)\s+", re.I)
_UNIT_NAMES = {
    "f": {"f", "fahrenheit"},
    "c": {"c", "celsius"},
    "$": {"usd", "dollar"},
    "%": {"pct", "percent"},
    "day": {"day"},
    "hour": {"hour", "hr"},
}


@dataclass(frozen=True)
class NamedConditions(Check):
    """Numeric conditions on named arguments joined by 'and' or 'or'. `guard` is 'deny_if' (the
    act is refused when the conditions hold) or 'only_when' (the act is refused unless they
    hold). A named argument not sent, or not a number, goes to review when it may decide."""

    act: str = ""
    names: tuple[str, ...] = ()
    ops: tuple[str, ...] = ()
    bounds: tuple[float, ...] = ()
    units: tuple[str, ...] = ()
    join: str = "or"
    guard: str = "deny_if"
    kind: str = field(default="named_conditions", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(names=list(self.names), ops=list(self.ops), bounds=list(self.bounds))
        d.update(join=self.join, guard=self.guard)
        return d

    def _said(self) -> str:
        from webapp.judge.boundaries import OP_WORDS

        parts = [
            f"`{n}` is {OP_WORDS[o]} {b:g}{u}"
            for n, o, b, u in zip(self.names, self.ops, self.bounds, self.units, strict=True)
        ]
        return f" {self.join} ".join(parts)

    def reading(self) -> str:
        verb = {"deny": "Deny", "review": "Send to review"}.get(self.effect, "Deny")
        act = f" {self.act}" if self.act else ""
        if self.guard == "only_when":
            return f"{verb}{act} unless {self._said()} (an argument not sent goes to review)"
        return f"{verb}{act} when {self._said()} (an argument not sent goes to review)"

    def evaluate(self, view: RequestView) -> Outcome:
        if self.act and view.other_action(frozenset({stem(self.act)})):
            return Outcome(NOT_APPLICABLE)
        values = {re.sub(r"\[\d*\]", "", lf.path): lf.value for lf in view.leaves}
        truths: list[bool | None] = []
        for n, o, b in zip(self.names, self.ops, self.bounds, strict=True):
            v = values.get(n)
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                truths.append(None)
                continue
            truths.append(
                {"gt": v > b, "ge": v >= b, "lt": v < b, "le": v <= b}[o]  # the one table's ops
            )
        if self.join == "and":
            holds = False if False in truths else (True if all(truths) else None)
        else:
            holds = True if True in truths else (False if all(t is False for t in truths) else None)
        names = tuple(self.names)
        if holds is None:
            return Outcome(UNKNOWN, f"{', '.join(names)} not all sent as numbers", names)
        fires = holds if self.guard == "deny_if" else not holds
        if fires:
            shown = ", ".join(f"{n} = {values.get(n)!r}" for n in names if n in values)
            return self.fire("matched", shown, names)
        return Outcome(SATISFIED, f"{self._said()}: {'holds' if holds else 'does not hold'}", names)


def _condition(part: str, name: str) -> tuple[str, float, str] | None:
    """(op, bound, unit) of one condition written for the argument `name`, or None."""
    m = _COND_SIGN.match(part) or _COND_LEAD.match(part)
    if not m:
        return None
    written = " ".join(m["op"].lower().split())
    op = _SIGNS.get(written) or CONDITION.get(written)
    if op is None:
        return None
    unit = (m["unit"] or "").lower().rstrip("s")
    if m["cur"]:
        if unit:
            return None
        unit = "$"
    phrase = {stem(w) for w in re.split(r"[^a-z0-9]+", m["phrase"].lower()) if w}
    own = {stem(w) for w in name.split("_") if w}
    rest = own - phrase
    if not phrase or not phrase <= own:
        return None
    if rest and not (unit and rest <= {stem(u) for u in _UNIT_NAMES.get(unit, set())}):
        return None
    if unit and not rest:
        return None  # '$200' against a name with no currency, '95F' against no scale
    shown = {"$": " USD", "f": "F", "c": "C", "%": "%", "day": " days", "hour": " hours"}
    return op, float(m["num"].replace(",", "")), shown.get(unit, "")


def named_condition_checks(index: int, text: str) -> list[Check] | None:
    """The check of several numeric conditions on the arguments named in one bracket, or None."""
    t = re.sub(r"\s+", " ", text.replace("\u2019", "'")).strip()
    m = _DENY_IF.match(t)
    guard = "deny_if"
    if m is None:
        m = _ONLY_WHEN.match(t)
        guard = "only_when"
    if m is None:
        return None
    names = re.findall(r"`([a-z][a-z0-9_]*)`", m["names"])
    pieces = _JOIN.split(m["conds"])
    parts, joins = pieces[0::2], {j.lower() for j in pieces[1::2]}
    if len(parts) != len(names) or len(joins) != 1:
        return None
    join = "and" if joins <= {"and", "&&"} else "or"
    read = [_condition(p.strip(), n) for p, n in zip(parts, names, strict=True)]
    if any(r is None for r in read):
        return None
    ops, bounds, units = zip(*read, strict=True)
    return [
        NamedConditions(
            rule_index=index,
            source=text,
            effect="deny",
            act=m["verb"].lower(),
            names=tuple(names),
            ops=ops,
            bounds=bounds,
            units=units,
            join=join,
            guard=guard,
        )
    ]
