"""Clearance requests and the one state machine for every transition of spec §3.

    none ──request──▶ processing ──verdict──▶ approved | denied | pending_review
    none ──request (agent locked down)──▶ denied
    pending_review ──reviewer──▶ approved | denied
    pending_review ──expiry──▶ denied (review_expired)
    processing ──judge failed after retries──▶ denied | pending_review (judge_unavailable)

Each transition is a guarded UPDATE (``… WHERE status = <expected>``), so of two racing
transitions exactly one wins. A terminal transition writes its ledger event (and mints the
token, for approvals) in the same transaction as the status change.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import redis
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value

from webapp.errors import Conflict, Forbidden, InvalidInput, RateLimited, Unavailable
from webapp.extensions import db
from webapp.judge.types import Verdict
from webapp.models import (
    APPROVED,
    DENIED,
    PENDING_REVIEW,
    PROCESSING,
    ClearanceRequest,
    IdempotencyRecord,
    iso,
    new_id,
    utcnow,
)
from webapp.runtime import vault
from webapp.services import agents, idempotency, settings, tokens
from webapp.services.canonical import body_fingerprint, intent_hash
from webapp.services.ledger import EventContent, append_event

log = logging.getLogger(__name__)

# Fields existing clients send that are kept with the request and its ledger event.
CLIENT_METADATA_FIELDS = (
    "human_principal",
    "parent_jti",
    "destination_uri",
    "destination_provider",
    "destination_account_ref",
    "data_categories",
    "purpose",
    "processing_register_ref",
    "dataset_ref",
)
DONE_KEY = "vault:clearance:done:{}"

# The allowed transitions; anything else is a bug and raises IllegalTransition.
TRANSITIONS = {
    PROCESSING: {APPROVED, DENIED, PENDING_REVIEW},
    PENDING_REVIEW: {APPROVED, DENIED},
    APPROVED: set(),
    DENIED: set(),
}


class IllegalTransition(RuntimeError):
    """A transition the state machine does not allow."""


@dataclass(frozen=True)
class NewRequest:
    tool_name: str
    tool_args: dict[str, Any]
    agent_id: str
    session_id: str
    policy_hint: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class Outcome:
    """What a decision sets on the request."""

    status: str
    reason: str
    reason_code: str
    confidence: float
    decided_by: str


def confidence_bucket(score: float) -> str:
    if score >= 0.95:
        return "extra_high"
    if score >= 0.80:
        return "high"
    if score >= 0.60:
        return "medium"
    if score > 0:
        return "low"
    return "none"


def decision_status(status: str) -> str:
    """CONTRACT §3: only three values, and processing reads as denied."""
    return {APPROVED: "approved", PENDING_REVIEW: "approved_pending_review"}.get(status, "denied")


# --- requesting ------------------------------------------------------------------------------


def request_clearance(
    client_id: str, new: NewRequest, idempotency_key: str | None
) -> tuple[ClearanceRequest, bool]:
    """Store the request and queue its judgement; returns (request, newly_created).

    A locked-down agent is denied at once without evaluating any policy. With Redis down the
    caller gets 503 and nothing stays written.
    """
    fingerprint = body_fingerprint(
        {
            "tool_name": new.tool_name,
            "tool_args": new.tool_args,
            "agent_id": new.agent_id,
            "session_id": new.session_id,
            "policy_hint": new.policy_hint,
            "metadata": new.metadata,
        }
    )
    if idempotency_key:
        existing = idempotency.find(client_id, "request-clearance", idempotency_key, fingerprint)
        if existing is not None:
            return ClearanceRequest.get_for_tenant(
                client_id, existing.resource_id, "clearance request"
            ), False

    agent = agents.current_state(client_id, new.agent_id)
    if agents.is_locked_down(agent):
        request = _new_row(client_id, new)
        db.session.add(request)
        db.session.flush()
        idempotency.remember(
            client_id, "request-clearance", idempotency_key, fingerprint, request.request_id
        )
        _transition(
            request,
            Outcome(
                DENIED,
                "agent is locked down; policy was not evaluated",
                "agent_locked_down",
                0.0,
                "system",
            ),
        )
        agents.touch(client_id, new.agent_id, agent)
        db.session.commit()
        return request, True

    connection = vault().redis
    try:
        from jobs import queues

        waiting = queues.queue(queues.CLEARANCE, connection).count
    except redis.RedisError:
        raise Unavailable(
            "queue unavailable; retry shortly", headers={"Retry-After": "2"}
        ) from None
    if waiting > vault().config.clearance_queue_size:
        raise RateLimited("clearance queue is full; retry shortly", headers={"Retry-After": "2"})

    request = _new_row(client_id, new)
    request.threshold = settings.review_settings(client_id)["minimum_confidence_score"]
    db.session.add(request)
    idempotency.remember(
        client_id, "request-clearance", idempotency_key, fingerprint, request.request_id
    )
    agents.touch(client_id, new.agent_id, agent)
    try:
        db.session.commit()
    except IntegrityError:
        # A concurrent request with the same Idempotency-Key won; answer with its request.
        db.session.rollback()
        if not idempotency_key:
            raise
        existing = idempotency.find(client_id, "request-clearance", idempotency_key, fingerprint)
        if existing is None:
            raise
        return ClearanceRequest.get_for_tenant(
            client_id, existing.resource_id, "clearance request"
        ), False
    try:
        enqueue_judgement(request.request_id, client_id)
    except redis.RedisError:
        # Compensate: the row must not outlive a request that was never queued.
        db.session.execute(
            IdempotencyRecord.__table__.delete().where(
                IdempotencyRecord.client_id == client_id,
                IdempotencyRecord.resource_id == request.request_id,
            )
        )
        db.session.execute(
            ClearanceRequest.__table__.delete().where(
                ClearanceRequest.request_id == request.request_id
            )
        )
        db.session.commit()
        raise Unavailable(
            "queue unavailable; retry shortly", headers={"Retry-After": "2"}
        ) from None
    return request, True


def enqueue_judgement(request_id: str, client_id: str, attempt: int = 0) -> None:
    """Queue the judge job; the id is deterministic per attempt so a retry cannot double up."""
    from rq import Retry

    from jobs import queues
    from jobs.clearance import judge_request

    config = vault().config
    base = config.judge_retry_base_seconds
    queues.queue(queues.CLEARANCE, vault().redis).enqueue(
        judge_request,
        request_id,
        job_id=f"judge-{request_id}-{attempt}",
        job_timeout=int(config.judge_timeout_seconds * (config.judge_retries + 1)) + 30,
        result_ttl=300,
        failure_ttl=86400,
        retry=Retry(
            max=config.judge_retries,
            interval=[int(base * 2**i) for i in range(config.judge_retries)],
        )
        if config.judge_retries
        else None,
        meta={"client_id": client_id},
    )


def wait_for_decision(request: ClearanceRequest, wait_ms: int) -> ClearanceRequest:
    """Wait up to ``wait_ms`` for the judge job to finish; returns the fresh row."""
    if wait_ms > 0 and request.status == PROCESSING:
        try:
            vault().redis.blpop([DONE_KEY.format(request.request_id)], timeout=wait_ms / 1000)
        except redis.RedisError:
            pass  # the client will poll
    db.session.expire(request)
    db.session.refresh(request)
    return request


def get_request(client_id: str, request_id: str) -> ClearanceRequest:
    return ClearanceRequest.get_for_tenant(client_id, request_id, "clearance request")


# --- transitions -------------------------------------------------------------------------------


def apply_verdict(request_id: str, verdict: Verdict) -> ClearanceRequest | None:
    """Turn the judge's verdict into the request's next state (the judge job calls this)."""
    request = db.session.get(ClearanceRequest, request_id)
    if request is None or request.status != PROCESSING:
        return request
    if verdict.reason_code == "judge_unavailable":
        # The judge answered that it could not judge: the tenant's failure mode decides.
        return fail_judgement(request_id, verdict.reason)
    request.judge_verdict = _verdict_summary(verdict)
    request.policy_id = verdict.policy_id
    request.policy_version_id = verdict.policy_version_id
    request.policy_content_hash = verdict.policy_content_hash
    request.citations = [_citation(c) for c in verdict.citations]
    request.evidence_chunks = [dict(e) for e in verdict.evidence_chunks]
    confidence = max(0.0, min(1.0, float(verdict.confidence)))
    if verdict.decision == "allow" and verdict.reason_code == "approved_by_policy":
        if confidence >= request.threshold:
            outcome = Outcome(
                APPROVED, verdict.reason, "approved_by_policy", confidence, verdict.layer
            )
        else:
            outcome = Outcome(
                PENDING_REVIEW,
                f"confidence {confidence:.2f} is below the threshold {request.threshold:.2f}: {verdict.reason}",
                "below_confidence_threshold",
                confidence,
                verdict.layer,
            )
    elif verdict.decision == "review":
        code = (
            verdict.reason_code
            if verdict.reason_code in ("review_required_by_rule", "below_confidence_threshold")
            else "review_required_by_rule"
        )
        outcome = Outcome(PENDING_REVIEW, verdict.reason, code, confidence, verdict.layer)
    else:
        # deny, or an allow without the approval code: never approve on an unclear verdict.
        code = (
            verdict.reason_code
            if verdict.reason_code in ("rule_violated", "no_matching_policy")
            else "rule_violated"
        )
        outcome = Outcome(DENIED, verdict.reason, code, confidence, verdict.layer)
    if _transition(request, outcome):
        db.session.commit()
        _after_commit(request)
    else:
        db.session.rollback()
    return request


def fail_judgement(request_id: str, detail: str) -> ClearanceRequest | None:
    """The judge failed for good: deny, or send to review if the tenant chose that."""
    request = db.session.get(ClearanceRequest, request_id)
    if request is None or request.status != PROCESSING:
        return request
    mode = settings.review_settings(request.client_id)["judge_failure_mode"]
    status = PENDING_REVIEW if mode == "review" else DENIED
    reason = f"the policy judge is unavailable ({detail}); " + (
        "a reviewer must decide" if status == PENDING_REVIEW else "the request is denied"
    )
    if _transition(request, Outcome(status, reason, "judge_unavailable", 0.0, "system")):
        db.session.commit()
        _after_commit(request)
    else:
        db.session.rollback()
    return request


def decide_review(
    client_id: str,
    request_id: str,
    *,
    approved: bool,
    reviewer_email: str,
    review_reason: str,
    reviewer_verified: bool,
) -> ClearanceRequest:
    """A reviewer's decision on a pending request; 409 when it is no longer pending."""
    request = get_request(client_id, request_id)
    if reviewer_email and reviewer_email.strip().lower() == request.agent_id.strip().lower():
        raise Forbidden("a reviewer cannot decide a request made under their own identity")
    if request.status != PENDING_REVIEW:
        raise Conflict(f"request is no longer pending review (it is {request.status})")
    request.reviewer_email = reviewer_email
    request.review_reason = review_reason
    request.reviewer_verified = reviewer_verified
    outcome = (
        Outcome(
            APPROVED,
            review_reason or "approved by a reviewer",
            "approved_by_reviewer",
            request.confidence,
            "reviewer",
        )
        if approved
        else Outcome(
            DENIED,
            review_reason or "denied by a reviewer",
            "reviewer_denied",
            request.confidence,
            "reviewer",
        )
    )
    if not _transition(request, outcome, category="review_decision"):
        db.session.rollback()
        raise Conflict("another reviewer decided this request first")
    db.session.commit()
    _after_commit(request)
    return request


