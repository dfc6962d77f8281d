"""Helpers the judge's red-team and misreading tests share: a rule beside a satisfied one.

Each policy holds the rule under test and "Every request must include a ticket_id." (the request
carries one), so a rule the engine misreads or passes by shows as an approval at full confidence.
"""

from __future__ import annotations

import hashlib

from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery, PolicyVersion, Verdict

TICKET = "Every request must include a ticket_id."


def status(v: Verdict) -> str:
    """The clearance status a verdict leads to at the default threshold (0.80)."""
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


def policy(rules: list[str], description: str = "") -> PolicyVersion:
    """A policy version of `rules` for every tool, its id and hash taken from its text."""
    digest = hashlib.sha256((description + "\x00" + "|".join(rules)).encode()).hexdigest()
    return PolicyVersion("p", f"pv_{digest[:12]}", digest, description, tuple(rules), ())


def outcome(rules: list[str], tool: str, args: dict, description: str = "") -> str:
    """The clearance status of `tool(args)` under a policy of `rules` (and `description`) alone."""
    v = evaluate(
        ClearanceQuery(tool, args, "agent"),
        [policy(rules, description)],
        StaticHistory.from_dict(None),
    )
    return status(v)


def outcome_beside_ticket(
    rule: str, tool: str, args: dict, glossary: dict[str, list[str]] | None = None
) -> str:
    """The clearance status of `tool(args)` under `rule` beside the satisfied ticket rule (with
    the tenant's `glossary`, if given)."""
    v = evaluate(
        ClearanceQuery(tool, {**args, "ticket_id": "T-1"}, "agent"),
        [policy([rule, TICKET])],
        StaticHistory.from_dict(None),
        glossary=glossary,
    )
    return status(v)


def decide_beside_ticket(
    rules: list[str], tool: str, args: dict, agent: str = "ops-bot", history: dict | None = None
) -> str:
    """The clearance status of `tool(args)` asked by `agent` (with its `history`) under `rules`
    beside the satisfied ticket rule."""
    v = evaluate(
        ClearanceQuery(tool, {**args, "ticket_id": "T-1"}, agent),
        [policy([*rules, TICKET])],
        StaticHistory.from_dict(history),
    )
    return status(v)


# Open categories a property inserts into a rule ('… for privileged vendors'): no glossary
# defines them, so a rule carrying one can never decide on its own.
CATEGORY_QUALIFIERS = ("privileged", "sanctioned", "high-risk", "external", "personal")
CATEGORY_NOUNS = ("vendors", "accounts", "regions", "sites")


def assert_never_decides(text: str) -> None:
    """`text` (a rule with something unread inserted) is not understood, so it never decides."""
    compiled = compile_rule(0, "c:r0", text)
    assert compiled.understanding in ("partly_understood", "not_understood"), text
    assert not compiled.decides


# Conditions and a category a property appends to an understood rule ('…, except on weekends'):
# no recogniser reads them, so the rule must stay partly understood.
APPENDED_QUALIFIERS = (
    "unless a manager agrees otherwise",
    "except on weekends",
    "when the customer is a minor",
    "for privileged vendors",
)


def assert_qualified_never_decides(rule: str, qualifier: str) -> None:
    """`rule` with `qualifier` appended as a clause never decides on its own."""
    assert_never_decides(f"{rule.rstrip('.')}, {qualifier}.")
