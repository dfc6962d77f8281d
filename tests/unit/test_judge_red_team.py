"""Red-team of the seventh session's approving mechanisms (helper jred).

Three mechanisms merged this session let a request be approved where it went to review before:
a rule out of the request's reach (gates.py), a rule about another act (actions.py,
RequestView.other_action) and jtext's readings in compiler.py. Each hole found is closed by class,
by making the mechanism more conservative; the cases are in bench/judge_cases/dev_red.json.

Every policy below carries a second, understood and satisfied rule (a ticket), so that a rule
wrongly left out lets the policy approve at full confidence: the unsafe approval these tests
guard against.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.quantities import parse_number_value
from webapp.judge.types import ClearanceQuery, PolicyVersion

TICKET = "Every request must include a ticket_id."


def _policy(rules: list[str], tools: tuple[str, ...] = ()) -> PolicyVersion:
    digest = hashlib.sha256("|".join(rules).encode()).hexdigest()
    return PolicyVersion("p", f"pv_{digest[:12]}", digest, "", tuple(rules), tools)


def outcome(
    rule: str,
    tool: str,
    args: dict,
    glossary: dict | None = None,
    tools: tuple[str, ...] = (),
    ticket: bool = True,
) -> str:
    rules = [rule, TICKET] if ticket else [rule]
    args = {**args, "ticket_id": "T-1"} if ticket else args
    v = evaluate(
        ClearanceQuery(tool, args, "agent"),
        [_policy(rules, tools)],
        StaticHistory.from_dict(None),
        glossary=glossary,
    )
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


SELLERS = {"high-risk sellers": ["S-20417", "S-88310"]}
SANCTIONED = {"sanctioned vendors": ["Globex", "Initech Holdings"]}
APPROVED = {"approved vendors": ["Acme", "Globex"]}
LOAN = "Loan amt over $766,550 = jumbo; needs chief credit officer sign-off."
ROTATE = (
    "Rotating production keys outside an approved change window is not permitted without the "
    "crypto custodian."
)


# --- gates.py: a gate's unread remainder, its binding and its values --------------------------
@pytest.mark.parametrize(
    "rule",
    [
        "Payouts to high-risk sellers are held for review plus payouts over 10k USD.",
        "Payouts over $10,000 are held for review and payouts to new sellers for 7 days.",
        "Payouts over $10,000 are held for review, new sellers' payouts for 7 days.",
        "Payouts over $10,000 need review, $1,000 for new sellers.",
        "Payouts over $10,000 need review, plus new sellers' first payouts.",
    ],
)
def test_a_second_subject_after_the_predicate_keeps_the_rule_in_reach(rule):
    args = {"seller_id": "S-31002", "amount_usd": 5000, "currency": "USD", "new_seller": True}
    assert outcome(rule, "payouts.create", args, SELLERS) == "pending_review"


def test_an_exception_after_the_predicate_only_relieves():
    rule = (
        "Tuition reimbursements above 5,250 USD require HR director approval, except for "
        "approved degree programs."
    )
    args = {"employee_id": "E-1", "amount": 1800, "currency": "USD"}
    assert outcome(rule, "hr.reimburse_tuition", args) == "approved"


@pytest.mark.parametrize(
    "args",
    [
        {"loan_amount_usd": "800.000,00"},  # a decimal comma: 800,000
        {"loan_amount_usd": "800.000"},  # thousands or a decimal? not guessed
        {"loan_amount_k_usd": 800},  # in thousands
        {"loan_amount_usd_mm": 0.8},  # in millions
    ],
)
def test_an_amount_written_in_another_format_or_scale_keeps_the_rule_in_reach(args):
    assert outcome(LOAN, "loans.originate", args) == "pending_review"
    assert outcome(LOAN, "loans.originate", {"loan_amount_usd": 410000}) == "approved"


@pytest.mark.parametrize("name", ["notional_mm_usd", "notional_usd_mm", "notional_k"])
def test_a_scaled_amount_is_not_compared_by_an_understood_rule(name):
    rule = "Trades with a notional over 50M USD need desk head approval."
    assert outcome(rule, "trading.place_order", {name: 75}, ticket=False) == "pending_review"


def test_numbers_in_strings_are_read_only_when_unambiguous():
    assert parse_number_value("12,000.50") == 12000.5
    assert parse_number_value("$1,250") == 1250
    assert parse_number_value("0.125") == 0.125
    for s in ("800.000,00", "1,5", "1.250.000", "800.000", "12,00"):
        assert parse_number_value(s) is None


@pytest.mark.parametrize(
    "extra",
    [
        {"notes": "merged with S-20417"},
        {"parent": "s-20417"},
        {"linked_sellers": ["S-31002", "S20417"]},
    ],
)
def test_a_listed_member_written_anywhere_keeps_the_rule_in_reach(extra):
    rule = "Payouts to high-risk sellers are held for T&S review."
    args = {"seller_id": "S-31002", "amount": 5, **extra}
    assert outcome(rule, "payouts.create", args, SELLERS) == "pending_review"
    assert outcome(rule, "payouts.create", {"seller_id": "S-31002"}, SELLERS) == "approved"


def test_a_value_close_to_a_member_anywhere_keeps_the_rule_in_reach():
    rule = "Payments to sanctioned vendors are blocked pending compliance review."
    args = {"vendor": "Hooli", "remit_to": "Globex Ltd"}
    assert outcome(rule, "ap.pay", args, SANCTIONED) == "pending_review"
    assert outcome(rule, "ap.pay", {"vendor": "Hooli"}, SANCTIONED) == "approved"


@pytest.mark.parametrize(
    "extra",
    [{"recipients": ["Acme", "Hooli"]}, {"cc_vendor": "Hooli"}, {"subprocessor": "Hooli"}],
)
def test_another_party_outside_the_term_keeps_a_non_term_rule_in_reach(extra):
    rule = "Exports to non-approved vendors need DPO sign-off."
    assert outcome(rule, "data.export", {"vendor": "Acme", **extra}, APPROVED) == "pending_review"
    assert outcome(rule, "data.export", {"vendor": "Acme"}, APPROVED) == "approved"


@pytest.mark.parametrize(
    "extra",
    [
        {"key_id": "prod-payments-kek"},
        {"cluster": "prod-eu-1"},
        {"key_ring": "production-ring"},
        {"notes": "mirror of the PRODUCTION key"},
    ],
)
def test_a_value_of_the_rules_group_anywhere_keeps_the_rule_in_reach(extra):
    args = {"key_id": "k1", "env": "staging", **extra}
    assert outcome(ROTATE, "kms.rotate_key", args) == "pending_review"
    assert outcome(ROTATE, "kms.rotate_key", {"key_id": "k1", "env": "staging"}) == "approved"


def test_a_heavier_value_anywhere_keeps_a_rule_on_the_lighter_group_in_reach():
    rule = "Major incidents need a postmortem within 5 days."
    args = {"id": "i1", "severity": "minor", "impact": "critical"}
    assert outcome(rule, "incidents.close", args) == "pending_review"
    assert outcome(rule, "incidents.close", {"id": "i1", "severity": "minor"}) == "approved"


# hypothesis: whatever is joined after the predicate, the rule stays in reach
_JOINERS = st.sampled_from([" and", ",", " plus", " as well as", " —", " (", ":", " too,", " or"])
_TAILS = st.sampled_from(
    [
        " payouts to new sellers",
        " new sellers' first payouts",
        " $1,000 for new sellers",
        " any payout to a new seller",
        " first payouts for 7 days",
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(joiner=_JOINERS, tail=_TAILS)
def test_property_a_joined_tail_never_puts_a_rule_out_of_reach(joiner, tail):
    rule = f"Payouts over $10,000 are held for review{joiner}{tail}."
    args = {"seller_id": "S-31002", "amount_usd": 5, "new_seller": True}
    assert outcome(rule, "payouts.create", args) == "pending_review"


# ('prd' is left out: the compiled reading of the same rule does not know it; see the report)
_GROUP_WORDS = st.sampled_from(["prod", "production", "PROD", "Production"])
_SHAPES = st.sampled_from(["{w}-eu-1", "{w}_payments_kek", "ring-{w}", "{w}", "the {w} one"])
_KEYS = st.sampled_from(["key_id", "cluster", "alias", "note", "target"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(word=_GROUP_WORDS, shape=_SHAPES, key=_KEYS)
def test_property_a_production_value_anywhere_keeps_the_rule_in_reach(word, shape, key):
    args = {"env": "staging", "key_id": "k1", key: shape.format(w=word)}
    assert outcome(ROTATE, "kms.rotate_key", args) == "pending_review"


# --- actions.py / RequestView.other_action: the act a tool's verb hides -------------------------
DELETE_LOGS = (
    "Deleting audit logs that fall under the SOX retention schedule needs the controller's "
    "sign-off."
)
EXPORT_PHI = "Exporting patient data to parties outside the care team requires a signed BAA."


@pytest.mark.parametrize(
    "rule,tool,args",
    [
        (DELETE_LOGS, "ops.rotate_logs", {"log_group": "audit"}),  # rotation deletes old logs
        (DELETE_LOGS, "ops.rotate_audit_logs", {"keep": 1}),
        (DELETE_LOGS, "ops.export_audit_logs", {"to": "s3", "mode": "move"}),  # a move removes
        (EXPORT_PHI, "ops.create_report", {"data": "patient data", "recipients": ["x@p.com"]}),
        (EXPORT_PHI, "ops.schedule_report", {"data": "patient data", "email": "x@p.com"}),
        (EXPORT_PHI, "ops.invite_user", {"email": "x@p.com", "scope": "patient data"}),
        (EXPORT_PHI, "ops.add_collaborator", {"principal": "x@p.com", "dataset": "patient data"}),
        (
            "Revoking certificates that protect customer traffic needs the PKI owner.",
            "ops.rotate_certificate",
            {"cert": "c1"},
        ),
    ],
)
def test_an_act_the_tool_verb_hides_keeps_the_rule_relevant(rule, tool, args):
    assert outcome(rule, tool, args, tools=("ops.*",)) == "pending_review"


def test_a_key_rotation_is_still_another_act_than_a_key_deletion():
    rule = "Scheduling key deletion for keys that guard customer data needs the crypto custodian."
    args = {"key_alias": "alias/payments-db"}
    assert outcome(rule, "kms.rotate_key", args, tools=("kms.*",)) == "approved"


# --- compiler.py readings added by jtext -------------------------------------------------------
@pytest.mark.parametrize("short", ["w/out", "w/o", "W/OUT"])
def test_without_in_shorthand_is_a_condition(short):
    rule = f"Never close accounts {short} manager approval."
    assert outcome(rule, "accounts.close", {"account": "a"}, ticket=False) == "pending_review"


@pytest.mark.parametrize("name", ["wind_speed_ms", "wind_speed_seconds", "wind_gb"])
def test_a_unit_of_another_kind_in_the_name_is_not_compared(name):
    rule = "Crane lifts are prohibited in winds over 20 mph."
    assert outcome(rule, "crane.lift", {name: 10}, ticket=False) == "pending_review"
    assert outcome(rule, "crane.lift", {"wind_speed_mph": 12}, ticket=False) == "approved"


@pytest.mark.parametrize("value", ["family status", "income_source", "Familial-Status"])
def test_a_listed_content_kind_in_another_order_or_form_is_not_approved(value):
    rule = "Screening criteria must not include source of income, familial status or disability."
    got = outcome(rule, "screening.configure", {"criteria": [value]}, ticket=False)
    assert got in ("denied", "pending_review")
    clean = outcome(rule, "screening.configure", {"criteria": ["credit score"]}, ticket=False)
    assert clean == "approved"


@pytest.mark.parametrize("status", ["reopened", "closing", "soft-closed", "closed_pending"])
def test_a_state_word_outside_the_closed_class_is_not_read_as_another_state(status):
    rule = "Grade changes once the term is closed need registrar sign-off."
    args = {"student": "s", "term_status": status}
    assert outcome(rule, "grades.change", args, ticket=False) == "pending_review"
    assert outcome(
        rule, "grades.change", {"student": "s", "term_status": "open"}, ticket=False
    ) == ("approved")


def test_two_arguments_that_disagree_on_the_state_go_to_review():
    rule = "Deploys must not start when the change freeze is active."
    args = {"service": "s", "freeze_status": "inactive", "freeze": "active"}
    assert outcome(rule, "deploy.start", args, ticket=False) == "pending_review"
    calm = {"service": "s", "freeze_status": "inactive"}
    assert outcome(rule, "deploy.start", calm, ticket=False) == "approved"
