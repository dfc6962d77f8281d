"""The one interface the decision path calls the judge through.

The judge runs in-process (the default) or as its own service at ``VAULT_JUDGE_URL``; either
way it answers with a Verdict. Any failure raises JudgeUnavailable: callers never turn a
failure into an approval.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import asdict
from datetime import datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import func, select

from webapp.extensions import db
from webapp.judge.types import (
    Citation,
    ClearanceQuery,
    Evaluator,
    EvaluatorUnavailable,
    ModelJudgement,
    Verdict,
)
from webapp.judge.types import PolicyVersion as JudgePolicy
from webapp.models import APPROVED, PENDING_REVIEW, ClearanceRequest, PolicyChunk, utcnow
from webapp.runtime import vault
from webapp.services import glossary, policies, tenant_cache

log = logging.getLogger(__name__)


class JudgeUnavailable(RuntimeError):
    """The judge could not give a verdict (error, timeout, malformed answer)."""


def judge(client_id: str, query: ClearanceQuery) -> Verdict:
    """A verdict for the query from the configured judge."""
    config = vault().config
    if config.judge_url:
        return _remote(client_id, query)
    return evaluate_locally(client_id, query)


def judge_at_once(client_id: str, query: ClearanceQuery) -> Verdict | None:
    """The verdict, when it needs no slow call; None when the request must go to the queue.

    Slow calls are a remote judge (``VAULT_JUDGE_URL``) and a language model: with a model
    configured, the rules run here with an evaluator that only notes that the model was asked
    for, and a request whose rules leave text to the model goes to the queue. Any error here
    also sends the request to the queue, where the judge job retries and fails closed.
    """
    if vault().config.judge_url:
        return None
    deferred = _ModelDeferred() if vault().config.eval_model else None
    try:
        verdict = evaluate_locally(client_id, query, evaluator=deferred)
    except Exception:  # noqa: BLE001 - the slow lane retries, and never approves on failure
        log.exception("judging in the web process failed; queueing the request")
        db.session.rollback()
        return None
    if deferred is not None and deferred.asked:
        return None
    return verdict


def warm_up(max_tenants: int = 500) -> int:
    """Load the engine, compile every tenant's active policies and build their indexes.

    Run once when a web worker starts (``gunicorn.conf.py``), so that the first clearance
    after start-up is decided at once instead of paying for imports and compilation. Only the
    judge's entry point is used: a query for a tool no policy names compiles every active
    version and builds the index without matching anything. Returns the tenants warmed.
    """
    from webapp.models import Policy

    if vault().config.judge_url:
        return 0
    tenants = list(
        db.session.scalars(
            select(Policy.client_id).where(Policy.active.is_(True)).distinct().limit(max_tenants)
        )
    )
    probe = ClearanceQuery(tool_name="(vault warm-up)", tool_args={}, agent_id="(vault warm-up)")
    for client_id in tenants:
        evaluate_locally(client_id, probe, evaluator=None)
    if not tenants:
        from webapp.judge import engine  # noqa: F401 - the import itself is the slow part

    db.session.rollback()
    return len(tenants)


_CONFIGURED = object()


def evaluate_locally(
    client_id: str, query: ClearanceQuery, evaluator: Evaluator | None | object = _CONFIGURED
) -> Verdict:
    """Run the judge in this process over the tenant's active policies and history."""
    versions = active_policies(client_id)
    if vault().config.allow_stub_judge:
        return _stub(query, list(versions))
    from webapp.judge.engine import evaluate
    from webapp.judge.types import JudgeUnavailable as EngineUnavailable

    try:
        return evaluate(
            query,
            versions,
            DatabaseHistory(client_id),
            evaluator=_evaluator() if evaluator is _CONFIGURED else evaluator,  # type: ignore[arg-type]
            documents=_document_index(client_id, [v.policy_version_id for v in versions]),
            # Categories named in rules (CONTRACT §6a); a tenant setting, so cached like the rest.
            glossary=tenant_cache.cached(
                client_id, "glossary", "terms", lambda: glossary.terms(client_id)
            ),
            # An internal failure (history unreadable, a database error) is retried like a remote
            # judge's failure, never answered as a deny.
            raise_unavailable=True,
        )
    except EngineUnavailable as exc:
        raise JudgeUnavailable(str(exc)) from exc


def active_policies(client_id: str) -> tuple[JudgePolicy, ...]:
    """The tenant's active versions as the judge takes them; cached while none changes."""
    return tenant_cache.cached(
        client_id,
        "policies",
        "active",
        lambda: tuple(to_judge_policy(v) for v in policies.active_versions(client_id)),
    )


class _ModelDeferred:
    """An evaluator for the web process: the model is a slow call, so asking for it defers."""

    def __init__(self) -> None:
        self.asked = False

    def judge(self, *_args: Any, **_kwargs: Any) -> ModelJudgement:
        self.asked = True
        raise EvaluatorUnavailable("the language model is consulted by the judge job")


