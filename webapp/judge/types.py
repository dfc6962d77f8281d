"""Values the policy judge takes and returns (see CONTRACT §3 and §6)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

Decision = Literal["allow", "deny", "review"]
Layer = Literal["rules", "model"]

# Reason codes of CONTRACT §3 that the judge itself can produce.
RULE_VIOLATED = "rule_violated"
NO_MATCHING_POLICY = "no_matching_policy"
REVIEW_REQUIRED_BY_RULE = "review_required_by_rule"
APPROVED_BY_POLICY = "approved_by_policy"
BELOW_CONFIDENCE_THRESHOLD = "below_confidence_threshold"
JUDGE_UNAVAILABLE = "judge_unavailable"


@dataclass(frozen=True)
class PolicyVersion:
    """One active, immutable version of a tenant policy."""

    policy_id: str
    policy_version_id: str
    content_hash: str
    description: str
    rules: tuple[str, ...]
    tools: tuple[str, ...] = ()  # glob patterns; empty = every tool


@dataclass(frozen=True)
class ClearanceQuery:
    """The exact tool call an agent asks clearance for."""

    tool_name: str
    tool_args: dict
    agent_id: str
    session_id: str = ""
    policy_hint: str = ""


class History(Protocol):
    """Facts from the tenant's request history, supplied by the caller."""

    def total_today(self, agent_id: str, tool_name: str, arg: str) -> float:
        """Sum of numeric argument `arg` over today's (UTC) approved requests."""
        ...

    def count_last_hour(self, agent_id: str, tool_name: str) -> int:
        """Number of requests for this tool by this agent in the last hour."""
        ...

    def seen_value(self, agent_id: str, tool_name: str, arg: str, value: str) -> bool:
        """Whether `value` of argument `arg` was seen before (known counterparty)."""
        ...

    # Optional: `count_today(agent_id, tool_name) -> int`, the number of requests for this tool by
    # this agent since midnight UTC ('max 3 disbursements per agent per day'). A history without
    # it leaves such rules to a human (the engine reads it with getattr).


@dataclass(frozen=True)
class Citation:
    """A policy text the decision rests on, with its retrieval score."""

    policy_id: str
    policy_version_id: str
    chunk_id: str
    text: str
    score: float


@dataclass(frozen=True)
class Verdict:
    """The judge's answer for one clearance query."""

    decision: Decision
    confidence: float
    reason: str
    reason_code: str
    citations: tuple[Citation, ...] = ()
    evidence_chunks: tuple[dict, ...] = ()
    policy_id: str = ""
    policy_version_id: str = ""
    policy_content_hash: str = ""
    layer: Layer = "rules"
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RuleText:
    """A rule the model is asked about: its chunk id (for rule_refs) and its words."""

    chunk_id: str
    policy_id: str
    text: str


@dataclass(frozen=True)
class ModelJudgement:
    """What a language-model evaluator answered, already strictly parsed."""

    decision: Decision
    confidence: float
    reason: str
    rule_refs: tuple[str, ...] = ()
    malformed: bool = False  # the model answered, but not in the required shape


class Evaluator(Protocol):
    """A language-model evaluator for rules the engine could not compile."""

    def judge(
        self, query: ClearanceQuery, rules: list[RuleText], chunks: list[dict[str, Any]]
    ) -> ModelJudgement:
        """Judge `query` against uncompiled `rules` and retrieved `chunks`.

        Raises EvaluatorUnavailable when the model cannot be reached after retries.
        """
        ...


class EvaluatorUnavailable(Exception):
    """The language model could not be reached (after retries) or timed out."""


class JudgeUnavailable(Exception):
    """The engine itself failed (history unavailable, a database error): retry, never deny."""
