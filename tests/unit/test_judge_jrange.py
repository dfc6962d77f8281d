"""Numeric bounds, ports and network prefixes (helper jrange, issue #10; netranges.py).

Vectors: a rule on a prefix or a port is relevant to a request carrying a range, an address or a
port, so it is never skipped while the policy's other rules approve; an argument named in
backticks beside a bound is never read as a value; a port number set aside as a kind word leaves
the rule partly understood. Every request here sits beside a satisfied ticket rule, so a rule
passed by or misread shows as an approval at full confidence.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_support import assert_never_decides, outcome_beside_ticket

from webapp.judge.compiler import compile_rule
from webapp.judge.netranges import speaks_of_network

PREFIX = "Prefix shorter than /24 (i.e. a range bigger than a /24) -> network team review."
LEVERAGE = "Leverage above 5x is forbidden (`leverage`)."
PORT_RANGE = "Any port range wider than 100 ports -> security review (`from_port`, `to_port`)."
SSH = "SSH (port 22) open to 0.0.0.0/0 is never allowed."

OPEN = "Never open port 22 or 3389 to 0.0.0.0/0"
RATE = "Flat override rate must be within 0-45 (%) (`override_rate_pct`)."

VECTORS = [
    # a bound on a prefix's length, read (it was skipped as irrelevant: a /22 approved)
    (PREFIX, "ipallow.add", {"cidr": "45.12.0.0/22", "label": "partner"}, "pending_review"),
    (PREFIX, "ipallow.add", {"cidr": "45.12.2.0/23", "label": "partner"}, "pending_review"),
    (PREFIX, "ipallow.add", {"cidr": "45.12.3.0/24", "label": "partner"}, "approved"),
    (PREFIX, "ipallow.add", {"cidr": "45.12.3.16/28", "label": "partner"}, "approved"),
    (PREFIX, "ipallow.add", {"ip_range": "45.12.0.0/16"}, "pending_review"),
    (PREFIX, "ipallow.add", {"source": "45.12.0.0/16"}, "pending_review"),
    (PREFIX, "ipallow.add", {"cidrs": ["10.0.0.0/24", "10.1.0.0/16"]}, "pending_review"),
    (PREFIX, "ipallow.add", {"ip_range": "10.0.0.0 - 10.0.3.255"}, "pending_review"),
    (PREFIX, "ipallow.add", {"cidr": "2001:db8::/32"}, "pending_review"),
    (PREFIX, "ipallow.add", {"prefix_length": 22}, "pending_review"),
    (PREFIX, "ipallow.add", {"ip": "10.0.0.1"}, "approved"),
    (PREFIX, "ipallow.add", {"netmask": "255.255.252.0"}, "pending_review"),
    (PREFIX, "ipallow.add", {"mask_bits": 22.0}, "pending_review"),
    (PREFIX, "ipallow.add", {"mask_bits": 24}, "approved"),
    (PREFIX, "ipallow.add", {"source": "45.12.0.0/22 and 10.1.0.0/24"}, "pending_review"),
    (PREFIX, "ipallow.add", {"source": "45.12.3.0/24 and 10.1.0.0/24"}, "approved"),
    (PREFIX, "ipallow.add", {"note": "from 10.0.0.0 - 10.0.3.255"}, "pending_review"),
    (PREFIX, "ipallow.add", {"cidr": "45.12.3.0/24", "at": "2024-01-01T10:30:00"}, "approved"),
    (
        PREFIX,
        "ipallow.add",
        {"cidr": "45.12.3.0/24", "note": "and 2001:db8::/32"},
        "pending_review",
    ),
    # an argument named beside a bound, read as the bound on it (it was read as a value)
    (LEVERAGE, "orders.place", {"symbol": "AAPL", "leverage": 5.5}, "denied"),
    (LEVERAGE, "orders.place", {"symbol": "AAPL", "leverage": 5.01}, "denied"),
    (LEVERAGE, "orders.place", {"symbol": "AAPL", "leverage": 5}, "approved"),
    (LEVERAGE, "orders.place", {"symbol": "AAPL"}, "pending_review"),
    (RATE, "pricing.set_override", {"override_rate_pct": 45}, "approved"),
    (RATE, "pricing.set_override", {"override_rate_pct": 0}, "approved"),
    (RATE, "pricing.set_override", {"override_rate_pct": 45.01}, "denied"),
    (RATE, "pricing.set_override", {"override_rate_pct": -0.01}, "denied"),
    (RATE, "pricing.set_override", {"merchant_id": "M-1"}, "pending_review"),
    (PORT_RANGE, "sg.authorize", {"from_port": 8000, "to_port": 8200}, "pending_review"),
    # ports opened to a range, read whole (every opening to 0.0.0.0/0 had been denied)
    (OPEN, "authorize_ingress", {"port": 22, "cidr": "0.0.0.0/0"}, "denied"),
    (OPEN, "authorize_ingress", {"ports": [443, 3389], "cidr": "0.0.0.0/0"}, "denied"),
    (OPEN, "authorize_ingress", {"from_port": 20, "to_port": 25, "cidr": "0.0.0.0/0"}, "denied"),
    (OPEN, "authorize_ingress", {"from_port": 23, "to_port": 25, "cidr": "0.0.0.0/0"}, "approved"),
    (OPEN, "authorize_ingress", {"port": 443, "cidr": "0.0.0.0/0"}, "approved"),
    (OPEN, "authorize_ingress", {"port": 22, "cidr": "10.0.0.0/8"}, "approved"),
    (OPEN, "authorize_ingress", {"port": 22, "cidr": "8.8.0.0/16"}, "pending_review"),
    (OPEN, "authorize_ingress", {"port": 22, "cidr": "::/0"}, "pending_review"),
    (OPEN, "authorize_ingress", {"port": "ssh", "cidr": "0.0.0.0/0"}, "pending_review"),
    (OPEN, "authorize_ingress", {"port": 22}, "pending_review"),
    (
        OPEN,
        "authorize_ingress",
        {"from_port": -1, "to_port": -1, "cidr": "0.0.0.0/0"},
        "pending_review",
    ),
    (OPEN, "authorize_ingress", {"from_port": 0, "to_port": 65535, "cidr": "0.0.0.0/0"}, "denied"),
    (OPEN, "authorize_ingress", {"port": 22, "cidr": "0.0.0.0/1"}, "pending_review"),
    (OPEN, "authorize_ingress", {"port_range": "20-25", "cidr": "0.0.0.0/0"}, "pending_review"),
    # the service named with its port (0.0.0.0/0 on 443 had been denied)
    (SSH, "sg.authorize", {"cidr": "0.0.0.0/0", "port": 443}, "approved"),
    (SSH, "sg.authorize", {"cidr": "0.0.0.0/0", "port": 22}, "denied"),
    (
        SSH.replace("SSH", "RDP"),
        "sg.authorize",
        {"cidr": "0.0.0.0/0", "port": 443},
        "pending_review",
    ),
    (
        "Inbound allow from any (0.0.0.0/0) to port 22 or 3389 = forbidden.",
        "fw.add_rule",
        {"source_cidr": "0.0.0.0/0", "ports": [443, 3389]},
        "pending_review",
    ),
]


@pytest.mark.parametrize(("rule", "tool", "args", "expected"), VECTORS)
def test_vectors(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize("rule", [PORT_RANGE, SSH.replace("SSH", "RDP")])
def test_misread_bounds_are_partly_understood(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "partly_understood"
    assert not compiled.decides


@pytest.mark.parametrize(
    ("rule", "reading"),
    [
        (
            PREFIX,
            "Send to review when the request carries an IPv4 range with a prefix shorter than /24 "
            "(wider than a /24); a range written another way goes to review",
        ),
        (LEVERAGE, "Deny when `leverage` is above 5x (about: leverage)"),
        (
            "Flat override rate must be within 0-45 (%) (`override_rate_pct`).",
            "Deny when `override_rate_pct` (Flat override rate) is not between 0 and 45% "
            "(inclusive)",
        ),
        (
            OPEN,
            "Deny when the request opens port 22 or 3389 to 0.0.0.0/0 (a range inside it, or a "
            "port or range not sent, goes to review) (about: open port)",
        ),
    ],
)
def test_readings(rule: str, reading: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood"
    assert [c.reading() for c in compiled.checks] == [reading]


@pytest.mark.parametrize(
    "rule",
    [
        "Prefix shorter than /24 for partner ranges -> network team review.",
        "Prefix shorter than /24 (i.e. a range bigger than a /23) -> network team review.",
        "Prefix shorter than /24 -> no review.",
        "Prefix shorter than /24 unless internal -> network team review.",
        "Leverage above 5x is forbidden (`leverage`) for retail clients.",
        "Never open port 22 or 3389 to 0.0.0.0/0 without a change ticket",
        "Flat override rate must be within 0-45 (%) (`override_rate_pct`) for new merchants.",
        "RDP (port 22) open to 0.0.0.0/0 is never allowed.",
    ],
)
def test_a_qualified_network_rule_never_decides(rule: str) -> None:
    assert_never_decides(rule)


def test_a_request_with_no_network_argument_is_not_held_by_the_prefix_rule() -> None:
    # the rule speaks of prefixes; a refund carries none, so the rule is no reason to hold it
    assert outcome_beside_ticket(PREFIX, "refunds.issue", {"amount": 20}) == "approved"


def test_an_unread_network_rule_is_relevant_to_a_request_carrying_a_range() -> None:
    # partly understood and sharing no word with the request: it had been skipped, and approved
    rule = "Ranges handed to partners wider than a /24 -> network team review."
    args = {"allow_from": "45.12.0.0/22"}
    assert outcome_beside_ticket(rule, "ipallow.add", args) == "pending_review"


def test_understood_bounds_still_decide() -> None:
    # a backticked name beside a bound that is read right is left alone
    rule = "Order notional must be between 1,000 and 5,000,000 USD (notional_usd)."
    args = {"notional_usd": 5_000_000.01, "currency": "USD"}
    assert outcome_beside_ticket(rule, "orders.place", args) == "denied"
    args = {"notional_usd": 5_000_000, "currency": "USD"}
    assert outcome_beside_ticket(rule, "orders.place", args) == "approved"


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["/8", "/16", "/20", "/22", "/23", "/0"]),
    st.sampled_from(["cidr", "source_cidr", "ip_range", "subnet", "allow_from"]),
)
def test_a_range_wider_than_the_bound_is_never_approved(prefix: str, key: str) -> None:
    assert outcome_beside_ticket(PREFIX, "net.change", {key: "10.0.0.0" + prefix}) != "approved"


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["leverage", "from_port", "quantity", "rate_pct"]),
    st.sampled_from(["above 5", "over 100", "at most 30", "more than 7"]),
)
def test_a_ticked_argument_beside_a_bound_is_never_a_value(name: str, bound: str) -> None:
    rule = f"{name.replace('_', ' ').capitalize()} {bound} is forbidden (`{name}`) per desk memo."
    compiled = compile_rule(0, "c:r0", rule)
    for check in compiled.checks:
        assert name not in [str(v) for v in getattr(check, "values", ()) or ()]


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=23), st.integers(min_value=0, max_value=255))
def test_a_prefix_shorter_than_the_bound_is_never_approved(bits: int, octet: int) -> None:
    args = {"cidr": f"10.{octet}.0.0/{bits}"}
    assert outcome_beside_ticket(PREFIX, "ipallow.add", args) != "approved"


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=5.0, max_value=100.0, exclude_min=True, allow_nan=False))
def test_leverage_past_the_bound_is_never_approved(leverage: float) -> None:
    assert outcome_beside_ticket(LEVERAGE, "orders.place", {"leverage": leverage}) == "denied"


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["22", "3389", "22 or 3389", "80/443", "8080"]))
def test_a_port_set_aside_never_decides(ports: str) -> None:
    assert_never_decides(f"Admin access (port {ports}) open to 0.0.0.0/0 is never allowed.")


@pytest.mark.parametrize(
    ("text", "network"),
    [
        (PREFIX, True),
        ("Outbound allows on ports other than 80/443 -> network team review.", True),
        ("Subnets bigger than 256 addresses need review.", True),
        ("Refunds over 500 USD need a manager.", False),
        ("Remarks up to 200 characters.", False),
    ],
)
def test_speaks_of_network(text: str, network: bool) -> None:
    assert speaks_of_network(text) is network


WEATHER = (
    "Do not disconnect if forecast high >= 95F or forecast low <= 32F (`forecast_high_f`, "
    "`forecast_low_f`)."
)
REFER = (
    "Refer only when balance > $200 AND at least 60 days past due (`balance_usd`, `days_past_due`)."
)


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (WEATHER, "service.disconnect", {"forecast_high_f": 95, "forecast_low_f": 70}, "denied"),
        (WEATHER, "service.disconnect", {"forecast_high_f": 80, "forecast_low_f": 32}, "denied"),
        (WEATHER, "service.disconnect", {"forecast_high_f": 94, "forecast_low_f": 33}, "approved"),
        (WEATHER, "service.disconnect", {"forecast_high_f": 94}, "pending_review"),
        (WEATHER, "service.disconnect", {"forecast_high_f": 99}, "denied"),
        (
            WEATHER,
            "service.disconnect",
            {"forecast_high_f": "94", "forecast_low_f": 40},
            "pending_review",
        ),
        (REFER, "collections.refer", {"balance_usd": 200.01, "days_past_due": 60}, "approved"),
        (REFER, "collections.refer", {"balance_usd": 200, "days_past_due": 90}, "denied"),
        (REFER, "collections.refer", {"balance_usd": 950, "days_past_due": 59}, "denied"),
        (REFER, "collections.refer", {"balance_usd": 950}, "pending_review"),
        (REFER, "collections.refer", {"balance_usd": 10, "days_past_due": None}, "denied"),
    ],
)
def test_several_conditions(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


def test_several_conditions_readings() -> None:
    assert [c.reading() for c in compile_rule(0, "c:r0", REFER).checks] == [
        "Deny refer unless `balance_usd` is above 200 USD and `days_past_due` is at or above "
        "60 days (an argument not sent goes to review)"
    ]
    assert [c.reading() for c in compile_rule(0, "c:r0", WEATHER).checks] == [
        "Deny disconnect when `forecast_high_f` is at or above 95F or `forecast_low_f` is at or "
        "below 32F (an argument not sent goes to review)"
    ]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([WEATHER, REFER]),
    st.sampled_from(
        [
            " unless medical hold",
            " for commercial accounts",
            " or the account is disputed",
            " except in winter",
        ]
    ),
)
def test_a_qualified_set_of_conditions_never_decides(rule: str, qualifier: str) -> None:
    # the qualifier goes right before the bracket of names
    head, names = rule.rsplit(" (", 1)
    assert_never_decides(f"{head}{qualifier} ({names}")


@settings(max_examples=60, deadline=None)
@given(
    st.floats(min_value=-40, max_value=130, allow_nan=False),
    st.floats(min_value=-40, max_value=130, allow_nan=False),
)
def test_a_hot_or_cold_day_is_never_approved(high: float, low: float) -> None:
    args = {"forecast_high_f": high, "forecast_low_f": low}
    got = outcome_beside_ticket(WEATHER, "service.disconnect", args)
    assert (got == "approved") == (high < 95 and low > 32)
