"""Red team 2: unsafe approvals from rules the engine labelled understood (dev_red2.json).

Each policy is the rule under attack plus 'Every request must include a ticket_id.', with a
ticket id given, so a misread rule shows as an approval. Classes found and closed:

- a negating subject or joint negation ('Neither owner nor admin roles may …', 'Nobody may …',
  'None of the contractors may …', 'hardly ever') was dropped and 'may' read as a permission;
  the negating word now stays unaccounted (the rule is partly understood);
- a tool named by a generic change verb (change_plan, update_sso, set_…) was taken for another
  action than the rule's specific change (a downgrade, disabling): it may perform that change
  through its arguments, so the rule is not ruled out (unknown);
- a money bound ('if over $500') was compared with an argument named in another unit
  (`bank_account_age_days`) when the amount was a string it could not read: a human compares.

Batch 2 (written after those fixes):

- a money word beside another money word of the rule that the tool names ('wire transfers' and
  wires.send, 'card payments' and payments.charge) was taken for another money movement;
- a flag that is off (`mfa: "off"`) ruled out the thing a rule forbids switching off;
- a bound written with dot-grouped thousands ('EUR 10.000') was read as a decimal (10.0).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket as outcome
from webapp.judge.compiler import compile_rule

# --- negating subjects -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "word"),
    [
        ("Neither owner nor admin roles may be assigned to contractors.", "neither"),
        ("Nobody may assign owner roles to contractors.", "nobody"),
        ("None of the contractors may be assigned owner roles.", "none"),
        ("Contractors may hardly ever receive owner roles.", "hardly"),
    ],
)
def test_a_negating_subject_is_never_read_as_a_permission(rule, word):
    compiled = compile_rule(0, "c0", rule)
    assert compiled.understanding == "partly_understood"
    assert word in compiled.unaccounted
    args = {"user": "bob", "roles": ["viewer", "owner"], "user_type": "contractor"}
    assert outcome(rule, "iam.grant_role", args) != "approved"


def test_a_plain_prohibition_is_still_understood():
    rule = "Contractors may never be assigned owner roles."
    assert compile_rule(0, "c0", rule).understanding == "understood"


# --- generic change tools ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Downgrades to the free plan require account manager approval.",
            "billing.change_plan",
            {"customer_id": "C1", "new_plan": "Free", "old_plan": "Pro"},
        ),
        (
            "SSO may not be disabled for any organization.",
            "iam.update_sso",
            {"org": "acme", "sso_enabled": "false"},
        ),
        (
            "Retention may not be lowered for regulated workspaces.",
            "workspace.set_retention",
            {"workspace": "legal", "retention_days": 30},
        ),
    ],
)
def test_a_generic_change_tool_may_perform_the_rules_specific_change(rule, tool, args):
    assert outcome(rule, tool, args) != "approved"


def test_a_specific_change_rule_still_passes_another_specific_tool():
    # delete_plan is not a generic change: the downgrade rule is about another action
    rule = "Downgrades to the free plan require account manager approval."
    assert outcome(rule, "billing.cancel_invoice", {"invoice_id": "I-1"}) == "approved"


# --- money bounds against arguments of another unit ---------------------------------------------


@pytest.mark.parametrize("amount", ["USD 800", "800 dollars", "eight hundred"])
def test_a_money_bound_never_reads_an_argument_named_in_days(amount):
    rule = "Payouts to new bank accounts, if over $500, require review."
    args = {"amount": amount, "bank_account_age_days": 2, "new_account": True}
    assert outcome(rule, "payouts.create", args) != "approved"


def test_a_money_bound_still_reads_the_amount():
    rule = "Payouts over $500 require review."
    assert outcome(rule, "payouts.create", {"amount": 800, "hold_days": 2}) == "pending_review"
    assert outcome(rule, "payouts.create", {"amount": 100, "hold_days": 2}) == "approved"


# --- safety properties -------------------------------------------------------------------------

_NEGATORS = ["Neither {a} nor {b}", "Nobody", "None of the agents", "Hardly anyone"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    negator=st.sampled_from(_NEGATORS),
    a=st.sampled_from(["owner", "admin", "billing"]),
    b=st.sampled_from(["admin", "auditor", "support"]),
    verb=st.sampled_from(["may assign roles to", "may grant access to", "may invite"]),
    who=st.sampled_from(["contractors", "guests", "vendors"]),
    user_type=st.sampled_from(["contractor", "guest", "vendor", "employee"]),
)
def test_property_a_negated_subject_never_approves(negator, a, b, verb, who, user_type):
    rule = f"{negator.format(a=a, b=b)} {verb} {who}."
    args = {"user": "bob", "role": a, "user_type": user_type}
    assert outcome(rule, "iam.grant_role", args) != "approved"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    change=st.sampled_from(
        [("Downgrades of", "plan"), ("Disabling", "sso"), ("Suspending", "account")]
    ),
    verb=st.sampled_from(["change", "update", "set", "modify", "edit"]),
    effect=st.sampled_from(["require review", "are not allowed", "need approval"]),
    value=st.sampled_from(["free", "false", "off", "suspended", "basic"]),
)
def test_property_a_generic_change_tool_never_passes_a_specific_change(change, verb, effect, value):
    act, thing = change
    rule = f"{act} the {thing} {effect}."
    args = {"customer_id": "C1", thing: value}
    assert outcome(rule, f"admin.{verb}_{thing}", args) != "approved"


# --- batch 2: money words of one compound, switched-off flags, dot-grouped thousands -------------


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Wire transfers of $10,000 or more need dual approval.",
            "wires.send",
            {"amount": 25000, "currency": "USD"},
        ),
        (
            "Card payments in a currency other than USD need review.",
            "payments.charge",
            {"amount": 10, "currency": "eur"},
        ),
    ],
)
def test_a_money_word_beside_the_tools_money_word_is_not_another_movement(rule, tool, args):
    assert outcome(rule, tool, args) == "pending_review"


def test_the_compound_still_passes_what_it_does_not_bound():
    rule = "Wire transfers of $10,000 or more need dual approval."
    assert outcome(rule, "wires.send", {"amount": 500, "currency": "USD"}) == "approved"


@pytest.mark.parametrize("value", ["off", "false", False, "disabled", ""])
def test_a_flag_switched_off_is_the_act_a_switching_off_rule_forbids(value):
    rule = "MFA may not be turned off for admins."
    args = {"user": "bob", "role": "admin", "mfa": value}
    assert outcome(rule, "iam.update_user", args) != "approved"


def test_a_flag_that_is_off_still_rules_out_a_qualifier_no_switching_names():
    # 'medically vulnerable' is not switched off by the rule: a flag off rules the class out
    rule = "Disconnections of customers flagged as medically vulnerable are prohibited."
    args = {"account": "A1", "medically_vulnerable": False}
    assert outcome(rule, "utility.disconnect_customer", args) == "approved"


@pytest.mark.parametrize(
    ("rule", "number"),
    [
        ("Wire transfers of EUR 10.000 or more need dual approval.", "10.000"),
        ("Top-ups must be at least EUR 1.000.", "1.000"),
    ],
)
def test_dot_grouped_thousands_read_as_a_decimal_never_decide(rule, number):
    compiled = compile_rule(0, "c0", rule)
    assert compiled.understanding == "partly_understood"
    assert number in compiled.unaccounted


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    amount=st.integers(min_value=1, max_value=10**7),
    grouped=st.sampled_from(["1.000", "10.000", "250.000", "2.500"]),
    template=st.sampled_from(
        [
            "Payments of EUR {g} or more need review.",
            "Payments above EUR {g} are forbidden.",
            "Payments must not exceed EUR {g}.",
            "Top-ups must be at least EUR {g}.",
        ]
    ),
)
def test_property_a_dot_grouped_bound_never_approves_alone(amount, grouped, template):
    rule = template.format(g=grouped)
    args = {"amount": amount, "currency": "EUR"}
    if outcome(rule, "payments.pay", args) == "approved":
        # only where both readings (a decimal, thousands) of the bound would approve
        decimal, thousands = float(grouped), float(grouped.replace(".", ""))
        if "at least" in rule:
            assert amount >= max(decimal, thousands)
        else:
            assert amount <= min(decimal, thousands)


# --- a base-form verb naming a kind of thing ('access tokens') ----------------------------------


def test_a_verb_before_the_plural_subject_names_a_kind_not_the_act():
    rule = "Access tokens must expire within 30 days."
    tool = "iam.create_token"
    assert outcome(rule, tool, {"user": "bob", "ttl": "90d"}) != "approved"
    assert outcome(rule, tool, {"user": "bob", "ttl_days": 90}) == "denied"
    assert outcome(rule, tool, {"user": "bob", "ttl_days": 10}) == "approved"


def test_an_imperative_verb_is_still_the_rules_act():
    # no modal after the noun: 'Delete' is the act, which the tool's 'create' rules out
    rule = "Delete records only with a DPO ticket."
    assert outcome(rule, "crm.create_record", {"name": "x"}) == "approved"
