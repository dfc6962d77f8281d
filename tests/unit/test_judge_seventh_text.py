"""Seventh session, helper jtext: more rules fully understood, correctly, by class.

From the shapes of the not-understood and partly-understood rules of the seen sets (holdout_8,
holdout_9, dev_6, dev_8) and of `bench/judge_cases/dev_11.json` (written before these changes),
each tested here on phrasings of other domains:

- a state condition after while / when / if / once ('while a payment plan is active') holds
  only while a flag or a state argument named for the thing shows the state;
- staff shorthand: 'w/', 'w/o', 'permit #', ' & ', and '+' joining what a rule requires;
- 'sign-off' is a person's act, never a listed name;
- lengths and speeds are units ('1.5m deep' is not 1.5 million);
- an exception naming a kind in plain words ('except defective items') lifts the rule only
  where the request spells the kind;
- 'only if all … passed' reads a list of results and a summary ('all_pass');
- a second bound of the same unit no check compares with stays unaccounted;
- a closed list of kinds of content in plain words is a deny-list over list arguments;
- a count floor reads an empty list named for it as zero;
- a noun defined by a bracketed alternation is not also a word the request must show.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import CATEGORY_NOUNS, CATEGORY_QUALIFIERS, assert_never_decides
from tests.unit.test_judge_fourth_round import outcome
from webapp.judge.compiler import compile_rule


def _compiled(rule: str):
    return compile_rule(0, "c:r0", rule)


# ---- a state condition after while / when / if / once ----
STATE_RULE = "Never close support tickets while the linked incident is open."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"ticket_id": "T-1", "incident_status": "open"}, "denied"),
        ({"ticket_id": "T-1", "incident_status": "resolved"}, "approved"),
        ({"ticket_id": "T-1"}, "pending_review"),  # nothing shows the incident's state
    ],
)
def test_a_state_after_while_holds_only_while_an_argument_shows_it(args, expected):
    compiled = _compiled(STATE_RULE)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert "only while the" in compiled.checks[0].reading()
    assert outcome(STATE_RULE, "close_ticket", args) == expected


def test_an_unlisted_word_after_is_is_not_read_as_a_state():
    # 'frobbed' is no state word: the condition stays unaccounted, the rule never decides
    compiled = _compiled("Never close support tickets while the linked incident is frobbed.")
    assert compiled.understanding != "understood"
    assert not compiled.decides


def test_while_is_a_condition_marker():
    # before: 'while …' was read as more subject words and the rule labelled understood
    compiled = _compiled("Crane lifts are suspended while wind gusts exceed the site limit.")
    assert not compiled.decides


# ---- shorthand ----
def test_shorthand_with_without_number_and_plus():
    compiled = _compiled("Vendor invoices must include the PO # and cost centre.")
    readings = " ".join(c.reading() for c in compiled.checks)
    assert "PO" in readings and "#" not in readings
    plus = _compiled("Boiler shutdowns need a permit ref + duty engineer approval.")
    assert "+" not in plus.unaccounted and " + " not in plus.unaccounted
    # a '+' in a sum stays unaccounted (arithmetic no check does)
    assert not _compiled("(adults + children) may not exceed the room capacity.").decides
    without = _compiled("No dispatch w/o a signed delivery note.")
    assert "w" not in without.unaccounted


# ---- 'sign-off' ----
def test_sign_off_is_an_approval_never_a_listed_name():
    rule = "Any firmware rollback needs sign-off from the plant engineer."
    compiled = _compiled(rule)
    assert all(c.kind != "value_list" for c in compiled.checks), compiled.checks
    assert outcome(rule, "rollback_firmware", {"device": "PLC-7"}) == "pending_review"


# ---- lengths and speeds ----
def test_a_length_is_not_a_million():
    rule = "Trenches over 1.2m deep must reference a shoring plan."
    compiled = _compiled(rule)
    assert "1,200,000" not in " ".join(c.reading() for c in compiled.checks)
    assert outcome(rule, "open_trench", {"depth_m": 2.0}) == "denied"
    assert outcome(rule, "open_trench", {"depth_m": 2.0, "shoring_plan_ref": "SP-1"}) == (
        "approved"
    )
    assert outcome(rule, "open_trench", {"depth_m": 0.8}) == "approved"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"drone": "D1", "wind_speed_mph": 30}, "denied"),
        ({"drone": "D1", "wind_speed_mph": 20}, "approved"),
        # 40 km/h is about 24.9 mph: converted from the argument's unit
        ({"drone": "D1", "wind_speed_kmh": 40}, "approved"),
        ({"drone": "D1", "wind_speed_kmh": 50}, "denied"),
    ],
)
def test_a_speed_cap_converts_units(args, expected):
    rule = "Drone flights: max wind 25 mph."
    assert outcome(rule, "launch_drone_flight", args) == expected


# ---- an exception naming a kind ----
EXCEPT_RULE = "Overtime above 12 hours is not allowed, except emergency callouts."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"employee": "E1", "overtime_hours": 15, "reason": "emergency"}, "approved"),
        ({"employee": "E1", "overtime_hours": 15, "reason": "emergency_callout"}, "approved"),
        ({"employee": "E1", "overtime_hours": 15, "is_emergency": True}, "approved"),
        ({"employee": "E1", "overtime_hours": 15, "is_emergency": False}, "denied"),
        # a negated or a longer value never shows the kind; nothing else rules it out: review
        ({"employee": "E1", "overtime_hours": 15, "reason": "not_emergency"}, "pending_review"),
        ({"employee": "E1", "overtime_hours": 15, "reason": "backlog"}, "pending_review"),
        ({"employee": "E1", "overtime_hours": 8, "reason": "backlog"}, "approved"),
    ],
)
def test_an_exception_naming_a_kind_lifts_the_rule_only_where_spelled(args, expected):
    compiled = _compiled(EXCEPT_RULE)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert "except emergency callouts" in compiled.checks[0].reading()
    assert outcome(EXCEPT_RULE, "log_overtime", args) == expected


# ---- 'only if all … passed' ----
ALL_RULE = "Ship only if all QC checks passed."


@pytest.mark.parametrize(
    ("qc", "expected"),
    [
        (["pass", "passed", "pass"], "approved"),
        (["pass", "fail"], "denied"),
        ("all_pass", "approved"),
        ("failed", "denied"),
        ([], "pending_review"),
    ],
)
def test_all_results_must_pass(qc, expected):
    assert outcome(ALL_RULE, "ship_lot", {"lot": "L1", "qc_checks": qc}) == expected


def test_all_results_missing_goes_to_review():
    assert outcome(ALL_RULE, "ship_lot", {"lot": "L1"}) == "pending_review"


# ---- a second bound of the same unit ----
def test_a_variant_bound_no_check_compares_stays_unaccounted():
    compiled = _compiled("Rack loads: max 500 kg, mezzanine racks 300 kg.")
    assert "300 kg" in compiled.unaccounted
    assert not compiled.decides


# ---- a closed list of kinds of content ----
CONTENT_RULE = "Credit models must not use zip code, gender or religion."


@pytest.mark.parametrize(
    ("features", "expected"),
    [
        (["income", "gender"], "denied"),
        (["income", "zip_code"], "denied"),
        (["income", "tenure"], "approved"),
    ],
)
def test_a_content_list_denies_any_listed_member(features, expected):
    assert _compiled(CONTENT_RULE).understanding == "understood"
    assert outcome(CONTENT_RULE, "train_credit_model", {"features_used": features}) == expected


def test_a_bracketed_content_list():
    rule = "Protected traits (age, religion, disability) are never to be used in the ranking."
    assert outcome(rule, "rank_candidates", {"traits_used": ["skills", "age"]}) == "denied"
    assert outcome(rule, "rank_candidates", {"traits_used": ["skills"]}) == "approved"


# ---- a count floor and an empty list ----
def test_an_empty_list_is_a_count_of_zero():
    rule = "Each claim must cite at least one diagnosis code."
    assert outcome(rule, "submit_claim", {"claim": "C1", "diagnosis_codes": []}) == "denied"
    assert outcome(rule, "submit_claim", {"claim": "C1", "diagnosis_codes": ["J10"]}) == (
        "approved"
    )


# ---- a noun defined by a bracketed alternation ----
def test_a_bracket_defined_noun_is_not_dropped_into_an_approval():
    rule = "Risky changes (schema drops, or permission grants) require DBA review."
    compiled = _compiled(rule)
    assert not compiled.decides  # 'risky' is read by nothing: partly understood
    assert outcome(rule, "apply_change", {"change": "permission grant"}) == "pending_review"


# ---- the understanding invariant over the new shapes (hypothesis) ----
NEW_SHAPES = [
    STATE_RULE,
    EXCEPT_RULE,
    ALL_RULE,
    CONTENT_RULE,
    "Trenches over 1.2m deep must reference a shoring plan.",
    "Drone flights: max wind 25 mph.",
    "Any firmware rollback needs sign-off from the plant engineer.",
]
MARKERS = ["unless", "only if", "when", "except when", "provided that", "as long as"]
WORDS = st.sampled_from("zorblat frobbed quarter escrow tenant audit holiday minor".split())


@pytest.mark.parametrize("rule", NEW_SHAPES)
def test_the_new_shapes_are_understood(rule):
    compiled = _compiled(rule)
    assert compiled.understanding == "understood", compiled.unaccounted


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rule=st.sampled_from(NEW_SHAPES),
    marker=st.sampled_from(MARKERS),
    clause=st.lists(WORDS, min_size=1, max_size=3),
)
def test_an_inserted_condition_leaves_a_new_shape_partly_understood(rule, marker, clause):
    text = f"{rule.rstrip('.')} {marker} the {' '.join(clause)} is frobbed."
    assert_never_decides(text)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rule=st.sampled_from(NEW_SHAPES),
    qualifier=st.sampled_from(CATEGORY_QUALIFIERS),
    noun=st.sampled_from(CATEGORY_NOUNS),
)
def test_an_inserted_category_leaves_a_new_shape_partly_understood(rule, qualifier, noun):
    assert_never_decides(f"{rule.rstrip('.')} for {qualifier} {noun}.")
