"""The lead's readings of the fifteenth session: which argument a bound compares.

Each class here approved what its rule forbids on the start engine: a bound read on the request's
money instead of the argument the rule names ('qty_units must not exceed 50.', 'Party size max
6.', 'Min age 21.'), a unit written in the subject ('Overtime hours max 12.'), a metre read as a
million ('Pallet height max 1.8 m'), a count argument passed over for a short list. Beside them,
two readings that let plain rules decide: a label before a backticked argument ('5) `stay_days`
max 90.') and a closed list after 'must be' ('Carrier must be UPS or FedEx.').
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.compiler import compile_rule

# (rule, the argument it bounds, a value it refuses, a value it allows); every request also
# carries a money argument far inside the bound, the decoy the bound had compared
NAMED_BOUNDS = [
    ("qty_units must not exceed 50.", "qty_units", 80, 50),
    ("qty_units cannot exceed 50", "qty_units", 51, 12),
    ("The qty_units must be 50 or fewer.", "qty_units", 51, 50),
    ("refills_remaining should be at least 1", "refills_remaining", 0, 2),
    ("Party size max 6.", "party_size", 9, 6),
    ("Nights max 14.", "nights", 20, 14),
    ("Seats: max 4", "seats", 7, 4),
    ("Overtime hours max 12.", "overtime_hours", 14, 12),
    ("Stay days max 90.", "stay_days", 95, 90),
    ("Min age 21.", "driver_age", 19, 21),
    ("Minimum age of 18 for members.", "member_age", 16, 18),
    ("5) `stay_days` max 90.", "stay_days", 95, 90),
]


@pytest.mark.parametrize(("text", "arg", "refused", "allowed"), NAMED_BOUNDS)
def test_a_bound_compares_the_argument_its_rule_names_not_the_money(text, arg, refused, allowed):
    assert compile_rule(0, "c0", text).understanding == "understood"
    decoy = {"amount_usd": 1, "daily_rate": 30}
    assert outcome_beside_ticket(text, "desk.act", {arg: refused, **decoy}) == "denied"
    # (money over a bare bound beside an argument named in part is read both ways: jred31)
    assert outcome_beside_ticket(text, "desk.act", {arg: allowed, "amount_usd": 1}) == "approved"


def test_a_bound_with_a_currency_still_reads_the_money():
    # the subject words name what the money is for, not a count of it
    text = "Max 500 USD credits."
    args = {"credits": 900, "credit_amount": 300, "currency": "USD"}
    assert outcome_beside_ticket(text, "ops.credit", args) == "approved"
    args = {"credits": 1, "credit_amount": 600, "currency": "USD"}
    assert outcome_beside_ticket(text, "ops.credit", args) == "denied"


def test_a_unit_after_a_number_in_a_condition_is_that_numbers():
    # 'over 30 days' is the condition's; the 5,000 bound is not read as days
    rule = compile_rule(0, "c0", "Loans over 30 days: max 5000")
    assert "days" not in " ".join(c.reading() for c in rule.checks if "5,000" in c.reading())


def test_a_metre_after_a_word_of_size_is_a_length_not_a_million():
    text = "Pallet height max 1.8 m"
    assert "1.80 m" in compile_rule(0, "c0", text).checks[0].reading()
    assert outcome_beside_ticket(text, "ship", {"pallet_height_cm": 200, "value_usd": 5}) == (
        "denied"
    )
    assert outcome_beside_ticket(text, "ship", {"pallet_height_cm": 170, "value_usd": 5}) == (
        "approved"
    )
    # money keeps its million
    rule = compile_rule(0, "c0", "Deals over 1.5m need CFO sign-off.")
    assert "1,500,000" in rule.checks[0].reading()


def test_a_count_argument_is_judged_beside_the_list_of_the_same_noun():
    text = "A batch may contain at most 500 records."
    args = {"records": [1, 2], "record_count": 900, "amount": 5}
    assert outcome_beside_ticket(text, "export", args) != "approved"
    args = {"records": [1, 2], "record_count": 2, "amount": 5}
    assert outcome_beside_ticket(text, "export", args) == "approved"


MUST_BE_LISTED = [
    ("Carrier must be UPS or FedEx.", "carrier", "FedEx", "DHL"),
    ("carrier must be UPS or FedEx", "carrier", "ups", "DHL"),
    ("Tier must be gold or silver.", "tier", "silver", "bronze"),
    ("The payment method must be ACH or wire.", "payment_method", "ACH", "card"),
    ("Env must be staging or dev.", "env", "dev", "prod"),
]


@pytest.mark.parametrize(("text", "arg", "good", "bad"), MUST_BE_LISTED)
def test_a_closed_list_after_must_be_is_an_allow_list_on_its_subject(text, arg, good, bad):
    assert compile_rule(0, "c0", text).understanding == "understood"
    assert outcome_beside_ticket(text, "desk.act", {arg: good}) == "approved"
    assert outcome_beside_ticket(text, "desk.act", {arg: bad}) == "denied"
    # another argument holding a listed value never speaks for the subject
    assert outcome_beside_ticket(text, "desk.act", {arg: bad, "backup": good}) != "approved"


@pytest.mark.parametrize(
    "text",
    [
        # a plural names a class of requests by a qualifier the list would not keep
        "Rush orders must be FedEx or UPS.",
        # a bound, not a list
        "The qty_units must be 50 or fewer.",
        # states of a thing, not names it takes
        "Invoices must be signed or countersigned.",
        "The flag must be true or false.",
    ],
)
def test_shapes_that_are_no_closed_list_are_not_restated(text):
    rule = compile_rule(0, "c0", text)
    if text.startswith("Rush"):
        # read as a list it denied a carrier for a request that is no rush order
        assert outcome_beside_ticket(text, "ship", {"rush": False, "carrier": "DHL"}) != "denied"
    assert not any(
        "is one of" in c.reading() or "is not one of" in c.reading() for c in rule.checks
    )


@given(
    arg=st.sampled_from(["qty_units", "pallet_count", "guest_count", "crew_size"]),
    bound=st.integers(min_value=1, max_value=500),
    over=st.integers(min_value=1, max_value=1000),
    decoy=st.integers(min_value=0, max_value=10_000),
    modal=st.sampled_from(["must not exceed", "cannot exceed", "must be at most", "has to be <="]),
)
def test_a_named_bound_never_approves_a_value_over_it_whatever_the_money(
    arg, bound, over, decoy, modal
):
    text = f"{arg} {modal} {bound}."
    got = outcome_beside_ticket(text, "desk.act", {arg: bound + over, "amount_usd": decoy})
    assert got != "approved"


def test_an_altitude_in_metres_is_a_length():
    text = "Altitude max 120 m."
    assert outcome_beside_ticket(text, "drone.fly", {"altitude_ft": 500, "battery_pct": 90}) == (
        "denied"
    )


def test_a_count_of_approvers_is_what_the_rule_asks_never_its_gate():
    # read as a gate ('at least 2 approvers' picks the requests), one approver put the rule out
    # of reach and the release was approved
    text = "At least 2 approvers are required for releases."
    args = {"approver_count": 1, "version": "1"}
    assert outcome_beside_ticket(text, "release.ship", args) != "approved"


@pytest.mark.parametrize(
    ("text", "tool", "arg"),
    [
        ("Don't restock items with expiry within 30 days.", "stock.restock", "days_to_expiry"),
        ("No lots expiring within 14 days may ship.", "lots.ship", "days_until_expiry"),
    ],
)
def test_a_prohibition_of_an_end_within_a_time_forbids_up_to_the_bound(text, tool, arg):
    assert outcome_beside_ticket(text, tool, {arg: 10, "qty": 5}) == "denied"
    assert outcome_beside_ticket(text, tool, {arg: 60, "qty": 5}) == "approved"


def test_an_obligation_to_end_within_a_time_stays_a_cap():
    rule = compile_rule(0, "c0", "Certificates must expire within 90 days.")
    assert "above 90 days" in rule.checks[0].reading()


@pytest.mark.parametrize(
    "text",
    [
        "Rating below BBB- -> deny",
        "Min cpty rating A- (S&P scale).",
        "Issuers rated BB+ or lower are excluded.",
        "Counterparties must be rated >= Baa3.",
    ],
)
def test_a_credit_rating_compared_on_its_ladder_never_decides(text):
    # read as words the request is about, 'Rating below BBB-' denied an investment-grade BBB
    rule = compile_rule(0, "c0", text)
    assert not rule.decides
    for rating in ("BBB", "A", "BB"):
        assert outcome_beside_ticket(text, "invest.buy", {"rating": rating}) == "pending_review"


@pytest.mark.parametrize(
    ("text", "arg", "refused", "allowed"),
    [
        ("Tenor > 12m -> deny", "tenor_months", 18, 6),
        ("Maturity: max 6m", "maturity_days", 300, 90),
    ],
)
def test_a_glued_m_right_after_a_word_of_duration_is_months(text, arg, refused, allowed):
    assert outcome_beside_ticket(text, "loan.book", {arg: refused, "amount": 5}) == "denied"
    assert outcome_beside_ticket(text, "loan.book", {arg: allowed, "amount": 5}) == "approved"


def test_term_loans_over_12m_stay_money():
    rule = compile_rule(0, "c0", "Term loans over 12m need board approval.")
    assert "12,000,000" in rule.checks[0].reading()


def test_a_list_member_is_never_the_argument_of_the_rest():
    # read as "Deny unless `UPS` is FedEx", a hazmat shipment by UPS was denied
    text = "Only UPS or FedEx for hazmat."
    assert not compile_rule(0, "c0", text).decides
    assert outcome_beside_ticket(text, "ship", {"hazmat": True, "carrier": "UPS"}) != "denied"
    assert outcome_beside_ticket(text, "ship", {"hazmat": True, "UPS": "FedEx"}) != "approved"


def test_a_gloss_of_a_number_is_never_the_value_refused():
    # read as "Deny when an argument is Do Not Travel", a booking at level 4 was approved
    text = "1) `dest_risk_level` 4 (Do Not Travel) -> no booking."
    assert not compile_rule(0, "c0", text).decides
    assert outcome_beside_ticket(text, "travel.book", {"dest_risk_level": 4}) != "approved"


def test_a_gloss_of_a_code_by_another_name_still_decides():
    text = "Account 999900001111 (payments-prod) is under change freeze: no IAM changes."
    rule = compile_rule(0, "c0", text)
    assert "payments-prod" not in rule.unaccounted


@pytest.mark.parametrize(
    "text",
    [
        "1. Tech needs a type auth -> `aircraft_type` must be in `tech_type_auths`.",
        "aircraft_type must be one of tech_type_auths.",
    ],
)
def test_one_argument_among_another_arguments_values_never_decides(text):
    # read as "`aircraft_type` is required", a B737 sign-off by an A320-only tech was approved
    assert not compile_rule(0, "c0", text).decides
    args = {"aircraft_type": "B737", "tech_type_auths": ["A320"]}
    assert outcome_beside_ticket(text, "wo.signoff", args) != "approved"


def test_a_list_of_snake_case_values_is_not_another_argument():
    text = "The reason code must be one of service_outage, delivery_delay or billing_error."
    assert "service_outage" not in compile_rule(0, "c0", text).unaccounted


def test_a_tier_that_passes_on_its_own_is_no_cap():
    # read as "Deny when the amount is above 5,000", 5,001 was denied where the rule sends it to
    # a director
    text = (
        "2) `est_total_usd`: <= 5,000 auto; 5,000.01-25,000 -> director approval; "
        "> 25,000 -> CFO tier, not submittable by the bot (deny)."
    )
    assert outcome_beside_ticket(text, "travel.preapprove", {"est_total_usd": 5001}) != "denied"
    assert outcome_beside_ticket(text, "travel.preapprove", {"est_total_usd": 30000}) != "approved"


def test_a_forward_tenor_in_months_decides():
    # jred12 had kept 'Fwds: max tenor 12m' partly understood while '12m' read as 12 million
    text = "Fwds: max tenor 12m"
    assert "12 months" in compile_rule(0, "c0", text).checks[0].reading()
    assert outcome_beside_ticket(text, "fwds.book", {"tenor_days": 400}) == "denied"
    assert outcome_beside_ticket(text, "fwds.book", {"tenor_days": 300}) == "approved"


def test_an_open_kind_named_by_an_argument_is_for_a_human_whatever_the_verb():
    # found by jappr: the unshown 'promoting' set the list aside, and a betting campaign passed
    text = "Campaigns promoting regulated products (alcohol, gambling, tobacco, etc.) need Legal review."
    args = {"product_category": "sports betting"}
    assert outcome_beside_ticket(text, "campaign.send", args) == "pending_review"


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ("no consent = no procedure (`consent_signed`)", {"consent_signed": False}),
        ("- no debits to closed accounts (`account_status`)", {"account_status": "closed"}),
    ],
)
def test_an_argument_name_in_backticks_is_never_the_value_refused(text, args):
    # read as "Deny when an argument is consent_signed", consent_signed: false was approved
    assert not compile_rule(0, "c0", text).decides
    assert outcome_beside_ticket(text, "procedure.book", args) != "approved"


def test_fields_listed_by_name_stay_a_list():
    text = "1. Exports must not include: `ssn_last4`, `disability_type`, `home_address`."
    assert compile_rule(0, "c0", text).understanding == "understood"


@pytest.mark.parametrize(
    ("text", "refused", "allowed", "effect"),
    [
        ("`channel` = cash -> deny.", {"channel": "cash"}, {"channel": "card"}, "denied"),
        (
            "`currency` != USD -> treasury review.",
            {"currency": "EUR"},
            {"currency": "USD"},
            "pending_review",
        ),
    ],
)
def test_a_backticked_name_compared_with_equals_is_the_argument(text, refused, allowed, effect):
    # read as "Deny when an argument is channel", a cash refund was approved
    assert outcome_beside_ticket(text, "refund.issue", {**refused, "amount": 5}) == effect
    assert outcome_beside_ticket(text, "refund.issue", {**allowed, "amount": 5}) == "approved"


@pytest.mark.parametrize("text", ["`region` not EU -> deny.", "region not EU -> deny."])
def test_a_value_after_not_is_never_the_one_refused(text):
    # read as "Deny when country or region is EU", a us-east-1 deployment was approved
    assert not compile_rule(0, "c0", text).decides
    assert outcome_beside_ticket(text, "deploy.run", {"region": "us-east-1"}) != "approved"


def test_an_argument_required_by_name_that_no_check_reads_never_decides():
    # found by jred31: read as the cap alone, a refund without reason_code was approved
    text = "Refunds must include reason_code, max 500 USD."
    assert not compile_rule(0, "c0", text).decides
    args = {"amount": 100, "currency": "USD"}
    assert outcome_beside_ticket(text, "refund.issue", args) != "approved"