def expire_reviews(now=None) -> int:  # noqa: ANN001
    """Deny pending reviews older than VAULT_REVIEW_TTL_SECONDS with ``review_expired``."""
    now = now or utcnow()
    cutoff = now - timedelta(seconds=vault().config.review_ttl_seconds)
    expired = 0
    ids = list(
        db.session.scalars(
            select(ClearanceRequest.request_id)
            .where(
                ClearanceRequest.status == PENDING_REVIEW,
                ClearanceRequest.review_started_at < cutoff,
            )
            .limit(1000)
        )
    )
    for request_id in ids:
        request = db.session.get(ClearanceRequest, request_id)
        outcome = Outcome(
            DENIED,
            "no reviewer decided before the review expired",
            "review_expired",
            request.confidence,
            "system",
        )
        if _transition(request, outcome, category="review_decision"):
            db.session.commit()
            _after_commit(request)
            expired += 1
        else:
            db.session.rollback()
    return expired


def reap_stuck(now=None, max_attempts: int = 3) -> int:  # noqa: ANN001
    """Re-queue requests left in ``processing`` by a dead worker; deny after repeated losses."""
    now = now or utcnow()
    cutoff = now - timedelta(seconds=vault().config.clearance_reap_seconds)
    rows = list(
        db.session.scalars(
            select(ClearanceRequest)
            .where(ClearanceRequest.status == PROCESSING, ClearanceRequest.updated_at < cutoff)
            .limit(500)
        )
    )
    reaped = 0
    for request in rows:
        claimed = db.session.execute(
            update(ClearanceRequest)
            .where(
                ClearanceRequest.request_id == request.request_id,
                ClearanceRequest.status == PROCESSING,
                ClearanceRequest.updated_at == request.updated_at,
            )
            .values(attempts=ClearanceRequest.attempts + 1, updated_at=utcnow())
        ).rowcount
        db.session.commit()
        if not claimed:
            continue
        db.session.refresh(request)
        if request.attempts > max_attempts:
            fail_judgement(request.request_id, "the request was lost by workers repeatedly")
        else:
            log.warning("re-queueing request %s stuck in processing", request.request_id)
            enqueue_judgement(request.request_id, request.client_id, request.attempts)
        reaped += 1
    return reaped


