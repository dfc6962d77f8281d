"""Policy tests and dry runs (CONTRACT §6): judge tool calls against a policy, recording nothing.

Neither examples nor dry runs write a request, a ledger event or a token: they call the judge
engine directly on the one policy version given, with the tenant's glossary and threshold.
"""

from __future__ import annotations

from typing import Any

from webapp.judge.compiler import compile_policy
from webapp.judge.explain import policy_report
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery, PolicyVersion, Verdict
from webapp.judge.vocabulary import Glossary
from webapp.services import glossary, idempotency, judging, policies, settings
from webapp.services.canonical import body_fingerprint
from webapp.services.policies import PolicyContent

OUTCOMES = ("approved", "denied", "pending_review")
MAX_EXAMPLES = 200


def outcome(verdict: Verdict, threshold: float) -> str:
    """The clearance status a verdict leads to under the tenant's threshold."""
    if verdict.decision == "deny":
        return "denied"
    if verdict.decision == "review" or verdict.confidence < threshold:
        return "pending_review"
    return "approved"


def judge_one(client_id: str, policy: PolicyVersion, query: ClearanceQuery) -> Verdict:
    """The verdict of `policy` alone on `query`, with the tenant glossary; no history, no model."""
    from webapp.judge.engine import evaluate

    return evaluate(
        query, [policy], StaticHistory.from_dict(None), glossary=glossary.terms(client_id)
    )


def run_examples(
    client_id: str, policy: PolicyVersion, examples: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each example's expected and actual outcome."""
    threshold = _threshold(client_id)
    results = []
    for i, ex in enumerate(examples):
        query = ClearanceQuery(ex["tool_name"], ex["tool_args"], ex.get("agent_id") or "example")
        got = outcome(judge_one(client_id, policy, query), threshold)
        results.append(
            {"index": i, "expected": ex["expected"], "got": got, "passed": got == ex["expected"]}
        )
    return results


def rules_report(client_id: str, policy: PolicyVersion) -> list[dict[str, Any]]:
    """Per-rule understanding and readings, compiled with the tenant glossary."""
    terms = glossary.terms(client_id)
    return policy_report(compile_policy(policy, Glossary.of(terms) if terms else None))


def dry_run(client_id: str, policy: PolicyVersion, query: ClearanceQuery) -> dict[str, Any]:
    """The decision `policy` would give `query`, with readings and citations; records nothing."""
    verdict = judge_one(client_id, policy, query)
    return {
        "status": outcome(verdict, _threshold(client_id)),
        "decision": verdict.decision,
        "reason": verdict.reason,
        "reason_code": verdict.reason_code,
        "confidence": verdict.confidence,
        "citations": [
            {"policy_id": c.policy_id, "chunk_id": c.chunk_id, "text": c.text, "score": c.score}
            for c in verdict.citations
        ],
        "rules": rules_report(client_id, policy),
    }


def _threshold(client_id: str) -> float:
    return float(settings.review_settings(client_id)["minimum_confidence_score"])


IDEMPOTENCY_SCOPE = "register-policy"


def register(
    client_id: str,
    content: PolicyContent,
    examples: list[dict[str, Any]],
    idempotency_key: str | None = None,
) -> tuple[dict[str, Any], int]:
    """``POST /register-policy`` (spec §2.4): register the version and report how its rules
    read and how its examples fare; (answer, 201 new version | 200 unchanged).

    The registration commits with its Idempotency-Key; a replay answers the first answer.
    """
    fingerprint = body_fingerprint(
        {
            "policy_id": content.policy_id,
            "description": content.description,
            "rules": content.rules,
            "tools": content.tools,
            "examples": examples,
        }
    )
    answer, status, registration = idempotency.in_transaction(
        client_id,
        IDEMPOTENCY_SCOPE,
        idempotency_key,
        fingerprint,
        lambda: _stage_registration(client_id, content, examples),
        lambda record: (*idempotency.replay_stored(record), None),
        keep=lambda result: (result[0], result[1]),
    )
    if registration is not None:
        policies.after_registration(registration)
    return answer, status


def _stage_registration(
    client_id: str, content: PolicyContent, examples: list[dict[str, Any]]
) -> tuple[str, tuple[dict[str, Any], int, policies.Registration]]:
    result = policies.stage_registration(client_id, content, examples=examples)
    version = result.version
    if result.created:
        status, message = "registered", f"version {version.version} registered"
    elif result.reactivated:
        status, message = "unchanged", "content unchanged; policy reactivated"
    else:
        status, message = "unchanged", "content unchanged; no new version"
    judge_policy = judging.to_judge_policy(version)
    answer = {
        "policy_id": version.policy_id,
        "status": status,
        "message": message,
        "policy_version_id": version.policy_version_id,
        "policy_content_hash": version.content_hash,
        "version": version.version,
        "chunks": result.chunks,
        "rules": rules_report(client_id, judge_policy),
        "examples": run_examples(client_id, judge_policy, examples or list(version.examples or [])),
    }
    return version.policy_version_id, (answer, 201 if result.created else 200, result)
