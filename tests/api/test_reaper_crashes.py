"""Time to a terminal state for a request whose judge job crashes, at the default cutoff.

At ``VAULT_CLEARANCE_REAP_SECONDS=120`` a poison request used to wait for three re-queues, a
full cutoff each, then three failed runs: 8 to 9 minutes. The reaper now reads the state of the
request's judge job: a job that failed, or is still "started" past its timeout (its worker died),
is acted on at the next run (every 15 s), queued once more, then denied. Time is simulated
through the reaper's ``now``; the jobs run in real RQ workers.
"""

from __future__ import annotations

import os
import signal
import threading
from datetime import timedelta

import pytest
from rq.job import Job, JobStatus

from tests.api.test_poison_requests import DENY, poison_args, status_of
from tests.conftest import bootstrap, make_config, make_tenant
from tests.helpers import LoopbackServer, ask, json_reply, start_rq_worker, wait_for

JUDGE_KEY = "loopback-judge-key-0123456789"
RUN_EVERY = 15  # the reaper's default interval at the default cutoff (jobs/cron.py)


class HoldingJudge:
    """A loopback judge that denies, or, while ``hold`` is set, keeps every call waiting."""

    def __init__(self) -> None:
        self.hold = False
        self.release = threading.Event()
        self.server = LoopbackServer(self._answer)

    def _answer(self, *_):  # noqa: ANN002, ANN202
        if self.hold:
            self.release.wait(30)
        return json_reply(200, DENY)


@pytest.fixture
def judge():
    holding = HoldingJudge()
    with holding.server:
        yield holding
        holding.release.set()


@pytest.fixture
def default_app(workdir, database_url, redis_url, _migrated, judge):
    """The default reap cutoff (120 s); a remote judge on loopback; no judge retries."""
    from jobs.runtime import set_app
    from tests.conftest import _reset_state
    from webapp import create_app

    config = make_config(
        workdir,
        database_url,
        redis_url,
        judge_url=judge.server.url,
        judge_api_key=JUDGE_KEY,
        judge_retries=0,
    )
    assert config.clearance_reap_seconds == 120
    app = create_app(config)
    app.config["TESTING"] = True
    bootstrap(app)
    set_app(app)
    yield app
    set_app(None)
    _reset_state(app)
    with app.app_context():
        from webapp.extensions import db

        db.engine.dispose()


def reap_at(app, now) -> int:  # noqa: ANN001
    from webapp.services import reaper

    with app.app_context():
        return reaper.reap_stuck(now=now)


def burst(app) -> None:  # noqa: ANN001
    from rq import SimpleWorker

    from jobs.queues import all_queues
    from webapp.runtime import vault

    with app.app_context():
        connection = vault().redis
    SimpleWorker(all_queues(connection), connection=connection).work(burst=True)


def test_a_request_whose_job_raises_is_denied_within_three_minutes(default_app, sql):
    from webapp.models import utcnow

    client = default_app.test_client()
    tenant = make_tenant(default_app, "Poison Co")
    rid = ask(client, tenant, "pay_invoice", {"amount": 1}).get_json()["request_id"]
    sql(
        "UPDATE clearance_requests SET tool_args = :a WHERE request_id = :r", a=poison_args(), r=rid
    )
    started = utcnow()
    burst(default_app)  # the judge job raises on the content: failed, the request processing
    assert status_of(sql, rid)[0] == "processing"

    elapsed = 0
    while status_of(sql, rid)[0] == "processing" and elapsed <= 180:
        elapsed += RUN_EVERY  # one reaper run, then the workers drain what it queued
        reap_at(default_app, started + timedelta(seconds=elapsed))
        burst(default_app)
    status, code, _failures = status_of(sql, rid)
    assert (status, code) == ("denied", "judge_unavailable")
    assert elapsed <= 3 * RUN_EVERY, f"denied only after {elapsed} s"
    assert sql("SELECT COUNT(*) FROM clearance_requests WHERE approved").scalar() == 0
    events = sql(
        "SELECT COUNT(*) FROM ledger_events WHERE request_id = :r "
        "AND action_category = 'clearance_decision'",
        r=rid,
    ).scalar()
    assert events == 1


def _worker_env(judge, database_url, redis_url, workdir) -> dict[str, str]:  # noqa: ANN001
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "VAULT_INSTANCE_PATH": str(workdir / "instance"),
        "VAULT_JUDGE_URL": judge.server.url,
        "VAULT_JUDGE_API_KEY": JUDGE_KEY,
        "VAULT_JUDGE_RETRIES": "0",
        "LOG_FORMAT": "text",
    }


def _crash_while_judging(app, judge, env, redis_url, rid: str, attempt: int):  # noqa: ANN001
    """A real worker takes the job; it is killed (-9) while the judge holds the call."""
    from webapp import queueing
    from webapp.runtime import vault

    judge.hold = True
    calls = len(judge.server.requests)
    worker = start_rq_worker(redis_url, env)
    try:
        wait_for(lambda: len(judge.server.requests) > calls, 30, "the worker to call the judge")
        with app.app_context():
            job = Job.fetch(queueing.judge_job_id(rid, attempt), connection=vault().redis)
            assert job.get_status() == JobStatus.STARTED
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(20)
    return job


def test_a_request_whose_job_kills_its_worker_is_queued_once_then_denied(
    default_app, judge, sql, workdir, database_url, redis_url
):
    """Each crash is seen at the job's timeout plus the grace, not after the 120 s cutoff."""
    from webapp.services import reaper

    client = default_app.test_client()
    tenant = make_tenant(default_app, "Crash Co")
    env = _worker_env(judge, database_url, redis_url, workdir)
    rid = ask(client, tenant, "pay_invoice", {"amount": 1}).get_json()["request_id"]

    first = _crash_while_judging(default_app, judge, env, redis_url, rid, 0)
    bound = timedelta(seconds=first.timeout + reaper.CRASH_GRACE_SECONDS)
    assert first.timeout + reaper.CRASH_GRACE_SECONDS + RUN_EVERY <= 90
    # Before its bound the job may still be running: nothing happens.
    assert reap_at(default_app, first.started_at + bound - timedelta(seconds=1)) == 0
    assert sql("SELECT attempts FROM clearance_requests WHERE request_id = :r", r=rid).scalar() == 0
    # Past it, long before the cutoff: queued again (an operator may have killed that worker).
    assert reap_at(default_app, first.started_at + bound + timedelta(seconds=1)) == 1
    assert status_of(sql, rid)[0] == "processing"

    second = _crash_while_judging(default_app, judge, env, redis_url, rid, 1)
    assert reap_at(default_app, second.started_at + bound + timedelta(seconds=1)) == 1
    status, code, _failures = status_of(sql, rid)
    assert (status, code) == ("denied", "judge_unavailable")
    body = client.get(f"/clearance-status/{rid}", headers=tenant.headers).get_json()
    assert body["token"] is None and body["approved"] is False
    verdict = client.get("/ledger/verify", headers=tenant.headers).get_json()
    assert verdict["intact"], verdict
