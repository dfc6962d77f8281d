"""The understanding invariant (issue #10): only a rule whose every content word is accounted for decides."""

from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webapp.judge.compiler import compile_rule
from webapp.judge.coverage import CATEGORY_QUALIFIERS
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery, PolicyVersion

UNDERSTOOD = [
    "Payments must not exceed 25,000 EUR.",
    "Payouts to RU or BY are blocked.",
    "Deleting S3 buckets is forbidden.",
    "Every payment must reference an invoice_id.",
    "Refunds above 500 EUR need a manager's approval.",
    # The fourth round's recognisers: named identifiers, a role that approves, a duration cap,
    # a freeze naming its kind, a quorum, a condition on a state field.
    "Policies AdministratorAccess and PowerUserAccess must not be attached.",
    "Discounts over 20% need a sales manager.",
    "Session duration: 12 hours max.",
    "The ACME-7 vendor account is frozen.",
    "Payments over 50,000 EUR require approval from two reviewers.",
    "Claims may not be paid unless the claim status is approved.",
    "Shipments over 30 kg may only be sent by carriers Schenker or Geodis.",
    "Customers who opted out must not be emailed.",
    "Data must be hosted in an EU member state.",
    "Temporary access: 4h max unless approved by security.",
    "A single trade may not exceed 5,000 units, except the funds MMF1 and MMF2.",
]

CONDITIONS = ["unless", "if", "only if", "when", "except when", "provided that", "as long as"]
WORDS = st.sampled_from(
    "customer balance zorblat frobbed ledger partner region ticket quarter signed board weekend "
    "audit holiday minor escrow".split()
)


def _policy(rules: list[str], tools: tuple[str, ...] = ()) -> PolicyVersion:
    digest = hashlib.sha256("|".join(rules).encode()).hexdigest()
    return PolicyVersion("p", f"pv_{digest[:12]}", digest, "", tuple(rules), tools)


def _insert_condition(rule: str, marker: str, clause: list[str], verb: str = "frobbed") -> str:
    return f"{rule.rstrip('.')} {marker} the {' '.join(clause)} is {verb}."


@pytest.mark.parametrize("rule", UNDERSTOOD)
def test_the_base_rules_are_understood(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert compiled.decides


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rule=st.sampled_from(UNDERSTOOD),
    marker=st.sampled_from(CONDITIONS),
    clause=st.lists(WORDS, min_size=1, max_size=3),
)
def test_an_inserted_condition_leaves_the_rule_partly_understood(rule, marker, clause):
    compiled = compile_rule(0, "c:r0", _insert_condition(rule, marker, clause))
    assert compiled.understanding in ("partly_understood", "not_understood")
    assert not compiled.decides
    assert compiled.unaccounted or compiled.uncompiled


@settings(max_examples=60, deadline=None)
@given(
    rule=st.sampled_from(UNDERSTOOD),
    qualifier=st.sampled_from(sorted(CATEGORY_QUALIFIERS)),
)
def test_an_inserted_category_qualifier_leaves_the_rule_partly_understood(rule, qualifier):
    # Put the qualifier before the rule's first noun: 'Payments' -> 'sensitive payments'.
    head, rest = rule.split(" ", 1)
    if head.lower() in ("every", "a", "the", "each"):
        noun, rest = rest.split(" ", 1)
        text = f"{head} {qualifier} {noun} {rest}"
    else:
        text = f"{qualifier.capitalize()} {head.lower()} {rest}"
    compiled = compile_rule(0, "c:r0", text)
    assert not compiled.decides, (text, compiled.unaccounted)
    # Either the qualifier is left unaccounted for, or nothing of the rule compiled at all.
    assert compiled.understanding == "not_understood" or qualifier.split("-")[0] in " ".join(
        compiled.unaccounted
    )


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=300))
def test_a_rule_of_any_shape_never_crashes_evaluation(text):
    verdict = evaluate(
        ClearanceQuery("pay", {"amount": 5, "to": "x"}, "a"),
        [_policy([text or "x"])],
        StaticHistory.from_dict(None),
    )
    assert verdict.reason_code != "judge_unavailable"


def test_a_partly_understood_rule_neither_approves_nor_denies():
    """'Accounts may not be closed unless the branch manager has waived it' must not decide on the deny alone."""
    rule = "Accounts may not be closed unless the branch manager has waived it"
    for balance in (0, 12.5):
        verdict = evaluate(
            ClearanceQuery("close_account", {"account_id": "A-1", "balance": balance}, "a"),
            [_policy([rule], ("close_account",))],
            StaticHistory.from_dict(None),
        )
        assert verdict.decision != "allow" or verdict.confidence < 0.8
        if compile_rule(0, "c", rule).understanding != "understood":
            assert verdict.decision == "review"


@pytest.mark.parametrize("rule", UNDERSTOOD)
@pytest.mark.parametrize(("marker", "verb"), [("unless", "zero"), ("unless", "attached")])
def test_a_condition_a_recogniser_reads_keeps_the_rule_understood(rule, marker, verb):
    if re.search(r"\b(?:unless|except|who|that|whose)\b", rule):
        return  # one condition already: a second is never composed, so it stays partly understood
    compiled = compile_rule(0, "c:r0", _insert_condition(rule, marker, ["ticket"], verb))
    if compiled.checks and all(c.effect != "allow" for c in compiled.checks):
        assert compiled.understanding == "understood", compiled.unaccounted
        assert all(c.kind == "unless" for c in compiled.checks)


class _BrokenHistory:
    def total_today(self, agent_id, tool_name, arg):
        from webapp.judge.request_view import HistoryUnavailable

        raise HistoryUnavailable("database down")

    def count_last_hour(self, agent_id, tool_name):
        return self.total_today(agent_id, tool_name, "")

    def seen_value(self, agent_id, tool_name, arg, value):
        return self.total_today(agent_id, tool_name, arg)


def test_an_internal_failure_raises_judge_unavailable_when_asked_never_a_deny():
    from webapp.judge.types import JudgeUnavailable

    policy = _policy(["Payouts must stay under 1,000 EUR per day."], ("payout",))
    query = ClearanceQuery("payout", {"amount": 5, "currency": "EUR"}, "a")
    with pytest.raises(JudgeUnavailable):
        evaluate(query, [policy], _BrokenHistory(), raise_unavailable=True)
    # Without the opt-in the old contract holds: a judge_unavailable verdict the caller maps.
    assert evaluate(query, [policy], _BrokenHistory()).reason_code == "judge_unavailable"


def test_a_review_cites_every_rule_that_may_forbid_the_request():
    rules = [
        "Vendor payments above 100 EUR need a manager's approval.",
        "Payments to vendors in sanctioned jurisdictions are prohibited.",
    ]
    verdict = evaluate(
        ClearanceQuery(
            "pay_vendor", {"amount": 500, "currency": "EUR", "vendor_country": "KP"}, "a"
        ),
        [_policy(rules, ("pay_vendor",))],
        StaticHistory.from_dict(None),
    )
    assert verdict.decision in ("review", "deny")
    cited = {c.text for c in verdict.citations}
    assert rules[1] in cited or verdict.decision == "deny"
