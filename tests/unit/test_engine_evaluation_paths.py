"""The engine's evaluation paths kept for speed give the answers of the general ones.

No timings here: speed is measured by bench/judge_speed.py. These tests pin what the faster paths
must not change: one history question per request, evidence ranked by level equal to the general
pass, frozen outcomes and leaves, and the per-policy plan of which rules decide.
"""

from __future__ import annotations

import dataclasses

import pytest

from webapp.judge import engine
from webapp.judge.checks import SATISFIED, Outcome
from webapp.judge.engine import compiled_for, evaluate
from webapp.judge.history import NoHistory, StaticHistory
from webapp.judge.request_view import Leaf
from webapp.judge.types import ClearanceQuery, PolicyVersion


def policy(pid: str, rules: list[str], tools: tuple[str, ...] = ()) -> PolicyVersion:
    # Version ids of their own: the compiled cache is shared with the other tests' policies.
    return PolicyVersion(pid, f"{pid}-paths-v1", f"hash-{pid}-paths", "", tuple(rules), tools)


TREASURY = policy(
    "treasury",
    [
        "Single payments must not exceed $25,000.",
        "Payments above $10,000 require approval from a treasury manager.",
        "An agent may not send more than $50,000 in total per day.",
        "No agent may pay out more than $80,000 in a single day.",
        "Payments to sanctioned countries (Iran, North Korea, Syria, Cuba) are prohibited.",
        "Every payment must reference an invoice number.",
        "Payments to a payee we have never paid before need review.",
        "Wire transfers need a documented purpose.",
    ],
    ("send_payment", "pay_*"),
)
VENDORS = policy(
    "vendors",
    [
        "Vendor payments may only go to EUR or USD accounts.",
        "Refunds above 500 EUR need a manager's approval.",
        "Be courteous with vendors.",
    ],
    ("pay_*", "send_payment"),
)
SMALL = policy(
    "small",
    [
        "Single payments must not exceed $25,000.",
        "Be courteous with payees.",
        "Exports of customer data need review.",
        "Payment reports are kept for seven years.",
    ],
    ("send_payment", "pay_*"),
)
REQUESTS = [
    ("send_payment", {"amount": 800, "currency": "USD", "payee_id": "V-1", "invoice_number": "I"}),
    ("send_payment", {"amount": 30000, "currency": "USD", "payee_id": "V-1"}),
    ("pay_vendor", {"amount": 12000, "currency": "GBP", "beneficiary_country": "IR"}),
    ("pay_vendor", {"amount": 100, "currency": "EUR", "vendor_id": "V-9", "purpose": "rent"}),
    ("send_payment", {"amount": 0, "currency": "", "payee_id": ""}),
]


class CountingHistory(StaticHistory):
    def __init__(self) -> None:
        super().__init__({"amount": 1000.0}, 3, {"payee_id": ["V-1"]})
        self.asked: list[tuple] = []

    def total_today(self, agent_id, tool_name, arg):
        self.asked.append(("total_today", agent_id, tool_name, arg))
        return super().total_today(agent_id, tool_name, arg)

    def count_last_hour(self, agent_id, tool_name):
        self.asked.append(("count_last_hour", agent_id, tool_name))
        return super().count_last_hour(agent_id, tool_name)

    def seen_value(self, agent_id, tool_name, arg, value):
        self.asked.append(("seen_value", agent_id, tool_name, arg, value))
        return super().seen_value(agent_id, tool_name, arg, value)


def test_one_request_asks_the_history_each_question_once():
    # Two daily caps read today's total of `amount`: one question (a database query each in
    # production), and both rules judge the same total.
    history = CountingHistory()
    q = ClearanceQuery("send_payment", {"amount": 60000, "currency": "USD"}, "agent-1")
    v = evaluate(q, [TREASURY], history)
    assert history.asked.count(("total_today", "agent-1", "send_payment", "amount")) == 1
    assert len(history.asked) == len(set(history.asked))
    assert v.decision == "deny"
    # the next request asks again: answers are kept for one evaluation only
    evaluate(q, [TREASURY], history)
    assert history.asked.count(("total_today", "agent-1", "send_payment", "amount")) == 2


def test_a_history_failure_is_not_kept_and_still_makes_the_judge_unavailable():
    class Broken(NoHistory):
        def total_today(self, agent_id, tool_name, arg):
            raise ConnectionError("database down")

    q = ClearanceQuery("send_payment", {"amount": 60000, "currency": "USD"}, "agent-1")
    v = evaluate(q, [TREASURY], Broken())
    assert (v.decision, v.reason_code) == ("deny", "judge_unavailable")
    with pytest.raises(engine.JudgeUnavailable):
        evaluate(q, [TREASURY], Broken(), raise_unavailable=True)


@pytest.mark.parametrize("policies", [[TREASURY, VENDORS], [SMALL], [VENDORS]])
@pytest.mark.parametrize(("tool", "args"), REQUESTS)
def test_evidence_ranked_by_level_equals_the_general_pass(monkeypatch, policies, tool, args):
    q = ClearanceQuery(tool, args, "agent-1")
    history = StaticHistory({"amount": 1000.0}, 3, {"payee_id": ["V-1"]})
    fast = evaluate(q, policies, history)
    # the general pass is the one taken when a policy version governs twice
    monkeypatch.setattr(engine, "_distinct_versions", lambda governing: False)
    general = evaluate(q, policies, history)
    assert fast.reason_code != "judge_unavailable"
    assert fast == general
    assert fast.evidence_chunks == general.evidence_chunks


def test_outcomes_and_leaves_stay_frozen_values():
    o = Outcome(SATISFIED, "amount = 5", ("amount",))
    assert o == Outcome(SATISFIED, "amount = 5", ("amount",))
    assert hash(o) == hash(Outcome(SATISFIED, "amount = 5", ("amount",)))
    assert Outcome(SATISFIED) == Outcome(SATISFIED, "", ())
    assert dataclasses.replace(o, message="") == Outcome(SATISFIED, "", ("amount",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.status = "violated"  # type: ignore[misc]
    leaf = Leaf("a.amount", frozenset({"a", "amount"}), frozenset({"amount"}), 5, None)
    assert leaf == Leaf("a.amount", frozenset({"a", "amount"}), frozenset({"amount"}), 5, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        leaf.value = 6  # type: ignore[misc]


def test_the_plan_of_a_policy_lets_only_understood_rules_decide():
    cp = compiled_for(TREASURY)
    plan = engine._plan(cp)
    assert engine._plan(cp) is plan  # derived once per compiled policy
    assert [step[0] for step in plan] == list(cp.rules)
    for rule, checks, as_text, *_words in plan:  # then the rule's stems and acts, read once
        assert checks == (rule.checks if rule.decides else ())
        assert as_text == bool(rule.uncompiled or (rule.checks and not rule.decides))
