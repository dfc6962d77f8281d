"""Recovering requests left in ``processing``: lost by a dead worker, or poison.

The reaper (a periodic job) looks at each stuck request in its own transaction, so one request
that cannot be handled never stops the others:

- a request whose judge job was lost is queued again, up to ``MAX_ATTEMPTS`` times, then
  denied with ``judge_unavailable`` through the ordinary state machine;
- a request whose terminal transition itself raises (content the ledger encoder or the JSON
  decoder cannot handle: a *poison* request) has each failure counted in
  ``transition_failures``; at ``MAX_TRANSITION_FAILURES`` it is denied with
  ``judge_unavailable`` by ``deny_unreadable``, which reads none of the request's content (only
  its id, tenant and two short strings) and so cannot raise on it. Its ledger event says the
  arguments were withheld and keeps their hash, so the decision is still on the ledger.

That path always denies, whatever the tenant's ``judge_failure_mode``: a request nobody can
read cannot be shown to a reviewer either.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import or_, select, update

from webapp import queueing
from webapp.extensions import db
from webapp.models import DENIED, PROCESSING, ClearanceRequest, utcnow
from webapp.runtime import vault
from webapp.services import clearance
from webapp.services.ledger import EventContent, append_event

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3  # re-queues of a lost request before it is denied
MAX_TRANSITION_FAILURES = 3  # failed terminal transitions before the content-free denial
BATCH = 500
UNREADABLE_REASON = (
    "the policy judge could not decide this request: its decision failed repeatedly "
    "(judge_unavailable); the request is denied"
)


def reap_stuck(now: datetime | None = None) -> int:
    """Handle every stuck request, each in its own transaction; returns how many were handled."""
    now = now or utcnow()
    cutoff = now - timedelta(seconds=vault().config.clearance_reap_seconds)
    # Only ids: loading a poison row's content could raise before any request is handled.
    ids = list(
        db.session.scalars(
            select(ClearanceRequest.request_id)
            .where(
                ClearanceRequest.status == PROCESSING,
                # A request whose terminal transition failed is not waiting on a worker:
                # try it again on every run rather than after another full cutoff.
                or_(ClearanceRequest.updated_at < cutoff, ClearanceRequest.transition_failures > 0),
            )
            .order_by(ClearanceRequest.updated_at)
            .limit(BATCH)
        )
    )
    db.session.rollback()
    handled = 0
    for request_id in ids:
        try:
            handled += _reap_one(request_id)
        except Exception:  # noqa: BLE001 - one request must never stop the others
            db.session.rollback()
            log.exception("terminal transition of %s failed", request_id)
            try:
                handled += _count_failure(request_id)
            except Exception:  # noqa: BLE001 - the database itself is failing; next run
                db.session.rollback()
                log.exception("could not record the failure of %s", request_id)
    return handled


def _reap_one(request_id: str) -> int:
    state = db.session.execute(
        select(
            ClearanceRequest.status,
            ClearanceRequest.updated_at,
            ClearanceRequest.attempts,
            ClearanceRequest.transition_failures,
            ClearanceRequest.client_id,
        ).where(ClearanceRequest.request_id == request_id)
    ).first()
    if state is None or state.status != PROCESSING:
        db.session.rollback()
        return 0
    if state.transition_failures >= MAX_TRANSITION_FAILURES:
        return int(deny_unreadable(request_id))
    claimed = db.session.execute(
        update(ClearanceRequest)
        .where(
            ClearanceRequest.request_id == request_id,
            ClearanceRequest.status == PROCESSING,
            ClearanceRequest.updated_at == state.updated_at,
        )
        .values(attempts=ClearanceRequest.attempts + 1, updated_at=utcnow())
        .execution_options(synchronize_session=False)
    ).rowcount
    db.session.commit()
    if not claimed:
        return 0  # another reaper run (or the worker) moved it first
    attempts = state.attempts + 1
    if attempts > MAX_ATTEMPTS or state.transition_failures:
        # Lost repeatedly, or its decision already failed once: queueing it again would only
        # repeat that. Deny it through the state machine; a raise is counted by the caller.
        clearance.fail_judgement(request_id, "the request was lost by workers repeatedly")
        db.session.expire_all()
    else:
        log.warning("re-queueing request %s stuck in processing", request_id)
        queueing.judge_request(request_id, state.client_id, attempts)
    return 1


def _count_failure(request_id: str) -> int:
    """Record one failed terminal transition; deny safely once the limit is reached."""
    db.session.execute(
        update(ClearanceRequest)
        .where(ClearanceRequest.request_id == request_id, ClearanceRequest.status == PROCESSING)
        .values(transition_failures=ClearanceRequest.transition_failures + 1)
        .execution_options(synchronize_session=False)
    )
    db.session.commit()
    failures = db.session.scalar(
        select(ClearanceRequest.transition_failures).where(
            ClearanceRequest.request_id == request_id
        )
    )
    db.session.rollback()
    if failures is not None and failures >= MAX_TRANSITION_FAILURES:
        return int(deny_unreadable(request_id))
    return 0


def deny_unreadable(request_id: str) -> bool:
    """Deny a processing request with ``judge_unavailable`` without reading its content.

    Only scalar columns are read (never ``tool_args``, citations or metadata), the strings
    written to the ledger are made encodable, and the event's arguments are ``{}`` with the
    stored ``tool_args_hash`` kept in its metadata. Returns False when it was not processing.
    """
    row = db.session.execute(
        select(
            ClearanceRequest.client_id,
            ClearanceRequest.agent_id,
            ClearanceRequest.tool_name,
            ClearanceRequest.session_id,
            ClearanceRequest.tool_args_hash,
            ClearanceRequest.threshold,
            ClearanceRequest.transition_failures,
        ).where(ClearanceRequest.request_id == request_id, ClearanceRequest.status == PROCESSING)
    ).first()
    if row is None:
        db.session.rollback()
        return False
    now = utcnow()
    won = db.session.execute(
        update(ClearanceRequest)
        .where(ClearanceRequest.request_id == request_id, ClearanceRequest.status == PROCESSING)
        .values(
            status=DENIED,
            approved=False,
            reason=UNREADABLE_REASON,
            reason_code="judge_unavailable",
            confidence=0.0,
            decided_by="system",
            token=None,
            token_jti=None,
            updated_at=now,
            decided_at=now,
        )
        .execution_options(synchronize_session=False)
    ).rowcount
    if not won:
        db.session.rollback()
        return False
    append_event(
        row.client_id,
        EventContent(
            action_category="clearance_decision",
            request_id=request_id,
            agent_id=_encodable(row.agent_id),
            tool_name=_encodable(row.tool_name),
            tool_args={},
            reason=UNREADABLE_REASON,
            citations=[],
            evidence_chunks=[],
            action_metadata={
                "session_id": _encodable(row.session_id),
                "reason_code": "judge_unavailable",
                "decided_by": "system",
                "threshold": float(row.threshold),
                "tool_args_withheld": True,
                "tool_args_hash": _encodable(row.tool_args_hash),
                "transition_failures": int(row.transition_failures),
            },
            confidence=0.0,
            confidence_bucket="none",
            decision_status="denied",
            approved=False,
        ),
    )
    db.session.commit()
    log.warning("request %s denied without reading its content (poison)", request_id)
    return True


def _encodable(text: str | None, limit: int = 256) -> str:
    """Any stored string made safe to encode: no surrogates, no NUL, bounded."""
    value = (text or "").encode("utf-8", "backslashreplace").decode("utf-8")
    return value.replace("\x00", "\\x00")[:limit]