# Per-process cache of each tenant's retrieval index, keyed by what it was built from.
_INDEXES: OrderedDict[tuple, Any] = OrderedDict()
_INDEX_CACHE_SIZE = 64


def _document_index(client_id: str, version_ids: list[str]):  # noqa: ANN202
    """The hybrid (BM25 + vector) index over the active versions' chunks, built once per change."""
    if not version_ids:
        return None
    model = vault().config.embedding_model
    versions = tuple(sorted(version_ids))
    embedded = tenant_cache.cached(
        client_id,
        "embedded-chunks",
        versions,
        lambda: db.session.scalar(
            select(func.count())
            .select_from(PolicyChunk)
            .where(PolicyChunk.policy_version_id.in_(versions), PolicyChunk.embedding.is_not(None))
        ),
    )
    key = (client_id, versions, model, embedded)
    index = _INDEXES.get(key)
    if index is not None:
        _INDEXES.move_to_end(key)
        return index
    import numpy as np

    from ingest import EmbeddingUnavailable, get_embedder
    from webapp.judge.retrieval import Chunk, HybridIndex

    rows = list(
        db.session.execute(
            select(
                PolicyChunk.chunk_id,
                PolicyChunk.text,
                PolicyChunk.policy_id,
                PolicyChunk.policy_version_id,
                PolicyChunk.page,
                PolicyChunk.heading,
                PolicyChunk.is_rule,
                PolicyChunk.embedding,
                PolicyChunk.embedding_model,
            )
            .where(PolicyChunk.policy_version_id.in_(version_ids))
            .order_by(PolicyChunk.policy_version_id, PolicyChunk.ordinal)
        )
    )
    chunks = [
        Chunk(
            r.chunk_id,
            r.text,
            {
                "policy_id": r.policy_id,
                "policy_version_id": r.policy_version_id,
                "page": r.page,
                "section": r.heading,
                "is_rule": r.is_rule,
            },
        )
        for r in rows
    ]
    vectors = embed = None
    try:
        embedder = get_embedder(model)
        if any(r.embedding is not None and r.embedding_model == embedder.name for r in rows):
            vectors = np.zeros((len(rows), embedder.dim), dtype=np.float32)
            for i, r in enumerate(rows):
                # Chunks not yet embedded with this model score 0 on the vector side.
                if r.embedding is not None and r.embedding_model == embedder.name:
                    vectors[i] = np.frombuffer(r.embedding, dtype=np.float32)
            embed = embedder.embed
    except EmbeddingUnavailable:
        log.warning("embedding model %s unavailable; retrieval is lexical only", model)
    index = HybridIndex(chunks, vectors=vectors, embed=embed)
    _INDEXES[key] = index
    while len(_INDEXES) > _INDEX_CACHE_SIZE:
        _INDEXES.popitem(last=False)
    return index


def to_judge_policy(version) -> JudgePolicy:  # noqa: ANN001
    return JudgePolicy(
        policy_id=version.policy_id,
        policy_version_id=version.policy_version_id,
        content_hash=version.content_hash,
        description=version.description,
        rules=tuple(version.rules),
        tools=tuple(version.tools),
    )


class DatabaseHistory:
    """Facts from the tenant's request history, for limits across calls."""

    def __init__(self, client_id: str) -> None:
        self.client_id = client_id

    def total_today(self, agent_id: str, tool_name: str, arg: str) -> float:
        start = utcnow().replace(hour=0, minute=0, second=0, microsecond=0)
        rows = db.session.scalars(
            select(ClearanceRequest.tool_args).where(
                ClearanceRequest.client_id == self.client_id,
                ClearanceRequest.agent_id == agent_id,
                ClearanceRequest.tool_name == tool_name,
                ClearanceRequest.status == APPROVED,
                ClearanceRequest.created_at >= start,
            )
        )
        return sum(_number_at(args, arg) for args in rows)

    def count_last_hour(self, agent_id: str, tool_name: str) -> int:
        return self._count_since(agent_id, tool_name, utcnow() - timedelta(hours=1))

    def count_today(self, agent_id: str, tool_name: str) -> int:
        """This agent's requests for the tool since midnight UTC ('max 3 … per agent per day')."""
        start = utcnow().replace(hour=0, minute=0, second=0, microsecond=0)
        return self._count_since(agent_id, tool_name, start)

    def _count_since(self, agent_id: str, tool_name: str, since: datetime) -> int:
        # approved and waiting requests count; denied ones did nothing
        return (
            db.session.scalar(
                select(func.count())
                .select_from(ClearanceRequest)
                .where(
                    ClearanceRequest.client_id == self.client_id,
                    ClearanceRequest.agent_id == agent_id,
                    ClearanceRequest.tool_name == tool_name,
                    ClearanceRequest.status.in_((APPROVED, PENDING_REVIEW)),
                    ClearanceRequest.created_at >= since,
                )
            )
            or 0
        )

    def seen_value(self, agent_id: str, tool_name: str, arg: str, value: str) -> bool:
        rows = db.session.scalars(
            select(ClearanceRequest.tool_args)
            .where(
                ClearanceRequest.client_id == self.client_id,
                ClearanceRequest.agent_id == agent_id,
                ClearanceRequest.tool_name == tool_name,
                ClearanceRequest.status == APPROVED,
            )
            .limit(5000)
        )
        return any(
            str(_value_at(args, arg)) == str(value)
            for args in rows
            if _value_at(args, arg) is not None
        )


