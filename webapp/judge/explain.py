"""What the judge understood of a policy, rule by rule (CONTRACT §6 `rules`), for staff to read."""

from __future__ import annotations

from typing import Any

from webapp.judge.compiler import CompiledPolicy, CompiledRule

_EFFECT_OF_STATE = {
    "understood": "decides on its own",
    "partly_understood": (
        "never decides on its own: a request it governs goes to review "
        "(or to the language model when one is configured)"
    ),
    "not_understood": (
        "kept as text: a request it speaks to goes to review "
        "(or to the language model when one is configured)"
    ),
    "informational": "states no obligation; it does not change decisions",
}


def rule_report(rule: CompiledRule, tools: tuple[str, ...] = ()) -> dict[str, Any]:
    """One rule's understanding, plain readings of its checks and the words no check accounts for."""
    suffix = f" (tools: {', '.join(tools)})" if tools else ""
    # 'approval from two reviewers': a review this rule asks for needs that many approvals.
    quorum = (
        f" ({rule.required_approvals} distinct approvals)" if rule.required_approvals >= 2 else ""
    )
    readings = [
        check.reading() + (quorum if check.effect == "review" else "") + suffix
        for check in rule.checks
    ]
    state = rule.understanding
    return {
        "index": rule.index,
        "text": rule.text,
        "understanding": state,
        "readings": readings,
        "unaccounted": list(rule.unaccounted),
        "effect": _EFFECT_OF_STATE[state],
    }


def policy_report(compiled: CompiledPolicy) -> list[dict[str, Any]]:
    """The report of every rule of a compiled policy version, in rule order."""
    tools = tuple(compiled.policy.tools)
    # the rules as registered (CONTRACT §6); description sentences judged like rules are not
    # among them
    return [rule_report(rule, tools) for rule in compiled.rules if not rule.from_description]
