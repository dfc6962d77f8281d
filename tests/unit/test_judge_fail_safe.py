"""Fail-safe readings found after the fourth session's blind holdout runs (phrasings of our own).

- one stem for every form of a verb ending in -y ('apply', 'applies', 'applied'), so a rule about
  applying credits is not read as "about another action" by a tool named apply_credit;
- guidance left to judgement ('use good judgement with …') is a concern the engine cannot weigh,
  never a description that governs nothing;
- a participle naming a class of objects ('to purchased lists') is an open category: the clause
  stays text and the request goes to review, instead of the participle reading as an action;
- a count of zero shows the counted thing is absent ('refills': 0);
- a word of the rule that the request neither shows nor rules out ('the root user' against
  user_name 'ci-deployer') leaves the rule unknown: review, never a guessed denial.
"""

from __future__ import annotations

import pytest

from tests.unit.test_judge_fourth_round import _policy, outcome
from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.text import stem
from webapp.judge.types import ClearanceQuery


@pytest.mark.parametrize(
    "forms",
    [
        ("apply", "applies", "applied", "applying"),
        ("supply", "supplies", "supplied"),
        ("modify", "modifies", "modified", "modifying"),
        ("deny", "denies", "denied"),
        ("copy", "copies", "copied"),
    ],
)
def test_every_form_of_a_y_verb_has_one_stem(forms):
    assert len({stem(f) for f in forms}) == 1, {f: stem(f) for f in forms}


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (
            "Discounts can't be applied to orders in dispute.",
            "apply_discount",
            {"order_id": "O-1", "order_status": "dispute", "percent": 5},
            "denied",
        ),
        (
            "Discounts can't be applied to orders in dispute.",
            "apply_discount",
            {"order_id": "O-1", "order_status": "shipped", "percent": 5},
            "approved",
        ),
    ],
)
def test_a_rule_on_applying_governs_an_apply_tool(rule, tool, args, expected):
    assert outcome(rule, tool, args) == expected


@pytest.mark.parametrize(
    "rule",
    [
        "Use good judgement with refunds on big orders.",
        "Exercise discretion on large goodwill gestures.",
        "Keep an eye on unusually large transfers.",
        "Escalate anything that looks like fraud.",
    ],
)
def test_guidance_is_never_informational(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding != "informational"
    assert compiled.understanding != "understood"


def test_guidance_sends_the_request_it_speaks_to_to_review():
    rule = "Use good judgement with refunds on big orders."
    assert outcome(rule, "issue_refund", {"order_id": "O-9", "amount": 4200}) == "pending_review"


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Mailings to rented lists must be reviewed by marketing ops.",
            "send_mailing",
            {"mailing_id": "M-1", "lists": ["spring-optins", "expo-2025"]},
        ),
        (
            "Bonuses for terminated employees need HR approval.",
            "grant_bonus",
            {"employee_id": "E-4", "amount": 300},
        ),
    ],
)
def test_a_participle_category_without_a_glossary_goes_to_review(rule, tool, args):
    assert compile_rule(0, "c:r0", rule).understanding != "understood"
    assert outcome(rule, tool, args) == "pending_review"


@pytest.mark.parametrize(("count", "denied"), [(0, False), (2, True)])
def test_a_count_of_zero_shows_the_counted_thing_is_absent(count, denied):
    rule = "Refills for insulin pens are not allowed."
    args = {"drug": "insulin pen 100 u/ml", "refills": count}
    verdict = evaluate(
        ClearanceQuery("prescribe", args, "agent"), [_policy([rule])], StaticHistory.from_dict(None)
    )
    assert (verdict.decision == "deny") is denied, verdict.reason


def test_an_unshown_qualifier_is_review_not_a_guessed_denial():
    rule = "Access tokens can't be minted for the root user."
    args = {"user_name": "ci-deployer", "groups": ["ci"], "ttl_minutes": 30}
    assert outcome(rule, "mint_access_token", args) == "pending_review"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # an argument named by the identifier word alone is the reference the rule asks for
        ({"amount": 10, "currency": "EUR", "reference": "INV-1"}, "approved"),
        ({"amount": 10, "currency": "EUR", "payment_ref": "INV-1"}, "approved"),
        # an argument that only shares the qualifier may be meant: a human decides
        ({"amount": 10, "currency": "EUR", "payment_method": "sepa"}, "pending_review"),
        ({"amount": 10, "currency": "EUR"}, "denied"),
    ],
)
def test_a_required_reference_binds_to_an_identifier(args, expected):
    assert outcome("Every wire must carry a payment reference.", "send_wire", args) == expected


def test_an_argument_sharing_only_the_qualifier_is_not_the_required_number():
    rule = "Claims must reference a policy number."
    args = {"claim_id": "C-1", "policy_age_days": 210, "amount": 100}
    assert outcome(rule, "settle_claim", args) != "approved"
    given = {"claim_id": "C-1", "policy_number": "PN-7", "amount": 100}
    assert outcome(rule, "settle_claim", given) == "approved"


def test_a_format_hint_is_not_a_list_of_allowed_values():
    rule = "Deploys to prod need a change ticket (CHG-xxxxx)."
    args = {"service": "search-api", "environment": "prod", "change_ticket": "CHG-10244"}
    assert outcome(rule, "deploy_service", args) == "approved"
    assert outcome(rule, "deploy_service", {**args, "change_ticket": ""}) == "denied"


@pytest.mark.parametrize(
    "rule",
    [
        "Exports must include a ticket id and get a DPO sign off.",
        "Exports need a ticket id plus authorisation from the data owner.",
        "Exports must carry a ticket id and be signed off by legal.",
    ],
)
def test_a_persons_act_read_as_argument_checks_alone_never_decides(rule):
    """A rule that asks for an approval, a review or a sign-off, compiled into checks that
    send nothing to a person, is partly understood: the request with every argument right still
    waits for a human, because nobody has signed off."""
    compiled = compile_rule(0, "r0", rule)
    # Either a check sends the request to a person, or the rule cannot decide on its own.
    assert any(c.effect == "review" for c in compiled.checks) or not compiled.decides
    assert outcome(rule, "export_records", {"ticket_id": "T-12", "rows": 40}) == "pending_review"


def test_an_act_no_check_reads_is_left_unaccounted():
    compiled = compile_rule(0, "r0", "Exports must include a ticket id and get a DPO sign off.")
    assert compiled.understanding == "partly_understood"
    assert "sign off" in compiled.unaccounted


@pytest.mark.parametrize(
    "rule",
    [
        "Only approved vendors may be paid.",
        "Transfers above $10,000 are not allowed.",
        "Refunds must stay under $500 and be approved by a manager.",  # its review check reads it
    ],
)
def test_a_category_adjective_or_a_read_review_is_not_a_missing_act(rule):
    compiled = compile_rule(0, "r0", rule)
    assert not any(w in compiled.unaccounted for w in ("approved", "approved by", "approval"))
