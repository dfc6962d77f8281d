"""Webhook jobs: one RQ job per delivery of a signed event, retried with backoff by RQ."""

from __future__ import annotations

from jobs.runtime import in_app_context


class WebhookAttemptFailed(RuntimeError):
    """Raised so that RQ schedules the next attempt; the delivery row already says why."""


@in_app_context
def deliver_webhook(delivery_id: str) -> str:
    """Make one attempt at a delivery; fail the job (so RQ retries) while retries are left."""
    from rq import get_current_job

    from webapp.services import webhooks  # imported here: the cron process stays small

    job = get_current_job()
    final = job is None or not job.retries_left
    outcome = webhooks.attempt_delivery(delivery_id, final_attempt=final)
    if outcome == "retry":
        raise WebhookAttemptFailed(f"webhook delivery {delivery_id} failed; RQ will retry it")
    return outcome
