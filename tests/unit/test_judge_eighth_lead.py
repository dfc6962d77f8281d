"""Misreadings the lead closed in the eighth session, after the first run of its three blind sets
(bench/README.md, "Eighth session"): the lead looked at their three unsafe approvals only, each a
rule labelled understood whose one check read words of the rule as values no request carries.

- 'GPU instances need FinOps approval': the name of who approves ('FinOps', 'the SRE-oncall
  team') was read as a one-item list of values; the request did not hold it, so the rule passed.
- 'claims flagged for SIU (fraud) investigation': plain words in brackets inside a noun phrase
  were read as the value the flag must hold.
- 'tenant SSNs, bank account details or background check reports': plain words running on into
  a noun were read as names listed after their kind ('account details or background').
"""

from __future__ import annotations

import pytest

from tests.unit.judge_support import outcome_beside_ticket
from tests.unit.test_judge_seventh_lead import _outcome
from webapp.judge.compiler import compile_rule


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Spot instances need CloudOps approval.",
            "cloud.instances.create",
            {"instance_type": "spot-m5.large"},
        ),
        (
            "Cheap instances need CloudOps sign-off.",
            "cloud.instances.create",
            {"instance_type": "t3.micro"},
        ),
        (
            "Prod deploys need sign-off from the SRE-oncall team.",
            "deploy.release",
            {"environment": "prod"},
        ),
        ("Prod deploys need approval from DevOps.", "deploy.release", {"environment": "prod"}),
    ],
)
def test_who_approves_is_never_a_value_the_request_must_hold(rule, tool, args):
    assert outcome_beside_ticket(rule, tool, {**args, "service": "api"}) == "pending_review"
    readings = " ".join(c.reading() for c in _checks(rule))
    assert "CloudOps" not in readings and "oncall" not in readings and "DevOps" not in readings


@pytest.mark.parametrize(
    "rule",
    [
        "No refunds on tickets flagged for KYC (identity) investigation.",
        "No disbursements on grants flagged for OIG (misuse) audit.",
    ],
)
def test_a_bracketed_gloss_is_not_a_value(rule):
    compiled = compile_rule(0, "c", rule)
    assert not compiled.decides
    assert all(
        "identity" not in c.reading() and "misuse" not in c.reading() for c in compiled.checks
    )


@pytest.mark.parametrize(
    ("rule", "fields"),
    [
        (
            "Never share employee SSNs, bank account numbers or medical leave records.",
            ["name", "ssn"],
        ),
        ("Never export tenant SSNs, card account details or credit check reports.", ["ssn"]),
    ],
)
def test_words_running_into_a_noun_are_not_listed_names(rule, fields):
    args = {"employee_id": "E-1", "fields": fields, "recipient": "benefits-vendor"}
    assert _outcome([rule], "hr.records.share", args) != "approved"
    assert not any(getattr(c, "kind_words", ()) == ("account",) for c in _checks(rule))


def test_named_values_after_their_kind_still_read():
    # the construct the run-on guard must leave alone: names listed after their kind noun
    rule = "Never drop the columns salary, iban or tax_id."
    compiled = compile_rule(0, "c", rule)
    assert compiled.decides
    assert _outcome([rule], "db.drop_column", {"column": "iban"}) == "denied"
    assert _outcome([rule], "db.drop_column", {"column": "nickname"}) == "approved"


def test_a_bracketed_list_of_codes_still_reads():
    rule = "Transfers to sanctioned countries (IR, KP) are forbidden."
    assert compile_rule(0, "c", rule).decides
    assert _outcome([rule], "transfers.send", {"country": "KP", "amount": 5}) == "denied"


def test_an_approval_rule_beside_a_satisfied_one_sends_to_review():
    args = {"node_type": "a100.8x", "count": 1}
    assert outcome_beside_ticket("GPU nodes need MLOps approval.", "compute.create_node", args) == (
        "pending_review"
    )


def _checks(rule: str) -> tuple:
    return compile_rule(0, "c", rule).checks
