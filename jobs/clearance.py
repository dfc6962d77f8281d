"""Clearance jobs: judging a request, and recovering requests a dead worker left behind."""

from __future__ import annotations

import logging

from jobs.runtime import in_app_context

log = logging.getLogger(__name__)

# Services are imported inside the jobs: the cron process imports this module only to name
# the functions, and must stay small.


@in_app_context
def judge_request(request_id: str) -> str:
    """Ask the judge about one request and apply its verdict through the state machine."""
    from rq import get_current_job

    from webapp.extensions import db
    from webapp.judge.types import ClearanceQuery
    from webapp.models import PROCESSING, ClearanceRequest
    from webapp.services import clearance, judging

    request = db.session.get(ClearanceRequest, request_id)
    if request is None or request.status != PROCESSING:
        return "skipped"
    query = ClearanceQuery(
        tool_name=request.tool_name,
        tool_args=request.tool_args,
        agent_id=request.agent_id,
        session_id=request.session_id,
        policy_hint=request.policy_hint,
    )
    client_id = request.client_id
    db.session.rollback()  # do not hold a transaction open across the judge call
    try:
        verdict = judging.judge(client_id, query)
    except Exception as error:  # noqa: BLE001 - any judge failure is retried, then fails closed
        db.session.rollback()
        job = get_current_job()
        if job is None or not job.retries_left:
            log.warning("judge failed for %s after retries: %s", request_id, error)
            clearance.fail_judgement(request_id, _describe(error, judging.JudgeUnavailable))
            return "judge_unavailable"
        log.info("judge failed for %s, will retry: %s", request_id, error)
        raise
    outcome = clearance.apply_verdict(request_id, verdict)
    return outcome.status if outcome else "missing"


@in_app_context
def reap_stuck_requests() -> int:
    """Periodic: re-queue requests stuck in processing (worker killed mid-job); deny poison."""
    from webapp.services import reaper

    return reaper.reap_stuck()


@in_app_context
def expire_pending_reviews() -> int:
    """Periodic: deny reviews nobody decided within VAULT_REVIEW_TTL_SECONDS."""
    from webapp.services import clearance

    return clearance.expire_reviews()


def _describe(error: Exception, expected: type[Exception]) -> str:
    if isinstance(error, expected):
        return str(error)
    return type(error).__name__
