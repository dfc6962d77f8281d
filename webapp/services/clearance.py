"""Clearance requests and the one state machine for every transition of spec §3.

    none ──request, decided at once (fast lane)──▶ approved | denied | pending_review
    none ──request (agent locked down)──▶ denied
    none ──request needing a slow judgement──▶ processing
    processing ──verdict──▶ approved | denied | pending_review
    processing ──judge failed after retries──▶ denied | pending_review (judge_unavailable)
    pending_review ──reviewer──▶ approved | denied
    pending_review ──expiry──▶ denied (review_expired)

A request whose verdict needs no slow call (the built-in rules, no remote judge, no language
model to consult) is inserted already in its state, with its ledger event, receipt and token,
in one transaction. Every later transition is a guarded UPDATE (``… WHERE status =
<expected>``), so of two racing transitions exactly one wins. A terminal transition writes its
ledger event (and mints the token, for approvals) in the same transaction as the status change.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import redis
from sqlalchemy import insert, select, update
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value

from webapp import queueing
from webapp.errors import Conflict, Forbidden, NotFound, RateLimited, Unavailable
from webapp.extensions import db
from webapp.judge.types import (
    APPROVED_BY_POLICY,
    BELOW_CONFIDENCE_THRESHOLD,
    JUDGE_UNAVAILABLE,
    NO_MATCHING_POLICY,
    REVIEW_REQUIRED_BY_RULE,
    RULE_VIOLATED,
    ClearanceQuery,
    Verdict,
)
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
from webapp.services import agents, drift, idempotency, judging, settings, stored, tokens
from webapp.services.canonical import body_fingerprint, intent_hash
from webapp.services.ledger import EventContent, append_event

log = logging.getLogger(__name__)

# Reason codes of CONTRACT §3 that only the state machine gives (the judge's six come from
# webapp.judge.types); every comparison in this module uses these names, never literals.
AGENT_LOCKED_DOWN = "agent_locked_down"
APPROVED_BY_REVIEWER = "approved_by_reviewer"
REVIEWER_DENIED = "reviewer_denied"
REVIEW_EXPIRED = "review_expired"
REASON_CODES = (
    RULE_VIOLATED,
    NO_MATCHING_POLICY,
    AGENT_LOCKED_DOWN,
    REVIEWER_DENIED,
    BELOW_CONFIDENCE_THRESHOLD,
    REVIEW_REQUIRED_BY_RULE,
    REVIEW_EXPIRED,
    JUDGE_UNAVAILABLE,
    APPROVED_BY_POLICY,
    APPROVED_BY_REVIEWER,
)

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
IDEMPOTENCY_SCOPE = "request-clearance"

# The allowed transitions; anything else is a bug and raises IllegalTransition. ``None`` is
# spec §3's "none": a request that does not exist yet.
TRANSITIONS: dict[str | None, set[str]] = {
    None: {PROCESSING, APPROVED, DENIED, PENDING_REVIEW},
    PROCESSING: {APPROVED, DENIED, PENDING_REVIEW},
    PENDING_REVIEW: {APPROVED, DENIED},
    APPROVED: set(),
    DENIED: set(),
}


class IllegalTransition(RuntimeError):
    """A transition the state machine does not allow."""


@dataclass(frozen=True)
class NewRequest:
    """A validated clearance request (spec §2.1), as the API edge hands it over."""

    tool_name: str
    tool_args: dict[str, Any]
    agent_id: str
    session_id: str
    policy_hint: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class Resolution:
    """What a decision sets on the request (the judge's own answer is a ``Verdict``)."""

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
) -> ClearanceRequest:
    """Decide the request at once when no slow call is needed, else store and queue it.

    A locked-down agent is denied without evaluating any policy. A request replayed with its
    Idempotency-Key answers with the first one (its current state). Only the slow lane needs
    the queue: with Redis down it answers 503 and nothing stays written.
    """
    request, lane = idempotency.in_transaction(
        client_id,
        IDEMPOTENCY_SCOPE,
        idempotency_key,
        _fingerprint(new) if idempotency_key else "",
        lambda: _stage(client_id, new),
        lambda record: (get_request(client_id, record.resource_id), _REPLAYED),
        look_first=False,  # a replay is rare: the unique key finds it at the commit
    )
    if lane == _DECIDED:
        _after_commit(request, wake=False)
    elif lane == _QUEUED:
        _queue_judgement(request)
    return request