def _transition(
    request: ClearanceRequest, outcome: Outcome, category: str = "clearance_decision"
) -> bool:
    """Move the request with a guarded UPDATE; write the event and token. No commit."""
    before = request.status
    if outcome.status not in TRANSITIONS.get(before, set()):
        raise IllegalTransition(
            f"{before} → {outcome.status} is not a transition of the state machine"
        )
    now = utcnow()
    terminal = outcome.status in (APPROVED, DENIED)
    values: dict[str, Any] = {
        "status": outcome.status,
        "approved": outcome.status == APPROVED,
        "reason": outcome.reason,
        "reason_code": outcome.reason_code,
        "confidence": outcome.confidence,
        "decided_by": outcome.decided_by,
        "updated_at": now,
        "decided_at": now if terminal else None,
    }
    if outcome.status == PENDING_REVIEW:
        values["review_started_at"] = now
        # Kept after a reviewer's decision replaces `reason`; the quorum is fixed now (issue 15).
        values["judge_reason"] = outcome.reason
        values["required_approvals"] = settings.required_approvals_for(
            request.client_id, request.judge_verdict
        )
    for field in (
        "policy_id",
        "policy_version_id",
        "policy_content_hash",
        "citations",
        "evidence_chunks",
        "judge_verdict",
        "reviewer_email",
        "review_reason",
        "reviewer_verified",
    ):
        values[field] = getattr(request, field)
    # The guarded UPDATE writes every field the caller set on the request; flushing them first
    # (a query inside `mint` would) would write the row twice, the first time unguarded.
    with db.session.no_autoflush:
        if outcome.status == APPROVED:
            minted = tokens.mint(request)
            values["token"] = minted.token
            values["token_jti"] = minted.jti
        won = db.session.execute(
            update(ClearanceRequest)
            .where(
                ClearanceRequest.request_id == request.request_id,
                ClearanceRequest.status == before,
            )
            .values(**values)
            .execution_options(synchronize_session=False)
        ).rowcount
    if not won:
        return False
    for name, value in values.items():
        # Already written by the UPDATE: record them as committed so the ORM does not write twice.
        set_committed_value(request, name, value)
    if terminal:
        append_event(request.client_id, _decision_event(request, category))
    return True


