"""jred32: misreadings found in domains the bench had not seen (satellite ops, mining, film,
esports, courier, brewery, animal shelter, museum loans): keep-outs 'within N deg of', a bare 'm'
read as millions, the unit letters 't' and 's', a named counter read as a count of requests, a
cap and a time ban read as one conditional, an allow-list met by a note."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.compiler import compile_rule
from webapp.judge.quantities import find_quantities
from webapp.judge.unitreads import bare_m_in_unit

SUN = "Don't point the imager within 30 deg of the sun (sun_angle_deg)."
MOON = "Keep-out: no slews within 10 deg of the moon (moon_angle_deg)."


@pytest.mark.parametrize(
    ("rule", "tool", "arg", "value", "expected"),
    [
        (SUN, "imager.point", "sun_angle_deg", 12, "denied"),  # had been approved
        (SUN, "imager.point", "sun_angle_deg", 30, "denied"),  # the bound is inside the keep-out
        (SUN, "imager.point", "sun_angle_deg", 75, "approved"),  # had been denied
        (MOON, "sat.slew", "moon_angle_deg", 4, "denied"),
        (MOON, "sat.slew", "moon_angle_deg", 25, "approved"),
    ],
)
def test_a_keep_out_within_an_angle_forbids_inside_it(rule, tool, arg, value, expected):
    assert outcome_beside_ticket(rule, tool, {arg: value}) == expected


def test_a_keep_out_on_no_named_argument_is_not_read_as_a_cap():
    # 'No imaging within 30 degrees of the sun' had read "Deny when the number of degrees is
    # above 30" and approved 12 degrees
    text = "No imaging within 30 degrees of the sun."
    assert compile_rule(0, "c0", text).understanding != "understood"
    assert outcome_beside_ticket(text, "imager.point", {"sun_angle_deg": 12}) != "approved"


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=5, max_value=60), st.integers(min_value=0, max_value=60))
def test_no_angle_inside_a_keep_out_is_approved(bound, inside):
    angle = min(inside, bound)
    rule = f"Don't point the imager within {bound} deg of the sun (sun_angle_deg)."
    assert outcome_beside_ticket(rule, "imager.point", {"sun_angle_deg": angle}) != "approved"


@pytest.mark.parametrize(
    ("rule", "args"),
    [
        ("Drone survey altitude max 120 m (altitude_m).", {"altitude_m": 400}),
        ("Drone altitude: max 120 m.", {"altitude_m": 400}),
        ("Max altitude 120m.", {"altitude_m": 400}),
        ("Crane boom reach must not exceed 40 m.", {"boom_reach_m": 55}),
        ("Gas sensor timeout max 30m (sensor_timeout_min).", {"sensor_timeout_min": 90}),
        ("Session timeout max 30m (session_timeout_min).", {"session_timeout_min": 90}),
    ],
)
def test_a_bare_m_beside_no_money_is_never_millions(rule, args):
    # each was read "… above 120,000,000" (or 40 or 30 million) and approved
    assert outcome_beside_ticket(rule, "ops.run", args) != "approved"
    rule_read = compile_rule(0, "c0", rule)
    assert all(getattr(c, "threshold", 0) < 1_000_000 for c in rule_read.checks)


def test_a_bare_m_beside_money_stays_millions():
    text = "Payouts above 1.5m require CFO approval."
    assert outcome_beside_ticket(text, "payouts.create", {"amount": 2_000_000}) == "pending_review"
    assert outcome_beside_ticket(text, "payouts.create", {"amount": 900_000}) == "approved"


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("altitude max 120 m (altitude_m)", "metres"),
        ("reach must not exceed 40 m", "metres"),
        ("timeout max 30m (sensor_timeout_min)", "minutes"),
        ("Payouts above 1.5m require CFO approval", None),
        ("Margin loans: max 2m USD", None),
    ],
)
def test_bare_m_is_written_in_the_unit_the_rule_says(text, unit):
    out = bare_m_in_unit(text)
    assert (unit in out) if unit else out == text


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=500), st.integers(min_value=1, max_value=1000))
def test_no_reach_over_a_cap_in_metres_is_approved(cap, over):
    rule = f"Crane boom reach must not exceed {cap} m."
    assert outcome_beside_ticket(rule, "crane.lift", {"boom_reach_m": cap + over}) != "approved"


@pytest.mark.parametrize(
    ("text", "family", "base"),
    [("max 1.2 t", "mass", 1200.0), ("at least 90 s", "time", 90.0), ("max 8 t", "mass", 8000.0)],
)
def test_unit_letters_after_a_number_are_units(text, family, base):
    (q,) = find_quantities(text)
    assert q.unit_family == family
    assert q.value * q.unit_factor == pytest.approx(base)


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        ("Minimum ballast 2 t (ballast_kg).", {"ballast_kg": 500}, "denied"),  # had passed
        ("Minimum ballast 2 t (ballast_kg).", {"ballast_kg": 2500}, "approved"),
        ("Stream delay min 2 min (stream_delay_s).", {"stream_delay_s": 30}, "denied"),
        ("Stream delay min 2 min (stream_delay_s).", {"stream_delay_s": 150}, "approved"),
    ],
)
def test_a_bound_in_one_unit_compares_an_argument_in_another(rule, args, expected):
    assert outcome_beside_ticket(rule, "ops.run", args) == expected


def test_an_argument_in_seconds_bound_by_the_rule_words_is_in_seconds():
    # `delay_s: 30` had passed 'at least 2 minutes' as 30 minutes
    text = "Stream delay at least 2 minutes."
    assert outcome_beside_ticket(text, "stream.configure", {"delay_s": 30}) != "approved"


def test_a_cooldown_in_seconds_never_passes_milliseconds_as_seconds():
    text = "Cooldown at least 90 s between commands (cooldown_ms)."
    assert outcome_beside_ticket(text, "sat.cmd", {"cooldown_ms": 5000}) != "approved"


@pytest.mark.parametrize(
    ("rule", "args"),
    [
        ("Max 2 burns per day (burns_today).", {"burns_today": 3}),
        ("Guest pours capped at 4 per day (pours_today).", {"pours_today": 6}),
        ("Max 3 roster swaps per week (swaps_this_week).", {"swaps_this_week": 5}),
    ],
)
def test_a_named_counter_is_not_a_count_of_requests(rule, args):
    # read "the number of requests per day is above 2", an empty history approved a third burn
    assert compile_rule(0, "c0", rule).understanding != "understood"
    assert outcome_beside_ticket(rule, "ops.run", args) != "approved"


HAPPY = "Happy hour discounts max 25% (discount_pct), never after 19:00."
REFUND = "Merch refunds max 50 USD (refund_usd), never on weekends."


@pytest.mark.parametrize(
    ("rule", "args"),
    [
        (HAPPY, {"discount_pct": 40, "local_time": "15:00"}),  # over the cap before 19:00
        (HAPPY, {"discount_pct": 10, "local_time": "21:00"}),  # any discount after 19:00
        (REFUND, {"refund_usd": 90, "date": "2026-11-25"}),  # over the cap on a Wednesday
        (REFUND, {"refund_usd": 30, "date": "2026-11-28"}),  # a Saturday
        (
            "Pours max 16 oz, no pours after 23:00 (pour_oz).",
            {"pour_oz": 20, "local_time": "20:00"},
        ),
    ],
)
def test_a_cap_and_a_time_ban_are_two_obligations(rule, args):
    assert compile_rule(0, "c0", rule).understanding != "understood"
    assert outcome_beside_ticket(rule, "pos.apply", args) != "approved"


def test_a_cap_said_only_of_a_time_stays_a_conditional():
    text = "No refunds over 50 USD on weekends."
    assert compile_rule(0, "c0", text).understanding == "understood"
    args = {"refund_usd": 90, "date": "2026-11-25"}
    assert outcome_beside_ticket(text, "pos.refund", args) == "approved"


@pytest.mark.parametrize("note_key", ["note", "notes", "memo", "comment", "description"])
def test_a_note_never_meets_an_allow_list(note_key):
    text = "Perishables ship next-day only."
    args = {"perishable": True, "service_level": "economy", note_key: "next-day"}
    assert outcome_beside_ticket(text, "courier.create_shipment", args) != "approved"


def test_the_allowed_value_in_its_own_argument_still_passes():
    text = "Perishables ship next-day only."
    args = {"perishable": True, "service_level": "next-day", "note": "fragile"}
    assert outcome_beside_ticket(text, "courier.create_shipment", args) == "approved"


@pytest.mark.parametrize(
    ("rule", "args"),
    [
        ("Transfers to rescues not on the partner list -> review.", {"on_partner_list": False}),
        (
            "Loans to venues not on the accredited list are forbidden.",
            {"on_accredited_list": False},
        ),
        (
            "Shipments to carriers that aren't on the approved list -> review.",
            {"on_approved_list": False},
        ),
    ],
)
def test_what_lies_off_a_register_is_never_read_as_on_it(rule, args):
    # read "review when they are on the partner list", a rescue off the list was approved
    assert compile_rule(0, "c0", rule).understanding != "understood"
    assert outcome_beside_ticket(rule, "ops.transfer", args) != "approved"


def test_membership_of_a_register_is_still_read():
    text = "Never disconnect a customer on the medical priority register."
    assert compile_rule(0, "c0", text).understanding == "understood"


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        ("Max input lag 50 ms (input_lag_s).", {"input_lag_s": 0.2}, "denied"),  # had passed
        ("Max input lag 50 ms (input_lag_s).", {"input_lag_s": 0.03}, "approved"),
        ("Min loan 3 mo (loan_days).", {"loan_days": 30}, "denied"),  # read a bare 3 before
        ("Min loan 3 mo (loan_days).", {"loan_days": 120}, "approved"),
    ],
)
def test_ms_and_mo_after_a_number_are_units(rule, args, expected):
    assert outcome_beside_ticket(rule, "ops.run", args) == expected
