"""Recovering requests left in ``processing``: lost by a dead worker, crashed, or poison.

The reaper (a periodic job, every ``VAULT_CLEARANCE_REAP_INTERVAL_SECONDS``) looks at each
processing request in its own transaction, so one request that cannot be handled never stops
the others. It reads the state of the request's current judge job (its id is deterministic,
``queueing.judge_job_id``) to tell three cases apart:

- **crashed**: the job failed after its retries, or is still "started" past its own timeout
  plus ``CRASH_GRACE_SECONDS`` (its worker died with it: a worker killed mid-job, or content
  that kills the worker). This is acted on at once, without waiting for the reap cutoff: the
  request is queued again ``MAX_CRASH_REQUEUES`` time(s) (a worker killed by an operator is
  not the request's fault), then denied with ``judge_unavailable``;
- **lost**: no job (Redis emptied), or any job still unfinished ``VAULT_CLEARANCE_REAP_SECONDS``
  after the request's last update: queued again, up to ``MAX_ATTEMPTS`` times, then denied with
  ``judge_unavailable`` through the ordinary state machine;
- **poison**: the denial itself raises on the request's content (content the ledger encoder or
  the JSON decoder cannot handle). A content error (``CONTENT_ERRORS``) is denied at once by
  ``deny_unreadable``, which reads none of the request's content (only its id, tenant and two
  short strings) and so cannot raise on it; its ledger event says the arguments were withheld
  and keeps their hash. Any other failure (the database, say) is counted in
  ``transition_failures`` and retried on the next run, up to ``MAX_TRANSITION_FAILURES``.

With the defaults (cutoff 120 s, a run every 15 s, a 60 s judge job timeout) a request whose
job raises is denied within about a minute, and one whose job kills its worker within about
three (two crashes, each seen 75 s after the job started). That path always denies, whatever
the tenant's ``judge_failure_mode``: a request nobody can read cannot be shown to a reviewer.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from sqlalchemy import select, update
from sqlalchemy.exc import DataError

from webapp import queueing
from webapp.extensions import db
from webapp.models import DENIED, PROCESSING, ClearanceRequest, utcnow
from webapp.models.reports import REPORT_FAILED, REPORT_QUEUED, REPORT_RUNNING, Report
from webapp.runtime import vault
from webapp.services import clearance
from webapp.services.ledger import EventContent, append_event

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3  # re-queues of a lost request before it is denied
MAX_CRASH_REQUEUES = 1  # re-queues of a request whose job crashed before it is denied
MAX_TRANSITION_FAILURES = 3  # failed terminal transitions before the content-free denial
CRASH_GRACE_SECONDS = 15  # past its job timeout, a job still "started" has lost its worker
BATCH = 500
# What a request's own content raises while it is encoded or decoded (deterministic: retrying
# would only raise again), as opposed to a database or network failure.
CONTENT_ERRORS = (RecursionError, ValueError, TypeError, OverflowError, DataError)
UNREADABLE_REASON = (
    "the policy judge could not decide this request: its decision failed repeatedly "
    "(judge_unavailable); the request is denied"
)

RUNNING, CRASHED, LOST = "running", "crashed", "lost"


def reap_stuck(now: datetime | None = None) -> int:
    """Handle every stuck request, each in its own transaction; returns how many were handled."""
    now = now or utcnow()
    cutoff = now - timedelta(seconds=vault().config.clearance_reap_seconds)
    # Only ids: loading a poison row's content could raise before any request is handled.
    # Every processing request is looked at (a crashed job is acted on before the cutoff).
    ids = list(
        db.session.scalars(
            select(ClearanceRequest.request_id)
            .where(ClearanceRequest.status == PROCESSING)
            .order_by(ClearanceRequest.updated_at)
            .limit(BATCH)
        )
    )
    db.session.rollback()
    handled = 0
    for request_id in ids:
        try:
            handled += _reap_one(request_id, now, cutoff)
        except Exception:  # noqa: BLE001 - one request must never stop the others
            db.session.rollback()
            log.exception("terminal transition of %s failed", request_id)
            try:
                handled += _count_failure(request_id)
            except Exception:  # noqa: BLE001 - the database itself is failing; next run
                db.session.rollback()
                log.exception("could not record the failure of %s", request_id)
    return handled


def job_state(job_id: str, now: datetime) -> str:
    """``running``, ``crashed`` or ``lost``: what became of a job, seen at ``now``."""
    try:
        job = Job.fetch(job_id, connection=vault().redis)
    except NoSuchJobError:
        return LOST
    status = job.get_status(refresh=False)
    if status in (JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED):
        return CRASHED
    if status == JobStatus.FINISHED:
        return LOST  # it ran, yet the request is still processing: nothing will move it
    if status == JobStatus.STARTED and job.started_at is not None:
        started = (
            job.started_at.replace(tzinfo=UTC) if job.started_at.tzinfo is None else job.started_at
        )
        bound = (job.timeout or 0) + CRASH_GRACE_SECONDS
        if _aware(now) - started > timedelta(seconds=bound):
            return CRASHED
    return RUNNING


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _reap_one(request_id: str, now: datetime, cutoff: datetime) -> int:
    state = db.session.execute(
        select(
            ClearanceRequest.status,
            ClearanceRequest.updated_at,
            ClearanceRequest.attempts,
            ClearanceRequest.transition_failures,
            ClearanceRequest.client_id,
        ).where(ClearanceRequest.request_id == request_id)
    ).first()
    db.session.rollback()
    if state is None or state.status != PROCESSING:
        return 0
    if state.transition_failures >= MAX_TRANSITION_FAILURES:
        return int(deny_unreadable(request_id))
    if state.transition_failures:
        # Its denial already failed once (not on its content): try the denial again.
        return _deny(request_id, "its decision failed to be recorded")
    job = job_state(queueing.judge_job_id(request_id, state.attempts), now)
    if job == CRASHED:
        requeue = state.attempts < MAX_CRASH_REQUEUES
        detail = "the judgement of this request crashed its worker repeatedly"
    elif _aware(state.updated_at) < _aware(cutoff):
        requeue = state.attempts < MAX_ATTEMPTS
        detail = "the request was lost by workers repeatedly"
    else:
        return 0  # its job is queued or running, within its time
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
    if not requeue:
        return _deny(request_id, detail)
    log.warning("re-queueing request %s (its judge job was %s)", request_id, job)
    queueing.judge_request(request_id, state.client_id, state.attempts + 1)
    return 1


def _deny(request_id: str, detail: str) -> int:
    """Deny through the state machine; content that cannot be handled is denied without it."""
    try:
        clearance.fail_judgement(request_id, detail)
    except CONTENT_ERRORS as error:
        db.session.rollback()
        log.error("request %s cannot be decided on its content (%r)", request_id, error)
        return int(deny_unreadable(request_id))
    db.session.expire_all()
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


# --- reports ----------------------------------------------------------------------------------

MAX_REPORT_REQUEUES = 2  # builds queued again before the report is failed
REPORT_LOST_SECONDS = 120  # a report with no job this long after its last activity was lost
REPORT_LOST_REASON = (
    "the report build was lost {times} times (its job vanished from the queue, or its worker "
    "stopped); request the report again"
)


def reap_reports(now: datetime | None = None) -> int:
    """Queue again, or fail, every report left queued or running by a lost or crashed job.

    A report whose build job is gone (Redis emptied, say) ``REPORT_LOST_SECONDS`` after it was
    queued, started or re-queued, or whose job failed or outlived its timeout (its worker
    died), is queued again as a new job, up to ``MAX_REPORT_REQUEUES`` times; then it is
    ``failed`` with a reason. Each report in its own transaction; returns how many were moved.
    """
    now = now or utcnow()
    rows = db.session.execute(
        select(
            Report.report_id,
            Report.client_id,
            Report.status,
            Report.attempts,
            Report.created_at,
            Report.started_at,
            Report.requeued_at,
        )
        .where(Report.status.in_((REPORT_QUEUED, REPORT_RUNNING)))
        .order_by(Report.created_at)
        .limit(BATCH)
    ).all()
    db.session.rollback()
    handled = 0
    for row in rows:
        try:
            handled += _reap_report(row, now)
        except Exception:  # noqa: BLE001 - one report must never stop the others
            db.session.rollback()
            log.exception("could not recover report %s", row.report_id)
    return handled


def _reap_report(row: Any, now: datetime) -> int:
    state = job_state(queueing.report_job_id(row.report_id, row.attempts), now)
    if state == RUNNING:
        return 0
    last = max(_aware(t) for t in (row.created_at, row.started_at, row.requeued_at) if t)
    if state == LOST and _aware(now) - last < timedelta(seconds=REPORT_LOST_SECONDS):
        return 0  # just committed, its job about to be queued
    guard = (
        Report.report_id == row.report_id,
        Report.status == row.status,
        Report.attempts == row.attempts,
    )
    if row.attempts < MAX_REPORT_REQUEUES:
        values = {
            "status": REPORT_QUEUED,
            "stage": "queued",
            "progress": 0,
            "attempts": row.attempts + 1,
            "requeued_at": utcnow(),
            "started_at": None,
        }
    else:
        values = {
            "status": REPORT_FAILED,
            "stage": "failed",
            "error": REPORT_LOST_REASON.format(times=row.attempts + 1),
            "completed_at": utcnow(),
        }
    won = db.session.execute(
        update(Report).where(*guard).values(**values).execution_options(synchronize_session=False)
    ).rowcount
    db.session.commit()
    if not won:
        return 0  # the build (or another reaper run) moved it first
    if values["status"] == REPORT_FAILED:
        log.error("report %s failed: its build was lost %d times", row.report_id, row.attempts + 1)
    else:
        log.warning("re-queueing report %s (its build job was %s)", row.report_id, state)
        queueing.build_report(row.report_id, row.client_id, row.attempts + 1)
    return 1