def _value_at(args: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(args, dict) or part not in args:
            return None
        args = args[part]
    return args


def _number_at(args: Any, dotted: str) -> float:
    value = _value_at(args, dotted)
    if isinstance(value, bool):
        return 0.0
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value).replace(",", ""))
    except (TypeError, ValueError):
        return 0.0


def _evaluator():  # noqa: ANN202
    config = vault().config
    if not config.eval_model:
        return None
    from webapp.judge.llm import ChatEvaluator

    return ChatEvaluator(
        base_url=config.eval_base_url,
        api_key=config.eval_api_key,
        model=config.eval_model,
        timeout=config.judge_timeout_seconds,
    )


def _remote(client_id: str, query: ClearanceQuery) -> Verdict:
    config = vault().config
    try:
        response = httpx.post(
            f"{config.judge_url}/evaluate",
            json={
                "client_id": client_id,
                "tool_name": query.tool_name,
                "tool_args": query.tool_args,
                "agent_id": query.agent_id,
                "session_id": query.session_id,
                "policy_hint": query.policy_hint,
            },
            headers={"X-API-Key": config.judge_api_key},
            timeout=config.judge_timeout_seconds,
        )
    except httpx.HTTPError as error:
        raise JudgeUnavailable(f"judge unreachable: {type(error).__name__}") from None
    if response.status_code != 200:
        raise JudgeUnavailable(f"judge answered {response.status_code}")
    try:
        return verdict_from_dict(response.json())
    except (ValueError, KeyError, TypeError) as error:
        raise JudgeUnavailable(f"judge answer is malformed: {error}") from None


def _stub(query: ClearanceQuery, versions: list[JudgePolicy]) -> Verdict:
    """VAULT_ALLOW_STUB_JUDGE: approve any tool a policy names, development only."""
    from fnmatch import fnmatchcase

    governing = [
        v for v in versions if not v.tools or any(fnmatchcase(query.tool_name, t) for t in v.tools)
    ]
    if not governing:
        return Verdict(
            decision="deny",
            confidence=0.0,
            reason="no policy governs this tool (stub judge)",
            reason_code="no_matching_policy",
            citations=(),
            evidence_chunks=(),
            policy_id="",
            policy_version_id="",
            policy_content_hash="",
            layer="rules",
            details={"stub": True},
        )
    first = governing[0]
    return Verdict(
        decision="allow",
        confidence=1.0,
        reason="stub judge (development only) approved without evaluating rules",
        reason_code="approved_by_policy",
        citations=(),
        evidence_chunks=(),
        policy_id=first.policy_id,
        policy_version_id=first.policy_version_id,
        policy_content_hash=first.content_hash,
        layer="rules",
        details={"stub": True},
    )


def verdict_to_dict(verdict: Verdict) -> dict[str, Any]:
    """The wire form of a verdict (the judge service's answer)."""
    return asdict(verdict)


def verdict_from_dict(data: dict[str, Any]) -> Verdict:
    """Parse a judge service answer strictly; anything unexpected raises."""
    if data.get("decision") not in ("allow", "deny", "review"):
        raise ValueError("decision must be allow, deny or review")
    confidence = data["confidence"]
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float))
        or not 0 <= confidence <= 1
    ):
        raise ValueError("confidence must be a number in [0, 1]")
    citations = tuple(
        Citation(
            policy_id=str(c["policy_id"]),
            policy_version_id=str(c["policy_version_id"]),
            chunk_id=str(c["chunk_id"]),
            text=str(c["text"]),
            score=float(c["score"]),
        )
        for c in data.get("citations", [])
    )
    return Verdict(
        decision=data["decision"],
        confidence=float(confidence),
        reason=str(data["reason"]),
        reason_code=str(data["reason_code"]),
        citations=citations,
        evidence_chunks=tuple(dict(e) for e in data.get("evidence_chunks", [])),
        policy_id=str(data.get("policy_id", "")),
        policy_version_id=str(data.get("policy_version_id", "")),
        policy_content_hash=str(data.get("policy_content_hash", "")),
        layer=data.get("layer", "rules") if data.get("layer") in ("rules", "model") else "rules",
        details=dict(data.get("details", {})),
    )