_DECIDED, _QUEUED, _REPLAYED = "decided", "queued", "replayed"


def _stage(client_id: str, new: NewRequest) -> tuple[str, tuple[ClearanceRequest, str]]:
    """Add the new request to the session, decided or ``processing``; no commit."""
    agent = agents.standing(client_id, new.agent_id)
    request = _new_row(client_id, new, settings.review_settings(client_id))
    if agent.locked_down:
        resolution: Resolution | None = Resolution(
            DENIED,
            "agent is locked down; policy was not evaluated",
            AGENT_LOCKED_DOWN,
            0.0,
            "system",
        )
    else:
        verdict = judging.judge_at_once(client_id, _query(new))
        if verdict is None:
            _check_queue_room()
            resolution = None
        else:
            resolution = _resolve(request, verdict, agent)
    _record_new(request, resolution)
    agents.record_activity(client_id, new.agent_id)
    return request.request_id, (request, _QUEUED if resolution is None else _DECIDED)


def wait_for_decision(request: ClearanceRequest, wait_ms: int) -> ClearanceRequest:
    """Wait up to ``wait_ms`` for the judge job of a ``processing`` request; the fresh row."""
    if request.status != PROCESSING:
        return request
    # In slices shorter than the Redis client's socket timeout, which would end a long BLPOP.
    deadline = time.monotonic() + wait_ms / 1000
    while (left := deadline - time.monotonic()) > 0:
        try:
            if vault().redis.blpop(
                [DONE_KEY.format(request.request_id)], timeout=max(0.01, min(left, 4))
            ):
                break
        except redis.RedisError:
            break  # the client will poll
    db.session.expire(request)
    db.session.refresh(request)
    return request


def get_request(client_id: str, request_id: str) -> ClearanceRequest:
    """The request, its content columns deferred: a status read never decodes ``tool_args``."""
    row = db.session.get(ClearanceRequest, request_id, options=stored.deferred_content())
    if row is None or row.client_id != client_id:
        raise NotFound("no such clearance request")
    return row


def _check_queue_room() -> None:
    """The slow lane refuses work it cannot queue: 503 without Redis, 429 past the watermark."""
    try:
        waiting = queueing.waiting(queueing.CLEARANCE)
    except redis.RedisError:
        raise Unavailable(
            "queue unavailable; retry shortly", headers={"Retry-After": "2"}
        ) from None
    if waiting > vault().config.clearance_queue_size:
        raise RateLimited("clearance queue is full; retry shortly", headers={"Retry-After": "2"})


