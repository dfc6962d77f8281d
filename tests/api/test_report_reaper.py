"""A report whose build job was lost (Redis emptied) is queued again by the reaper and built by a
real RQ worker process; lost too often, it is failed with a reason. Time is simulated through
the reaper's ``now``; nothing sleeps."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest

from tests.helpers import start_rq_worker


@pytest.fixture
def worker_env(workdir, database_url, redis_url):
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "VAULT_INSTANCE_PATH": str(workdir / "instance"),
        "LOG_FORMAT": "text",
    }


def request_report(client, tenant) -> str:  # noqa: ANN001
    created = client.post("/reports", json={"formats": ["json"]}, headers=tenant.headers)
    assert created.status_code == 202, created.get_data(as_text=True)
    return created.get_json()["report_id"]


def report(client, tenant, report_id: str) -> dict:  # noqa: ANN001
    return client.get(f"/reports/{report_id}", headers=tenant.headers).get_json()


def reap(app, seconds_later: float) -> int:  # noqa: ANN001
    from webapp.models import utcnow
    from webapp.services import reaper

    with app.app_context():
        return reaper.reap_reports(now=utcnow() + timedelta(seconds=seconds_later))


def test_a_lost_report_build_is_queued_again_and_built(
    app, client, tenant, redis_client, redis_url, worker_env
):
    from webapp.services import reaper

    report_id = request_report(client, tenant)
    redis_client.flushdb()  # Redis lost everything: the build job is gone, the row is queued
    assert report(client, tenant, report_id)["status"] == "queued"

    # Within the cutoff the job may simply not be queued yet: left alone.
    assert reap(app, reaper.REPORT_LOST_SECONDS - 5) == 0
    assert reap(app, reaper.REPORT_LOST_SECONDS + 1) == 1
    assert report(client, tenant, report_id)["status"] == "queued"
    assert reap(app, reaper.REPORT_LOST_SECONDS + 1) == 0  # its new job is there now

    worker = start_rq_worker(redis_url, worker_env, ("default",), burst=True)
    assert worker.wait(120) == 0
    built = report(client, tenant, report_id)
    assert built["status"] == "ready", built
    assert [a["format"] for a in built["artifacts"]] == ["json"]


def test_a_report_lost_too_often_is_failed_with_a_reason(app, client, tenant, redis_client, sql):
    from webapp.services import reaper

    report_id = request_report(client, tenant)
    for attempt in range(1, reaper.MAX_REPORT_REQUEUES + 1):
        redis_client.flushdb()
        assert reap(app, reaper.REPORT_LOST_SECONDS + 1) == 1
        row = sql("SELECT status, attempts FROM reports WHERE report_id = :r", r=report_id).first()
        assert tuple(row) == ("queued", attempt)
    redis_client.flushdb()
    assert reap(app, reaper.REPORT_LOST_SECONDS + 1) == 1
    failed = report(client, tenant, report_id)
    assert failed["status"] == "failed"
    assert failed["error"].startswith(
        f"the report build was lost {reaper.MAX_REPORT_REQUEUES + 1} times"
    )
    # Failed is final: nothing more happens to it.
    assert reap(app, reaper.REPORT_LOST_SECONDS + 1) == 0
    artifact = client.get(f"/reports/{report_id}/artifacts/json", headers=tenant.headers)
    assert artifact.status_code in (404, 409)


def test_a_running_build_whose_worker_died_is_queued_again(app, client, tenant, redis_client, sql):
    """The job is still "started" past its timeout: its worker died with it."""
    from rq.job import Job

    from webapp import queueing
    from webapp.models import utcnow
    from webapp.services import reaper

    report_id = request_report(client, tenant)
    job = Job.fetch(queueing.report_job_id(report_id), connection=redis_client)
    # What a worker killed mid-build leaves: the job started, the row running.
    job.set_status("started")
    redis_client.hset(job.key, "started_at", utcnow().strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
    sql(
        "UPDATE reports SET status = 'running', stage = 'gathering' WHERE report_id = :r",
        r=report_id,
    )
    assert reap(app, job.timeout - 1) == 0  # it may still be building
    assert reap(app, job.timeout + reaper.CRASH_GRACE_SECONDS + 1) == 1
    row = sql("SELECT status, attempts FROM reports WHERE report_id = :r", r=report_id).first()
    assert tuple(row) == ("queued", 1)
    assert Job.fetch(queueing.report_job_id(report_id, 1), connection=redis_client)
