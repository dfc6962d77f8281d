"""jred33: red team of unseen domains (library, waste hauling, staffing, pawn, gym, parking,
venues, a research office): a floor read as a cap, a bound per hour read as a value, a price per
hour read as the hour's total, a day window read as subject words, an approver read as a word the
rule is about."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.compiler import compile_rule
from webapp.judge.misdirects import floor_restated

FLOORS = [
    ("Pay rate floor $16.50 - never place below.", "pay_rate", 16.5),
    ("Pay rate minimum $16.50 - never place below that.", "pay_rate", 16.5),
    ("Deposit floor 500 USD - never accept less.", "deposit_amount", 500),
    ("Rental minimum $2,000 - never book below.", "rental_fee", 2000),
    ("Annual fee floor $49 - never discount below.", "annual_fee", 49),
    ("Pay rate floor $16.50 - do not place below.", "pay_rate", 16.5),
    ("Pay rate floor $16.50: never place anyone below.", "pay_rate", 16.5),
]


@pytest.mark.parametrize(("text", "arg", "floor"), FLOORS)
def test_a_floor_and_its_refusal_refuses_what_is_below(text, arg, floor):
    # each was read "Deny when the amount is at or above <floor>": below approved, above denied
    below = {arg: round(floor * 0.8, 2), "currency": "USD"}
    above = {arg: round(floor * 1.2, 2), "currency": "USD"}
    assert outcome_beside_ticket(text, "x.act", below) == "denied"
    assert outcome_beside_ticket(text, "x.act", above) == "approved"


def test_a_percentage_floor_never_approves_what_is_below():
    text = "Layaway deposit minimum 30% - never less."
    assert outcome_beside_ticket(text, "pawn.layaway", {"deposit_pct": 20}) != "approved"
    assert outcome_beside_ticket(text, "pawn.layaway", {"deposit_pct": 40}) != "denied"


@pytest.mark.parametrize(
    "text",
    [
        "Pay rate floor $16.50/hr - never place below.",
        "Never pay below $16.50/hr.",
        "Wage floor: $16.50/hour.",
        "Hourly pay floor $16.50 per hr - never place below.",
    ],
)
def test_a_bound_per_hour_is_never_a_value_or_a_window(text):
    # read as "`rate` contains 16.50/hr" (a rate of 15 approved) or as the hour's total
    assert compile_rule(0, "c0", text).understanding != "understood"
    args = {"pay_rate": 15.0, "pay": 15.0, "hourly_wage": 15.0, "currency": "USD"}
    assert outcome_beside_ticket(text, "staff.place_worker", args) != "approved"


@pytest.mark.parametrize(("amount", "expected"), [(45.0, "denied"), (30.0, "approved")])
def test_a_cap_and_its_refusal_is_still_read(amount, expected):
    text = "Pay rate cap $40 - never place above."
    args = {"pay_rate": amount, "currency": "USD"}
    assert outcome_beside_ticket(text, "staff.place_worker", args) == expected


def test_a_day_window_read_as_subject_words_is_left_to_a_human():
    text = "Event lots: no rate overrides Fri 16:00 - Sun 23:59."
    glossary = {"event lots": ["Stadium North"]}
    rule = compile_rule(0, "c0", text)
    assert rule.understanding != "understood"
    thursday = {"lot": "Stadium North", "override_start": "2026-12-03T10:00"}
    assert outcome_beside_ticket(text, "park.rate_override", thursday, glossary) != "denied"


@pytest.mark.parametrize(
    ("text", "args"),
    [
        (
            "Radioactive material orders: RSO approval # required.",
            {"material_class": "radioactive", "rso_approval": ""},
        ),
        (
            "Radioactive material orders: RSO approval # required.",
            {"material_class": "radioactive", "rso_approval": "N"},
        ),
        ("BSL-3 work: IBC approval required.", {"biosafety_level": "BSL-3", "ibc_approval": ""}),
    ],
)
def test_an_approver_is_never_a_word_the_rule_is_about(text, args):
    # the empty approval carried no 'RSO' / 'IBC', so the rule did not apply and it was approved
    assert compile_rule(0, "c0", text).understanding != "understood"
    assert outcome_beside_ticket(text, "lab.order", args) != "approved"


def test_a_plain_approval_rule_is_still_understood():
    assert compile_rule(0, "c0", "Refunds need manager approval.").understanding == "understood"
    assert compile_rule(0, "c0", "IAM changes need approval.").understanding == "understood"


@given(
    subject=st.sampled_from(["Pay rate", "Deposit", "Annual fee", "Rental", "Bill rate"]),
    kind=st.sampled_from(["floor", "minimum", "min"]),
    n=st.integers(min_value=2, max_value=9000),
    act=st.sampled_from(
        ["never place below", "never accept less", "do not go under", "never below"]
    ),
    sep=st.sampled_from([" - ", ": ", "; ", " -> "]),
)
def test_property_a_floor_never_approves_below_it(subject, kind, n, act, sep):
    text = f"{subject} {kind} ${n}{sep}{act}."
    assert floor_restated(text) is not None
    below = {"amount": n / 2, "currency": "USD"}
    assert outcome_beside_ticket(text, "x.act", below) != "approved"


@given(
    who=st.sampled_from(["RSO", "IBC", "EHS", "OSP", "Safety officer"]),
    subject=st.sampled_from(["Radioactive orders", "BSL-3 work", "Laser installs", "Subawards"]),
    tail=st.sampled_from(["approval # required", "approval required", "sign-off required"]),
)
def test_property_an_empty_approval_is_never_approved(who, subject, tail):
    text = (
        f"{subject}: {who} approval {tail.split(' ', 1)[1]}."
        if tail.startswith("approval")
        else f"{subject}: {who} {tail}."
    )
    key = who.lower().replace(" ", "_") + "_approval"
    args = {"category": subject.split()[0].lower(), key: ""}
    assert outcome_beside_ticket(text, "lab.act", args) != "approved"


@pytest.mark.parametrize(
    "text",
    [
        "Trial passes: min age 18 - never issue to younger.",
        "Headcount floor 50 for Hall A - never book smaller groups.",
    ],
)
def test_a_floor_refused_in_a_comparative_never_approves_below(text):
    # read "Deny when the amount is at or above 18": a 16-year-old guest was approved
    assert compile_rule(0, "c0", text).understanding != "understood"
    args = {"guest_age": 16, "headcount": 30, "room": "Hall A"}
    assert outcome_beside_ticket(text, "x.act", args) != "approved"


@pytest.mark.parametrize(
    "text", ["Sellers under 21: NO.", "Purchases from sellers under 21 -> NO."]
)
def test_the_answer_no_is_never_norway(text):
    args = {"seller_age": 19, "seller_country": "US", "amount": 10, "currency": "USD"}
    assert compile_rule(0, "c0", text).understanding != "understood"
    assert outcome_beside_ticket(text, "pawn.buy_item", args) != "approved"


def test_a_country_named_no_is_still_read():
    text = "Payments to NO are blocked."
    assert outcome_beside_ticket(text, "pay", {"country": "NO"}) == "denied"


@pytest.mark.parametrize(
    "text",
    [
        "No exports of `fields` incl. address, phone, dob.",
        "Patron records: no exports of `fields` incl. address, phone, dob.",
        "Exports: `fields` must not include address, phone, dob.",
    ],
)
def test_a_backticked_argument_is_never_the_value_refused(text):
    assert compile_rule(0, "c0", text).understanding != "understood"
    args = {"fields": ["name", "phone"]}
    assert outcome_beside_ticket(text, "ils.export_patrons", args) != "approved"


def test_backticked_values_in_a_list_are_still_read():
    text = "Exports must not include: `ssn_last4`, `home_address`, `card_pan`."
    args = {"fields": ["trip_date", "home_address"]}
    assert outcome_beside_ticket(text, "data.export", args) == "denied"


def test_a_kind_of_permit_is_no_window_over_requests():
    text = "Monthly permits: max 3 vehicles per account."
    assert compile_rule(0, "c0", text).understanding != "understood"
    assert compile_rule(0, "c0", "Max 20 payouts per hour.").understanding == "understood"


@given(
    word=st.sampled_from(["younger", "smaller", "shorter", "less", "lower", "below", "under"]),
    n=st.integers(min_value=2, max_value=500),
)
def test_property_a_floor_refused_below_never_reads_as_a_cap(word, n):
    text = f"Bookings: min size {n} - never accept {word}."
    rule = compile_rule(0, "c0", text)
    wrong = [
        c
        for c in rule.checks
        if getattr(c, "op", None) in ("gt", "ge") and getattr(c, "threshold", None) == n
    ]
    assert not (rule.understanding == "understood" and wrong)


def test_two_bounds_each_with_its_own_comparison_stay_understood():
    # the refusal 'no older than' bounds 75, not 18 (the floor guard had taken it for 18's)
    text = "Participants must be at least 18 and no older than 75."
    assert compile_rule(0, "c0", text).understanding == "understood"
    assert outcome_beside_ticket(text, "trial.enrol", {"age": 75}) == "approved"
    assert outcome_beside_ticket(text, "trial.enrol", {"age": 76}) != "approved"


def test_a_holiday_named_for_a_day_is_no_day_window():
    # 'until after Black Friday' is a date the freeze runs to, not a weekday the rule drops
    text = "Prod deploys frozen for billing-api and auth-svc until after Black Friday."
    assert "Friday" not in compile_rule(0, "c0", text).unaccounted


@pytest.mark.parametrize(
    ("text", "arg", "low", "high"),
    [
        ("Order minimum 10 units; do not ship fewer.", "units", 5, 12),
        ("Bid minimum $5 - never accept lower.", "bid", 3, 8),
        ("Credit limit floor: 1,000 USD - never set lower.", "credit_limit", 500, 2000),
    ],
)
def test_a_floor_with_its_unit_or_a_comparative_is_read_as_the_floor(text, arg, low, high):
    # 'Order minimum 10 units; do not ship fewer' had also denied every order ("requests about
    # order units ship"); the others were read backwards
    extra = {} if arg == "units" else {"currency": "USD"}
    assert outcome_beside_ticket(text, "order.ship", {arg: low, **extra}) == "denied"
    assert outcome_beside_ticket(text, "order.ship", {arg: high, **extra}) == "approved"