def _queue_judgement(request: ClearanceRequest) -> None:
    """Queue the judge job of a committed ``processing`` request, or take the request back."""
    try:
        queueing.judge_request(request.request_id, request.client_id)
    except redis.RedisError:
        # Compensate: the row must not outlive a request that was never queued.
        db.session.execute(
            IdempotencyRecord.__table__.delete().where(
                IdempotencyRecord.client_id == request.client_id,
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


def _fingerprint(new: NewRequest) -> str:
    return body_fingerprint(
        {
            "tool_name": new.tool_name,
            "tool_args": new.tool_args,
            "agent_id": new.agent_id,
            "session_id": new.session_id,
            "policy_hint": new.policy_hint,
            "metadata": new.metadata,
        }
    )


def _query(new: NewRequest) -> ClearanceQuery:
    return ClearanceQuery(
        tool_name=new.tool_name,
        tool_args=new.tool_args,
        agent_id=new.agent_id,
        session_id=new.session_id,
        policy_hint=new.policy_hint,
    )


# --- the decision --------------------------------------------------------------------------------


def _resolve(request: ClearanceRequest, verdict: Verdict, agent: agents.Standing) -> Resolution:
    """Turn the judge's verdict into the request's next state, for both lanes.

    This is the one place where a decision is made from a verdict, inside the transaction that
    records it: hooks that adjust it (drift's "force review at medium risk", given ``agent``)
    or count it go below, and may only make it stricter.
    """
    resolution = _verdict_resolution(request, verdict)
    if resolution.status != DENIED and resolution.reason_code != JUDGE_UNAVAILABLE:
        standing = agent or agents.standing(request.client_id, request.agent_id)
        if why := drift.forced_review_reason(request.client_id, standing):
            resolution = Resolution(
                PENDING_REVIEW, why, REVIEW_REQUIRED_BY_RULE, resolution.confidence, "system"
            )
    return resolution


def _verdict_resolution(request: ClearanceRequest, verdict: Verdict) -> Resolution:
    if verdict.reason_code == JUDGE_UNAVAILABLE:
        # The judge answered that it could not judge: the tenant's failure mode decides.
        return _judge_failed(request.client_id, verdict.reason)
    request.judge_verdict = _verdict_summary(verdict)
    request.policy_id = verdict.policy_id
    request.policy_version_id = verdict.policy_version_id
    request.policy_content_hash = verdict.policy_content_hash
    request.citations = [_citation(c) for c in verdict.citations]
    request.evidence_chunks = [dict(e) for e in verdict.evidence_chunks]
    confidence = max(0.0, min(1.0, float(verdict.confidence)))
    if verdict.decision == "allow" and verdict.reason_code == APPROVED_BY_POLICY:
        if confidence >= request.threshold:
            return Resolution(
                APPROVED, verdict.reason, APPROVED_BY_POLICY, confidence, verdict.layer
            )
        return Resolution(
            PENDING_REVIEW,
            f"confidence {confidence:.2f} is below the threshold {request.threshold:.2f}: {verdict.reason}",
            BELOW_CONFIDENCE_THRESHOLD,
            confidence,
            verdict.layer,
        )
    if verdict.decision == "review":
        code = (
            verdict.reason_code
            if verdict.reason_code in (REVIEW_REQUIRED_BY_RULE, BELOW_CONFIDENCE_THRESHOLD)
            else REVIEW_REQUIRED_BY_RULE
        )
        return Resolution(PENDING_REVIEW, verdict.reason, code, confidence, verdict.layer)
    # deny, or an allow without the approval code: never approve on an unclear verdict.
    code = (
        verdict.reason_code
        if verdict.reason_code in (RULE_VIOLATED, NO_MATCHING_POLICY)
        else RULE_VIOLATED
    )
    return Resolution(DENIED, verdict.reason, code, confidence, verdict.layer)


def _judge_failed(client_id: str, detail: str) -> Resolution:
    """The judge could not judge: deny, or send to review if the tenant chose that."""
    mode = settings.review_settings(client_id)["judge_failure_mode"]
    status = PENDING_REVIEW if mode == "review" else DENIED
    reason = f"the policy judge is unavailable ({detail}); " + (
        "a reviewer must decide" if status == PENDING_REVIEW else "the request is denied"
    )
    return Resolution(status, reason, JUDGE_UNAVAILABLE, 0.0, "system")


# --- transitions -------------------------------------------------------------------------------


def apply_verdict(request_id: str, verdict: Verdict) -> ClearanceRequest | None:
    """Turn the judge's verdict into the request's next state (the judge job calls this)."""
    request = db.session.get(ClearanceRequest, request_id)
    if request is None or request.status != PROCESSING:
        return request
    agent = agents.standing(request.client_id, request.agent_id)
    if _transition(request, _resolve(request, verdict, agent)):
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
    if _transition(request, _judge_failed(request.client_id, detail)):
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
    """A reviewer's decision on a pending request; 409 when it is no longer pending. Commits."""
    request = stage_review_decision(
        client_id,
        request_id,
        approved=approved,
        reviewer_email=reviewer_email,
        review_reason=review_reason,
        reviewer_verified=reviewer_verified,
    )
    db.session.commit()
    _after_commit(request)
    return request


def after_transition(request: ClearanceRequest) -> None:
    """After the commit of a staged transition: wake a waiting handler, run the hooks."""
    _after_commit(request)


def stage_review_decision(
    client_id: str,
    request_id: str,
    *,
    approved: bool,
    reviewer_email: str,
    review_reason: str,
    reviewer_verified: bool,
) -> ClearanceRequest:
    """``decide_review`` without its commit and hooks (the caller commits, then calls
    ``after_transition``)."""
    request = get_request(client_id, request_id)
    if reviewer_email and reviewer_email.strip().lower() == request.agent_id.strip().lower():
        raise Forbidden("a reviewer cannot decide a request made under their own identity")
    if request.status != PENDING_REVIEW:
        raise Conflict(f"request is no longer pending review (it is {request.status})")
    request.reviewer_email = reviewer_email
    request.review_reason = review_reason
    request.reviewer_verified = reviewer_verified
    resolution = (
        Resolution(
            APPROVED,
            review_reason or "approved by a reviewer",
            APPROVED_BY_REVIEWER,
            request.confidence,
            "reviewer",
        )
        if approved
        else Resolution(
            DENIED,
            review_reason or "denied by a reviewer",
            REVIEWER_DENIED,
            request.confidence,
            "reviewer",
        )
    )
    if not _transition(request, resolution, category="review_decision"):
        db.session.rollback()
        raise Conflict("another reviewer decided this request first")
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
        resolution = Resolution(
            DENIED,
            "no reviewer decided before the review expired",
            REVIEW_EXPIRED,
            request.confidence,
            "system",
        )
        if _transition(request, resolution, category="review_decision"):
            db.session.commit()
            _after_commit(request)
            expired += 1
        else:
            db.session.rollback()
    return expired


def reap_stuck(now=None) -> int:  # noqa: ANN001
    """Recover requests stuck in ``processing``; see services.reaper (issue 16)."""
    from webapp.services import reaper

    return reaper.reap_stuck(now)


def _record_new(request: ClearanceRequest, resolution: Resolution | None) -> None:
    """none → state: add the new row already in its state (``None``: processing), with its
    ledger event and token when terminal. No commit."""
    status = resolution.status if resolution else PROCESSING
    if status not in TRANSITIONS[None]:
        raise IllegalTransition(f"none → {status} is not a transition of the state machine")
    if resolution is not None:
        for name, value in _decision_values(request, resolution).items():
            setattr(request, name, value)
    _insert_new(request)
    if status in (APPROVED, DENIED):
        append_event(request.client_id, _decision_event(request, "clearance_decision"))


def _insert_new(request: ClearanceRequest) -> None:
    """INSERT the new row as one statement, then put the object in the session as persistent.

    The unit of work (state bookkeeping, the flush's ordering) cost more than the INSERT itself
    on the approve path. Every column is set on the object first, from its default when the
    service left it out, so nothing is read back and nothing is written twice.
    """
    table = ClearanceRequest.__table__
    state = request.__dict__
    values: dict[str, Any] = {}
    for column in table.columns:
        if column.key in state:
            values[column.key] = state[column.key]
            continue
        default = column.default
        if default is None and column.server_default is not None:
            continue  # the database fills it in; the attribute loads when first read
        if default is None:
            value = None
        elif default.is_callable:
            value = default.arg(None)  # SQLAlchemy's wrapper of the zero-argument callable
        else:
            value = default.arg
        setattr(request, column.key, value)
        values[column.key] = value
    db.session.execute(insert(table), values)
    make_transient_to_detached(request)  # history reset: the row is written
    db.session.add(request)


def approve_by_rules(client_id: str, new: NewRequest, verdict: Verdict) -> ClearanceRequest:
    """The decision cache (CONTRACT §5a): stage a new request decided at once from a rules-only
    verdict, with no judge job. It goes through the same ``_resolve`` as every decision, and
    anything but an approval by policy raises Conflict with nothing written. No commit: the
    caller commits it with its Idempotency-Key, then calls ``after_decision``."""
    request = _new_row(client_id, new, settings.review_settings(client_id))
    resolution = _resolve(request, verdict, agents.standing(client_id, new.agent_id))
    if resolution.status != APPROVED or resolution.reason_code != APPROVED_BY_POLICY:
        db.session.rollback()
        raise Conflict(f"the rules would no longer approve this call: {resolution.reason}")
    _record_new(request, resolution)
    return request


def after_decision(request: ClearanceRequest) -> None:
    """After the commit of a request decided at once: run the transition hooks."""
    _after_commit(request, wake=False)


def _transition(
    request: ClearanceRequest, resolution: Resolution, category: str = "clearance_decision"
) -> bool:
    """Move the request with a guarded UPDATE; write the event and token. No commit."""
    before = request.status
    if resolution.status not in TRANSITIONS.get(before, set()):
        raise IllegalTransition(
            f"{before} → {resolution.status} is not a transition of the state machine"
        )
    # The guarded UPDATE writes every field the caller set on the request; flushing them first
    # (a query inside `mint` would) would write the row twice, the first time unguarded.
    with db.session.no_autoflush:
        values = _decision_values(request, resolution)
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
    if values["decided_at"] is not None:
        append_event(request.client_id, _decision_event(request, category))
    return True


def _decision_values(request: ClearanceRequest, resolution: Resolution) -> dict[str, Any]:
    """The columns a resolution sets, with a freshly minted token for an approval."""
    now = utcnow()
    terminal = resolution.status in (APPROVED, DENIED)
    values: dict[str, Any] = {
        "status": resolution.status,
        "approved": resolution.status == APPROVED,
        "reason": resolution.reason,
        "reason_code": resolution.reason_code,
        "confidence": resolution.confidence,
        "decided_by": resolution.decided_by,
        "updated_at": now,
        "decided_at": now if terminal else None,
    }
    if resolution.status == PENDING_REVIEW:
        values["review_started_at"] = now
        # Kept after a reviewer's decision replaces `reason`; the quorum is fixed now (issue 15).
        values["judge_reason"] = resolution.reason
        values["required_approvals"] = settings.required_approvals_for(
            request.client_id, request.judge_verdict
        )
    if resolution.status == APPROVED:
        minted = tokens.mint(request)
        values["token"] = minted.token
        values["token_jti"] = minted.jti
    return values


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


def _after_commit(request: ClearanceRequest, *, wake: bool = True) -> None:
    """Wake a waiting HTTP handler, and run the registered hooks (reviewer notifications)."""
    if wake:
        _wake_waiting_handler(request)
    for hook in _hooks():
        try:
            hook(request)
        except Exception:  # noqa: BLE001 - a failed side effect never changes the decision
            log.exception("after-transition hook failed for %s", request.request_id)


def _wake_waiting_handler(request: ClearanceRequest) -> None:
    try:
        key = DONE_KEY.format(request.request_id)
        pipe = vault().redis.pipeline()
        pipe.rpush(key, request.status)
        pipe.expire(key, 60)
        pipe.execute()
    except redis.RedisError:
        log.warning("could not signal the decision of %s; the client will poll", request.request_id)


TransitionHook = Callable[[ClearanceRequest], Any]


def on_transition(app: Any, hook: TransitionHook) -> None:
    """Register, on ``app``, a side effect run after every committed transition.

    ``create_app`` registers them explicitly (never an import's side effect), so a worker app
    built without the web blueprints runs the same hooks.
    """
    hooks: list[TransitionHook] = app.extensions.setdefault("vault.transition_hooks", [])
    if hook not in hooks:
        hooks.append(hook)


def _hooks() -> list[TransitionHook]:
    from flask import current_app

    return current_app.extensions.get("vault.transition_hooks", [])


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
        "citations": stored.readable(request, "citations", []),
        "created_at": iso(request.created_at),
        "decided_at": iso(request.decided_at),
    }


def _new_row(client_id: str, new: NewRequest, review: dict[str, Any]) -> ClearanceRequest:
    """A request not yet in the session; ``_record_new`` sets its state."""
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
        threshold=review["minimum_confidence_score"],
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