def _decision_event(request: ClearanceRequest, category: str) -> EventContent:
    metadata: dict[str, Any] = {
        **request.action_metadata,
        "session_id": request.session_id,
        "reason_code": request.reason_code,
        "decided_by": request.decided_by,
        "threshold": request.threshold,
    }
    if request.judge_verdict:
        metadata["judge"] = request.judge_verdict
    if category == "review_decision":
        metadata["reviewer"] = {
            "email": request.reviewer_email,
            "verified": request.reviewer_verified,
            "reason": request.review_reason,
        }
        from webapp.services import reviews  # the review record lives with the review service

        metadata.update(reviews.ledger_record(request))
    return EventContent(
        action_category=category,
        request_id=request.request_id,
        agent_id=request.agent_id,
        tool_name=request.tool_name,
        tool_args=request.tool_args,
        reason=request.reason,
        citations=request.citations,
        evidence_chunks=request.evidence_chunks,
        action_metadata=metadata,
        policy_id=request.policy_id,
        policy_version_id=request.policy_version_id,
        policy_content_hash=request.policy_content_hash,
        confidence=request.confidence,
        confidence_bucket=confidence_bucket(request.confidence),
        decision_status=decision_status(request.status),
        approved=request.status == APPROVED,
    )


def _after_commit(request: ClearanceRequest) -> None:
    """Wake a waiting HTTP handler, and notify reviewers of a new pending request."""
    try:
        key = DONE_KEY.format(request.request_id)
        pipe = vault().redis.pipeline()
        pipe.rpush(key, request.status)
        pipe.expire(key, 60)
        pipe.execute()
    except redis.RedisError:
        log.warning("could not signal the decision of %s; the client will poll", request.request_id)
    for hook in _AFTER_TRANSITION:
        try:
            hook(request)
        except Exception:  # noqa: BLE001 - a failed side effect never changes the decision
            log.exception("after-transition hook failed for %s", request.request_id)


_AFTER_TRANSITION: list = []


