"""/ready counts live clearance workers: degraded (200) when none was seen within VAULT_READY_WORKER_SECONDS.

A real RQ worker process registers itself in Redis (tests/helpers.start_rq_worker); killing it
with -9 leaves its record behind, as a crash does, and its heartbeat then ages: the test ages it
in Redis rather than waiting out the window.
"""

from __future__ import annotations

import os
import signal
from datetime import UTC, datetime, timedelta

import pytest
from rq import Worker
from rq.utils import utcformat

from tests.conftest import bootstrap, make_config
from tests.helpers import start_rq_worker, wait_for

WINDOW = 60


@pytest.fixture
def ready_app(workdir, database_url, redis_url, _migrated):
    from tests.conftest import _reset_state
    from webapp import create_app

    app = create_app(make_config(workdir, database_url, redis_url, ready_worker_seconds=WINDOW))
    bootstrap(app)
    yield app
    _reset_state(app)


def redis_of(app):  # noqa: ANN001, ANN201
    from webapp.runtime import vault

    with app.app_context():
        return vault().redis


def workers_state(client) -> tuple[str, str]:  # noqa: ANN001
    response = client.get("/ready")
    assert response.status_code == 200  # missing workers never take the web tier out of service
    body = response.get_json()
    return body["status"], body["checks"]["workers"]


def test_ready_is_degraded_without_a_clearance_worker_and_ready_with_one(
    ready_app, workdir, database_url, redis_url
):
    client = ready_app.test_client()
    response = client.get("/ready")
    assert response.status_code == 200
    body = response.get_json()
    assert body["status"] == "degraded"
    [entry] = body["degraded"]
    assert entry["component"] == "workers"
    assert f"no clearance worker seen within {WINDOW} s" in entry["effect"]
    assert body["checks"] == {
        "database": "ok",
        "redis": "ok",
        "signer": "ok",
        "workers": "down",
    }

    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "VAULT_INSTANCE_PATH": str(workdir / "instance"),
        "LOG_FORMAT": "text",
    }
    # A worker on other queues only does not count: requests wait on "clearance".
    other = start_rq_worker(redis_url, env, ("default",))
    try:
        wait_for(lambda: Worker.all(connection=redis_of(ready_app)), 30, "the worker to register")
        assert workers_state(client) == ("degraded", "down")
    finally:
        other.terminate()
        other.wait(20)

    worker = start_rq_worker(redis_url, env)
    try:
        ready = wait_for(
            lambda: (r := client.get("/ready")).get_json()["status"] == "ready" and r,
            30,
            "/ready to be ready",
        )
        body = ready.get_json()
        assert body["status"] == "ready"
        assert body["checks"] == {"database": "ok", "redis": "ok", "signer": "ok", "workers": "ok"}
    finally:
        worker.send_signal(signal.SIGKILL)  # a crash: its record stays in Redis
        worker.wait(20)

    # Just killed, its last heartbeat is recent: still counted within the window.
    assert workers_state(client) == ("ready", "ok")
    # The heartbeat ages past the window (as it would WINDOW seconds later): not ready.
    connection = redis_of(ready_app)
    stale = utcformat(datetime.now(UTC) - timedelta(seconds=WINDOW + 1))
    for key in Worker.all_keys(connection=connection):
        connection.hset(key, "last_heartbeat", stale)
    assert workers_state(client) == ("degraded", "down")


def test_the_worker_check_can_be_switched_off(workdir, database_url, redis_url, _migrated):
    from tests.conftest import _reset_state
    from webapp import create_app

    app = create_app(make_config(workdir, database_url, redis_url, ready_worker_seconds=0))
    bootstrap(app)
    try:
        response = app.test_client().get("/ready")
        assert response.status_code == 200
        assert "workers" not in response.get_json()["checks"]
    finally:
        _reset_state(app)


def test_a_worker_that_outlives_its_redis_record_is_seen_again(
    ready_app, workdir, database_url, redis_url
):
    """Redis restarted without persistence loses the worker's record; the worker lives on and
    registers again at its next heartbeat (jobs.worker.VaultWorker), so /ready is 200 again."""
    client = ready_app.test_client()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "VAULT_INSTANCE_PATH": str(workdir / "instance"),
        "LOG_FORMAT": "text",
    }
    worker = start_rq_worker(redis_url, env, worker_ttl=16)  # an idle heartbeat every ~1 s
    try:
        wait_for(lambda: workers_state(client)[1] == "ok", 30, "/ready to see the worker")
        connection = redis_of(ready_app)
        connection.flushdb()  # what a restart without persistence leaves: no worker record
        # (Not asserted 503 here: the worker may already have heartbeated again.)
        wait_for(lambda: workers_state(client)[1] == "ok", 30, "the worker to re-register")
        assert client.get("/ready").get_json()["checks"]["workers"] == "ok"
        [registered] = Worker.all(connection=connection)
        assert registered.pid == worker.pid  # the same process registered again, not a restart
        assert worker.poll() is None
    finally:
        worker.terminate()
        worker.wait(20)
