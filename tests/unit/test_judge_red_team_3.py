"""Red-team of the seventh session's newest readings (helper jred3).

jtext2, jtext, jmis and jmis2 turned rules that used to go to review into rules that decide
(comparison signs, arrows, people who decide, holds, states after while / when, 'except
<kind>', 'only if all … passed', w/o, two admins, prd/stg). The cases are in
bench/judge_cases/dev_red3.json; each policy carries a second, understood and satisfied rule (a
ticket), so that a misread rule shows as an approval at full confidence.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket as outcome
from webapp.judge.compiler import compile_rule

# --- an else branch ('otherwise') is read only by a check that reads two branches -------------

OTHERWISE = "Refunds <= 100 EUR -> auto, otherwise -> manager."


def test_otherwise_after_an_arrow_is_not_vocabulary():
    # read as 'review at or below 100 EUR' (the branch dropped), 300 EUR was approved at 0.97
    assert outcome(OTHERWISE, "payments.refund", {"amount": 300, "currency": "EUR"}) != "approved"
    assert "otherwise" in compile_rule(0, "c", OTHERWISE).unaccounted


def test_otherwise_in_other_shapes_stays_unaccounted():
    for rule in (
        "Refunds over 100 EUR need a manager, otherwise auto.",
        "Refunds at most 100 EUR: auto; else manager.",
        "Credits under 50 USD go through, or else the team lead decides.",
    ):
        r = compile_rule(0, "c", rule)
        assert r.unaccounted, rule


def test_a_reading_of_both_branches_still_decides():
    # 'Allow when …; otherwise send to review' reads the branch: it stays understood
    rule = "Hotel nightly rate: up to €180 in EU cities, up to €250 elsewhere"
    assert not compile_rule(0, "c", rule).unaccounted
    rule = "Refunds up to 100 EUR are fine, otherwise a manager must approve."
    assert not compile_rule(0, "c", rule).unaccounted
    # a rule opening with 'Otherwise' refers to another rule; the branch is not this one's
    assert (
        "otherwise"
        not in compile_rule(0, "c", "Otherwise analysts may isolate workstations.").unaccounted
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    bound=st.integers(min_value=10, max_value=5000),
    over=st.integers(min_value=1, max_value=10000),
    sign=st.sampled_from(["<=", "≤", "under", "up to", "<"]),
    branch=st.sampled_from(["otherwise", "else", "everything else"]),
    role=st.sampled_from(["manager", "finance", "the CFO"]),
)
def test_property_an_amount_past_an_else_branch_is_never_approved(bound, over, sign, branch, role):
    rule = f"Refunds {sign} {bound} EUR -> auto, {branch} -> {role}."
    got = outcome(rule, "payments.refund", {"amount": bound + over, "currency": "EUR"})
    assert got != "approved", rule


# --- 'except <kind>': the request must not say both ------------------------------------------

EXCEPT = "Account deletions are blocked, except test accounts."


def test_except_kind_with_a_flag_off_beside_the_value_is_not_lifted():
    # `account_type: "test"` had lifted the rule although `is_test: false` says otherwise
    args = {"account_id": "A-1", "account_type": "test", "is_test": False}
    assert outcome(EXCEPT, "accounts.delete_account", args) != "approved"


def test_except_kind_with_a_negated_value_beside_the_value_is_not_lifted():
    args = {"account_id": "A-1", "account_type": "test", "note": "not a test account"}
    assert outcome(EXCEPT, "accounts.delete_account", args) != "approved"


def test_except_kind_still_lifts_when_the_request_agrees():
    args = {"account_id": "A-1", "account_type": "test", "is_test": True}
    assert outcome(EXCEPT, "accounts.delete_account", args) == "approved"
    assert outcome(EXCEPT, "accounts.delete_account", {"account_type": "test"}) == "approved"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["test", "sandbox", "demo"]),
    flag=st.sampled_from(["is_{k}", "{k}", "{k}_account"]),
    extra=st.dictionaries(
        st.sampled_from(["region", "owner", "reason"]),
        st.sampled_from(["eu", "alice", "cleanup"]),
        max_size=2,
    ),
)
def test_property_a_kind_the_request_denies_never_lifts_the_rule(kind, flag, extra):
    rule = f"Account deletions are blocked, except {kind} accounts."
    args = {**extra, "account_type": kind, flag.format(k=kind): False}
    assert outcome(rule, "accounts.delete_account", args) != "approved"


def test_except_kind_on_an_argument_named_for_another_thing_does_not_lift():
    # `parent_account_type: "test"`, `created_by: "test"` had lifted the rule at 0.97
    for extra in (
        {"account_type": "customer", "parent_account_type": "test"},
        {"created_by": "test"},
        {"previous_account_type": "test"},
    ):
        got = outcome(EXCEPT, "accounts.delete_account", {"account_id": "A-1", **extra})
        assert got != "approved", extra


def test_except_kind_on_one_of_several_things_does_not_lift():
    rule = "Overtime above 12 hours is not allowed, except emergency callouts."
    args = {
        "overtime_hours": 15,
        "shifts": [{"reason": "emergency"}, {"reason": "backlog"}],
    }
    assert outcome(rule, "log_overtime", args) != "approved"


# --- a unit or a scale given by another argument ---------------------------------------------


def test_a_unit_argument_beside_the_measure_is_compared_by_a_human():
    wind = "No crane lifts when wind > 20 mph."
    # 10 m/s is 22 mph: read bare, 10 passed the rule at 0.97
    assert outcome(wind, "site.crane_lift", {"wind_speed": 10, "wind_unit": "m/s"}) != "approved"
    assert outcome(wind, "site.crane_lift", {"wind_speed": 10, "unit": "m/s"}) != "approved"
    # the rule's own unit, named: compared as before
    assert outcome(wind, "site.crane_lift", {"wind_speed": 10, "wind_unit": "mph"}) == "approved"
    assert outcome(wind, "site.crane_lift", {"wind_speed": 25, "wind_unit": "mph"}) == "denied"
    refund = "Refunds > 500 EUR -> manager"
    args = {"amount": 6, "amount_unit": "thousands", "currency": "EUR"}
    assert outcome(refund, "payments.refund", args) != "approved"


def test_a_unit_argument_keeps_a_gate_in_reach():
    # the gate read 800 as below the jumbo line; the unit argument says thousands
    loan = "Loan amt over $766,550 = jumbo; needs chief credit officer sign-off."
    args = {"loan_amount": 800, "loan_amount_unit": "thousands", "currency": "USD"}
    assert outcome(loan, "loans.originate", args) != "approved"
    sessions = "Sessions longer than 12 hours need a manager."
    args = {"duration": 1, "duration_unit": "days"}
    assert outcome(sessions, "vpn.open_session", args) != "approved"
    # an argument of another measure's unit is not this one's
    args = {"amount": 100, "currency": "USD", "weight_unit": "kg"}
    assert outcome("Refunds > 500 USD need a manager.", "payments.refund", args) == "approved"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=st.floats(min_value=0.5, max_value=19.5),
    unit=st.sampled_from(["m/s", "knots", "km/h", "kph", "ms", "kt"]),
    name=st.sampled_from(["wind_unit", "unit", "wind_speed_unit", "uom"]),
)
def test_property_a_named_unit_never_lets_a_bare_number_pass(value, unit, name):
    args = {"wind_speed": value, name: unit}
    assert outcome("No crane lifts when wind > 20 mph.", "site.crane_lift", args) != "approved"


# --- a passed check another argument says is undone ------------------------------------------

KYC = "Payouts -> blocked unless KYC verified."


def test_a_check_passed_once_and_undone_since_does_not_lift_the_rule():
    # `kyc_expired: true` had read as a pass (a true flag named for the thing): approved at 0.97
    for extra in (
        {"kyc_status": "verified", "kyc_expired": True},
        {"kyc_verified": True, "kyc_review": "failed"},
        {"kyc_verified": True, "kyc_revoked": True},
    ):
        assert outcome(KYC, "payouts.send_payout", {"amount": 20, **extra}) != "approved", extra
    assert outcome(KYC, "payouts.send_payout", {"amount": 20, "kyc_status": "verified"}) == (
        "approved"
    )
    assert outcome(KYC, "payouts.send_payout", {"amount": 20, "kyc_verified": False}) == "denied"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    state=st.sampled_from(["expired", "revoked", "suspended", "lapsed", "failed", "pending"]),
    shape=st.sampled_from(["flag", "value"]),
)
def test_property_an_undone_check_never_approves(state, shape):
    extra = {f"kyc_{state}": True} if shape == "flag" else {"kyc_recheck": state}
    args = {"amount": 20, "kyc_verified": True, **extra}
    assert outcome(KYC, "payouts.send_payout", args) != "approved"