def on_transition(hook) -> None:  # noqa: ANN001
    """Register a side effect (notifications, webhooks) run after a committed transition."""
    if hook not in _AFTER_TRANSITION:
        _AFTER_TRANSITION.append(hook)


# --- views -----------------------------------------------------------------------------------


def response_view(request: ClearanceRequest) -> dict[str, Any]:
    """The clearance response: spec §2.2 plus CONTRACT §3, every field always present."""
    approved = request.status == APPROVED
    return {
        "status": request.status,
        "approved": approved,
        "requires_manual_review": request.status == PENDING_REVIEW,
        "token": request.token if approved else None,
        "reason": request.reason
        or ("the request is being evaluated" if request.status == PROCESSING else ""),
        "request_id": request.request_id,
        "confidence": request.confidence,
        "minimum_confidence_score": request.threshold,
        "decision_status": decision_status(request.status),
        "confidence_bucket": confidence_bucket(request.confidence),
        "minimum_confidence_bucket": confidence_bucket(request.threshold),
        "reason_code": request.reason_code,
        "policy_id": request.policy_id,
        "policy_version_id": request.policy_version_id,
        "policy_content_hash": request.policy_content_hash,
        "citations": request.citations or [],
        "created_at": iso(request.created_at),
        "decided_at": iso(request.decided_at),
    }


def parse_new_request(body: dict[str, Any]) -> NewRequest:
    """Validate a clearance body (spec §2.1) into a NewRequest, with field errors."""
    from webapp.api.parsing import check_json_numbers

    errors: list[dict[str, str]] = []

    def text(name: str, required: bool, limit: int) -> str:
        value = body.get(name)
        if value is None:
            value = ""
        if not isinstance(value, str):
            errors.append({"field": name, "message": "must be a string"})
            return ""
        if required and not value.strip():
            errors.append({"field": name, "message": "is required"})
        elif len(value) > limit:
            errors.append({"field": name, "message": f"must be at most {limit} characters"})
        return value.strip()

    tool_name = text("tool_name", True, 256)
    agent_id = text("agent_id", True, 256)
    session_id = text("session_id", False, 256)
    tool_args = body.get("tool_args")
    if not isinstance(tool_args, dict):
        errors.append({"field": "tool_args", "message": "must be an object"})
        tool_args = {}
    context = body.get("context")
    hint = ""
    if context is not None:
        if not isinstance(context, dict):
            errors.append({"field": "context", "message": "must be an object"})
        else:
            raw_hint = context.get("policy_id", "")
            if raw_hint is not None and not isinstance(raw_hint, str):
                errors.append({"field": "context.policy_id", "message": "must be a string"})
            else:
                hint = (raw_hint or "").strip()[:128]
    if errors:
        raise InvalidInput(f"{errors[0]['field']} {errors[0]['message']}", errors=errors)
    check_json_numbers(tool_args, "tool_args")
    metadata = {
        name: body[name]
        for name in CLIENT_METADATA_FIELDS
        if name in body and body[name] is not None
    }
    check_json_numbers(metadata, "metadata")
    return NewRequest(tool_name, tool_args, agent_id, session_id, hint, metadata)


def _new_row(client_id: str, new: NewRequest) -> ClearanceRequest:
    now = utcnow()
    return ClearanceRequest(
        request_id=new_id("req"),
        client_id=client_id,
        agent_id=new.agent_id,
        session_id=new.session_id,
        tool_name=new.tool_name,
        tool_args=new.tool_args,
        tool_args_hash=intent_hash(new.tool_args),
        policy_hint=new.policy_hint,
        action_metadata=new.metadata,
        status=PROCESSING,
        approved=False,
        confidence=0.0,
        threshold=settings.REVIEW_DEFAULTS["minimum_confidence_score"],
        reason="",
        reason_code="",
        citations=[],
        evidence_chunks=[],
        judge_verdict={},
        reviewer_email="",
        review_reason="",
        reviewer_verified=False,
        policy_id="",
        policy_version_id="",
        policy_content_hash="",
        attempts=0,
        created_at=now,
        updated_at=now,
    )


def _citation(citation: Any) -> dict[str, Any]:
    return {
        "policy_id": citation.policy_id,
        "policy_version_id": citation.policy_version_id,
        "chunk_id": citation.chunk_id,
        "text": citation.text,
        "score": float(citation.score),
    }


def _verdict_summary(verdict: Verdict) -> dict[str, Any]:
    return {
        "decision": verdict.decision,
        "confidence": float(verdict.confidence),
        "reason_code": verdict.reason_code,
        "reason": verdict.reason,
        "layer": verdict.layer,
        "details": verdict.details,
    }
