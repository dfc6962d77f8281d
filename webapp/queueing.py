"""Every enqueue of the project, in one module below the services.

Services call these functions and never import ``jobs``: a job is named by its dotted path, so
enqueueing does not load the job modules (nor the worker's imports) into the web process, and
each call states every RQ option it relies on (timeout, result and failure TTL, retries, job id,
``meta`` with the tenant). Callers commit the rows a job needs before they enqueue it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from redis import Redis
from rq import Queue, Retry, Worker

from webapp.runtime import vault

CLEARANCE = "clearance"  # slow judge calls (remote judge, language model)
INGEST = "ingest"  # extraction, chunking, embedding
NOTIFY = "notify"  # email and chat webhooks
LEDGER = "ledger"  # sealing and anchoring
DEFAULT = "default"

ALL = (CLEARANCE, INGEST, NOTIFY, LEDGER, DEFAULT)


def queue(name: str, connection: Redis | None = None) -> Queue:
    """The named queue on the app's Redis (or on ``connection``)."""
    return Queue(name, connection=connection if connection is not None else vault().redis)


def all_queues(connection: Redis) -> list[Queue]:
    return [Queue(name, connection=connection) for name in ALL]


def live_workers(name: str, within_seconds: int, now: datetime | None = None) -> int:
    """Workers on queue ``name`` seen within ``within_seconds``: a heartbeat that recent, or
    busy with a job (RQ keeps a busy worker's record only while the job may still run)."""
    now = now or datetime.now(UTC)
    seen = 0
    for worker in Worker.all(queue=queue(name)):
        beat = worker.last_heartbeat
        if beat is not None and beat.tzinfo is None:
            beat = beat.replace(tzinfo=UTC)
        if worker.get_state() == "busy" or (
            beat is not None and now - beat <= timedelta(seconds=within_seconds)
        ):
            seen += 1
    return seen


def waiting(name: str) -> int:
    """Jobs waiting on a queue (raises redis.RedisError when Redis is down)."""
    return queue(name).count


def judge_job_id(request_id: str, attempt: int) -> str:
    """The RQ job id of a request's judgement, deterministic per attempt (the reaper reads it)."""
    return f"judge-{request_id}-{attempt}"


def judge_request(request_id: str, client_id: str, attempt: int = 0) -> None:
    """Queue the judgement of a ``processing`` request; the id is deterministic per attempt."""
    config = vault().config
    base = config.judge_retry_base_seconds
    queue(CLEARANCE).enqueue(
        "jobs.clearance.judge_request",
        request_id,
        job_id=judge_job_id(request_id, attempt),
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


def index_policy_version(job_id: str, client_id: str) -> None:
    """Queue the indexing of an uploaded policy version (its JobRun row is ``job_id``)."""
    queue(INGEST).enqueue(
        "jobs.ingest.index_policy_version",
        job_id,
        job_id=job_id,
        job_timeout=600,
        result_ttl=3600,
        failure_ttl=86400,
        retry=None,
        meta={"client_id": client_id},
    )


def reindex_embeddings() -> None:
    """Queue a pass that embeds chunks with no (or another model's) vector."""
    queue(INGEST).enqueue(
        "jobs.ingest.reindex_embeddings",
        job_timeout=600,
        result_ttl=60,
        failure_ttl=86400,
        retry=None,
        meta={},
    )


def deliver_notification(
    delivery_id: str, client_id: str, channel: str, intervals: list[int]
) -> None:
    """Queue one notification delivery; RQ retries it after each of ``intervals`` seconds."""
    queue(NOTIFY).enqueue(
        "jobs.notify.deliver_notification",
        delivery_id,
        job_id=f"notify-{delivery_id}",
        job_timeout=120,
        result_ttl=3600,
        failure_ttl=7 * 86400,
        retry=Retry(max=len(intervals), interval=intervals) if intervals else None,
        meta={"client_id": client_id, "channel": channel},
    )


def deliver_webhook(
    delivery_id: str, client_id: str, webhook_id: str, intervals: list[int]
) -> None:
    """Queue one signed webhook delivery (CONTRACT §14); RQ retries it after each interval."""
    queue(NOTIFY).enqueue(
        "jobs.webhooks.deliver_webhook",
        delivery_id,
        job_id=f"webhook-{delivery_id}",
        job_timeout=120,
        result_ttl=3600,
        failure_ttl=7 * 86400,
        retry=Retry(max=len(intervals), interval=intervals) if intervals else None,
        meta={"client_id": client_id, "webhook_id": webhook_id},
    )


def export_checkpoints(client_id: str) -> None:
    """Queue the export of a tenant's new checkpoints; one at a time per tenant.

    Raises rq.exceptions.DuplicateJobError when one is already queued or running.
    """
    queue(LEDGER).enqueue(
        "jobs.ledger.export_tenant",
        client_id,
        job_id=f"ledger-export-{client_id}",
        unique=True,
        job_timeout=600,
        result_ttl=0,
        failure_ttl=86400,
        retry=None,
        meta={"client_id": client_id},
    )


def report_job_id(report_id: str, attempt: int = 0) -> str:
    """The RQ job id of a report's build: one per attempt (the reaper reads it)."""
    return f"report-{report_id}" if attempt == 0 else f"report-{report_id}-{attempt}"


def build_report(report_id: str, client_id: str, attempt: int = 0) -> None:
    """Queue the build of a ``queued`` report (its row is committed first); one job per attempt."""
    queue(DEFAULT).enqueue(
        "jobs.reports.build_report",
        report_id,
        job_id=report_job_id(report_id, attempt),
        job_timeout=1800,
        result_ttl=3600,
        failure_ttl=7 * 86400,
        retry=None,
        meta={"client_id": client_id, "kind": "report"},
    )
