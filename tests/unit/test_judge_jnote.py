"""Rules written in notation (webapp/judge/notation.py): readings, decisions, near-misses."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.judge.checks import REVIEW, SATISFIED, UNKNOWN, VIOLATED
from webapp.judge.compiler import compile_rule
from webapp.judge.request_view import RequestView


def _rule(text: str):
    return compile_rule(0, "pv:r0", text)


def _outcomes(text: str, args: dict, tool: str = "payments.charge") -> list[str]:
    view = RequestView(tool, args, "agent-1", None)
    return [c.evaluate(view).status for c in _rule(text).checks]


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("card_country in (RU, BY, IR) -> deny", "Deny when `card_country` is one of RU, BY, IR"),
        (
            "currency in {EUR, GBP}; anything else -> deny",
            "Deny unless `currency` is one of EUR, GBP",
        ),
        (
            "amount > 5000 -> fraud team review before charging",
            "Send to review when `amount` is above 5,000",
        ),
        (
            "payment_scheme == SEPA => beneficiary.iban required",
            'Deny when `payment_scheme` is "SEPA" and `beneficiary.iban` is missing or empty',
        ),
        (
            "name_check (CoP) result != match => review",
            'Send to review when `name_check.result` is not "match"',
        ),
        ("bulk (record_count > 1000) -> deny", "Deny when `record_count` is above 1,000"),
        ("if amount >= 5k then review", "Send to review when `amount` is at or above 5,000"),
    ],
)
def test_readings(text: str, reading: str) -> None:
    rule = _rule(text)
    assert rule.understanding == "understood", rule.unaccounted
    assert rule.checks[0].reading().startswith(reading)


def test_two_branches_read_each() -> None:
    rule = _rule("scope in {contact, lead} ok; scope=account -> DPO review")
    assert rule.understanding == "understood"
    readings = [c.reading() for c in rule.checks]
    assert readings[0].startswith("Allow when `scope` is one of contact, lead")
    assert readings[1].startswith('Send to review when `scope` is "account"')


@pytest.mark.parametrize(
    ("text", "args", "want"),
    [
        ("card_country in (RU, BY, IR) -> deny", {"card_country": "BY"}, VIOLATED),
        ("card_country in (RU, BY, IR) -> deny", {"card_country": "DE"}, SATISFIED),
        ("card_country in (RU, BY, IR) -> deny", {"card_country": "Russia"}, UNKNOWN),
        ("card_country in (RU, BY, IR) -> deny", {"card_country": "by"}, UNKNOWN),
        ("card_country in (RU, BY, IR) -> deny", {"amount": 1}, UNKNOWN),
        ("currency in {EUR, GBP}; anything else -> deny", {"currency": "USD"}, VIOLATED),
        ("currency in {EUR, GBP}; anything else -> deny", {"currency": "GBP"}, SATISFIED),
        ("currency in {EUR, GBP}; anything else -> deny", {"currency": "Euro"}, UNKNOWN),
        ("amount > 5000 -> review", {"amount": 5000}, SATISFIED),
        ("amount > 5000 -> review", {"amount": 5000.01}, REVIEW),
        ("amount >= 5000 -> review", {"amount": 5000}, REVIEW),
        ("amount > 5000 -> review", {"amount": "7000"}, UNKNOWN),
        ("kyc_status != verified -> deny", {"kyc_status": "pending"}, VIOLATED),
        ("kyc_status != verified -> deny", {"kyc_status": "verified"}, SATISFIED),
        ("hard_delete == true -> deny", {"hard_delete": "yes"}, UNKNOWN),
        ("risk_score > 80 || pep == true -> review", {"risk_score": 10, "pep": True}, REVIEW),
        ("risk_score > 80 || pep == true -> review", {"risk_score": 10, "pep": False}, SATISFIED),
        ("risk_score > 80 || pep == true -> review", {"risk_score": 90}, REVIEW),
        ("risk_score > 80 || pep == true -> review", {"risk_score": 10}, UNKNOWN),
    ],
)
def test_decisions(text: str, args: dict, want: str) -> None:
    assert _outcomes(text, args)[-1] == want


SEATS = "downgrade && seats_in_use > new_plan.seat_limit -> deny"


def _plan(kind: str | None, used: int, limit: int | None) -> dict:
    args: dict = {"seats_in_use": used}
    if kind is not None:
        args["change_type"] = kind
    if limit is not None:
        args["new_plan"] = {"seat_limit": limit}
    return args


@pytest.mark.parametrize(
    ("args", "want"),
    [
        (_plan("downgrade", 25, 20), VIOLATED),
        (_plan("downgrade", 20, 20), SATISFIED),
        (_plan("upgrade", 25, 20), SATISFIED),  # change_type names the kind: not a downgrade
        (_plan(None, 25, 20), UNKNOWN),  # nothing says whether it is a downgrade
        (_plan("Downgrade", 25, 20), UNKNOWN),  # another case: a human says
        (_plan("downgrade", 25, None), UNKNOWN),  # the limit is absent
    ],
)
def test_argument_against_argument(args: dict, want: str) -> None:
    assert _outcomes(SEATS, args, "billing.change_plan") == [want]


def test_required_after_condition() -> None:
    text = "payment_scheme == SEPA => beneficiary.iban required"
    assert _outcomes(text, {"payment_scheme": "SEPA", "beneficiary": {"iban": "DE89"}}) == [
        SATISFIED
    ]
    assert _outcomes(text, {"payment_scheme": "SEPA", "beneficiary": {"bic": "X"}}) == [VIOLATED]
    assert _outcomes(text, {"payment_scheme": "SWIFT", "beneficiary": {"bic": "X"}}) == [SATISFIED]
    assert _outcomes(text, {"beneficiary": {"iban": "DE89"}}) == [UNKNOWN]


@pytest.mark.parametrize(
    "text",
    [
        "card_country in (RU, BY, IR) -> deny for new customers",
        "retention_days >= 365 for audit logs",
        "contract_type == enterprise -> account manager review, unless renewing",
        "hard_delete=true -> deny; soft delete only",
        "amount > 500 -> no review needed",  # sparing the review above a bound: unread
        "new_limit > current_limit * 2 -> deny",
    ],
)
def test_near_misses_stay_partly_understood(text: str) -> None:
    assert _rule(text).understanding == "partly_understood"


def test_prose_is_left_to_the_other_readings() -> None:
    # no statement is notation: the prose readings answer as before
    rule = _rule("Refunds > 500 need manager approval")
    assert all(c.kind != "notation" for c in rule.checks)


_UNDERSTOOD = [
    "card_country in (RU, BY, IR) -> deny",
    "amount > 5000 -> fraud team review",
    "payment_scheme == SEPA => beneficiary.iban required",
    "downgrade && seats_in_use > new_plan.seat_limit -> deny",
    "kyc_status != verified -> deny",
]
_QUALIFIERS = [
    "unless the customer is a VIP",
    "for new customers",
    "during business hours",
    "except on weekends",
]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_UNDERSTOOD), st.sampled_from(_QUALIFIERS))
def test_a_qualifier_leaves_the_rule_partly_understood(text: str, qualifier: str) -> None:
    assert _rule(text).understanding == "understood"
    assert _rule(f"{text} {qualifier}").understanding != "understood"


@settings(max_examples=80, deadline=None)
@given(st.integers(min_value=-10_000, max_value=10_000), st.sampled_from([">", ">=", "<", "<="]))
def test_a_boundary_gives_the_side_the_operator_says(value: int, op: str) -> None:
    bound = 1000
    holds = {">": value > bound, ">=": value >= bound, "<": value < bound, "<=": value <= bound}[op]
    got = _outcomes(f"amount {op} {bound} -> deny", {"amount": value})
    assert got == [VIOLATED if holds else SATISFIED]


@pytest.mark.parametrize(
    ("text", "args"),
    [
        # a second spelling of the named argument (dots for underscores) that says otherwise
        ("card_country in (RU, BY, IR) -> deny", {"card_country": "DE", "card": {"country": "RU"}}),
        # an ISO code of another length, a list, a scale beside the number
        ("card_country in (RU, BY, IR) -> deny", {"card_country": "RUS"}),
        ("card_country in (RU, BY, IR) -> deny", {"card_country": ["DE", "RU"]}),
        ("amount > 5000 -> deny", {"amount": 6, "amount_unit": "thousands"}),
        # a value close to the literal, a number written as a string
        ("env == prod -> deny", {"env": "production"}),
        (
            "seats_in_use > new_plan.seat_limit -> deny",
            {"seats_in_use": 30, "new_plan": {"seat_limit": "20"}},
        ),
        # a bare word bound to no kind of the request
        (
            SEATS,
            {"contract_type": "downgrade_x", "seats_in_use": 30, "new_plan": {"seat_limit": 20}},
        ),
    ],
)
def test_doubtful_requests_are_unknown(text: str, args: dict) -> None:
    assert _outcomes(text, args, "billing.change_plan") == [UNKNOWN]


def test_an_equality_before_an_arrow_is_never_a_requirement() -> None:
    # 'tier == a' is not taken by the grammar ('a' is a word it reserves): no other reading may
    # decide it as 'Deny when tier is not a'
    assert _rule("tier == a -> deny").understanding == "partly_understood"


@pytest.mark.parametrize(
    ("text", "args", "want"),
    [
        ("amount > 5000 EUR -> review", {"amount": 6000, "currency": "EUR"}, REVIEW),
        ("amount > 5000 EUR -> review", {"amount": 6000, "currency": "USD"}, UNKNOWN),
        ("amount > $5,000 -> deny", {"amount": 4000, "currency": "USD"}, SATISFIED),
        ("amount > $5,000 -> deny", {"amount": 6000}, UNKNOWN),  # no currency shown
        ("discount_pct > 20% -> review", {"discount_pct": 25}, REVIEW),
        ("discount_pct > 20% -> review", {"discount_pct": 0.3}, UNKNOWN),  # a fraction?
        ("!is_verified -> deny", {"is_verified": False}, VIOLATED),
        ("not is_verified -> deny", {"is_verified": True}, SATISFIED),
        ("!is_verified -> deny", {"verified": True}, UNKNOWN),
        ("deny if card_country in (RU, BY)", {"card_country": "RU"}, VIOLATED),
        ("Deny: card_country in {RU, BY}", {"card_country": "DE"}, SATISFIED),
        ("security team review if risk_score >= 70", {"risk_score": 70}, REVIEW),
    ],
)
def test_money_percent_negation_and_effect_first(text: str, args: dict, want: str) -> None:
    assert _rule(text).understanding == "understood"
    assert _outcomes(text, args) == [want]


def test_a_plain_word_falls_back_on_the_reading_in_words() -> None:
    # 'discount' names the rule's thing; no argument has that name, so the prose reading (which
    # binds `discount_pct`) decides; an argument named exactly so is compared as written
    text = "When discount >= 20% => VP approval."
    assert _outcomes(text, {"discount_pct": 15}, "sales.apply_discount") == [SATISFIED]
    assert _outcomes(text, {"discount_pct": 25}, "sales.apply_discount") == [REVIEW]
    assert _outcomes(text, {"discount": 25}, "sales.apply_discount") == [REVIEW]
    # a plain word compared with a value has no such fallback: unknown
    assert _outcomes("scope == account -> review", {"kind": "account"}) == [UNKNOWN]


def test_a_plural_noun_is_prose() -> None:
    rule = _rule("refunds >500 EUR -> manager")
    assert all(c.kind != "notation" for c in rule.checks)


@pytest.mark.parametrize(
    ("text", "args", "want"),
    [
        (
            "timeout_minutes between 15 and 60; anything else -> deny",
            {"timeout_minutes": 61},
            VIOLATED,
        ),
        (
            "timeout_minutes between 15 and 60; anything else -> deny",
            {"timeout_minutes": 15},
            SATISFIED,
        ),
        ("Amount > 5000 -> review", {"amount": 6000}, REVIEW),  # a sentence's capital
        # another argument carrying the whole name may be the value that counts
        (
            "session_timeout_minutes between 15 and 60 -> ok; anything else -> deny",
            {"session_timeout_minutes": 45, "idle_session_timeout_minutes": 600},
            UNKNOWN,
        ),
        ("amount > 5000 -> deny", {"amount": 100, "amount_override": 9000}, UNKNOWN),
        ("amount > 5000 -> deny", {"amount": 100, "amount_override": 200}, SATISFIED),
    ],
)
def test_ranges_capitals_and_names_beside(text: str, args: dict, want: str) -> None:
    assert _outcomes(text, args) == [want]


def test_a_lower_case_m_is_not_read_as_millions() -> None:
    rule = _rule("Excavation > 1.5m deep requires shoring plan ref")
    assert all(c.kind != "notation" for c in rule.checks)


def test_several_required_arguments_each_a_check() -> None:
    text = (
        "payment_scheme == SWIFT => beneficiary.swift_bic and beneficiary.account_number required"
    )
    args = {"payment_scheme": "SWIFT", "beneficiary": {"swift_bic": "DEUTDEFF"}}
    assert _outcomes(text, args) == [SATISFIED, VIOLATED]
    args = {"payment_scheme": "SEPA", "beneficiary": {}}
    assert _outcomes(text, args) == [SATISFIED, SATISFIED]


@pytest.mark.parametrize(
    ("text", "args", "want"),
    [
        ("If x_y == true, deny", {"x_y": True}, VIOLATED),
        ("When risk_score >= 80, block", {"risk_score": 79}, SATISFIED),
        ("If card_country in (RU, BY), deny", {"card_country": "BY"}, VIOLATED),
    ],
)
def test_if_condition_comma_effect(text: str, args: dict, want: str) -> None:
    assert _rule(text).understanding == "understood"
    assert _outcomes(text, args) == [want]
