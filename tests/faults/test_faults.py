"""Faults against real processes (issue 16 §10): the `make run` stack, a loopback judge, a real
redis-server and database. Each fault asserts that every request reaches a terminal state
within a bound, that nothing was approved wrongly, and that the ledger verifies with one
decision event per terminal decision.

Run with ``-s`` to see the FAULT lines quoted in bench/README.md.
"""

from __future__ import annotations

import http.client
import json
import os
import time

import pytest
import redis
from rq import Worker

from tests.faults.conftest import assert_ledger_sound, record

POISON = '{"k": ' * 650 + "1" + "}" * 650
BOUND = 120  # seconds for every request of a fault to be decided


def ask_many(stack, headers, amounts, asked, **args):  # noqa: ANN001, ANN003
    for amount in amounts:
        response = stack.ask(headers, amount, **args)
        assert response.status_code in (200, 202), response.text
        asked[response.json()["request_id"]] = amount


def test_kill_9_of_a_clearance_worker_mid_job(stack, judge):
    headers = stack.tenant("Kill Co")
    judge.release.clear()
    judge.holding.clear()
    asked: dict = {}
    ask_many(stack, headers, [10], asked, hold=True)
    assert judge.holding.wait(60), "no worker called the judge"
    connection = redis.Redis(unix_socket_path=stack.redis.socket)
    busy = [w for w in Worker.all(connection=connection) if w.get_current_job_id()]
    assert busy, "the held job is on no worker"
    killed_at = time.monotonic()
    os.kill(busy[0].pid, 9)
    ask_many(stack, headers, [50, 1500, 700, 999, 1000, 20, 3000, 5, 450], asked)
    judge.release.set()
    recovered = stack.wait_terminal(list(asked), BOUND)
    assert "exited (-9)" in stack.log()
    verdict = assert_ledger_sound(stack, headers, asked)
    record(
        "worker kill -9",
        requests=len(asked),
        stuck=0,
        recovery_s=round(time.monotonic() - killed_at, 1),
        after_release_s=round(recovered, 1),
        ledger=verdict,
    )


def test_a_poison_request_is_denied_and_the_others_are_decided(stack, judge):
    headers = stack.tenant("Poison Co")
    judge.release.clear()
    judge.holding.clear()
    asked: dict = {}
    ask_many(stack, headers, [10], asked, hold=True)
    [poison] = list(asked)
    asked[poison] = None  # never approvable once poisoned
    assert judge.holding.wait(60)
    # Planted while the worker waits on the judge: the verdict is applied to this content.
    stack.sql(
        "UPDATE clearance_requests SET tool_args = :args WHERE request_id = :rid",
        args=POISON,
        rid=poison,
    )
    started = time.monotonic()
    judge.release.set()
    ask_many(stack, headers, [10, 2000, 30, 40, 5000], asked)
    stack.wait_terminal(list(asked), BOUND)
    states = stack.states(list(asked))
    assert states[poison] == ("denied", False, "judge_unavailable")
    verdict = assert_ledger_sound(stack, headers, asked)
    record(
        "poison request",
        requests=len(asked),
        stuck=0,
        poison_denied_s=round(time.monotonic() - started, 1),
        ledger=verdict,
    )


if (os.environ.get("TEST_DATABASE_URL") or "").startswith("postgresql"):

    def test_postgresql_connections_dropped(stack, judge):
        headers = stack.tenant("Dropped Co")
        judge.release.clear()
        judge.holding.clear()
        asked: dict = {}
        ask_many(stack, headers, [10], asked, hold=True)
        ask_many(stack, headers, [20, 3000, 40], asked)
        assert judge.holding.wait(60)
        terminate = (
            "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        dropped = stack.sql(terminate)[0][0]
        started = time.monotonic()
        judge.release.set()
        # The web tier reconnects (pre-ping); requests made now are served.
        ask_many(stack, headers, [60, 7000, 80], asked)
        dropped += stack.sql(terminate)[0][0]  # and again, while work is in flight
        ask_many(stack, headers, [90, 100], asked)
        stack.wait_terminal(list(asked), BOUND)
        verdict = assert_ledger_sound(stack, headers, asked)
        record(
            "postgresql connections dropped",
            requests=len(asked),
            connections_dropped=dropped,
            stuck=0,
            recovery_s=round(time.monotonic() - started, 1),
            ledger=verdict,
        )


def test_hostile_bodies_through_gunicorn(stack):
    """The edge's refusals hold behind the real server: chunked bodies counted as read,
    parser-exhausting nesting, duplicate keys."""
    headers = stack.tenant("Edge Co")
    host, port = stack.url.removeprefix("http://").split(":")
    payload = (
        b'{"tool_name": "pay_invoice", "agent_id": "a", "tool_args": {"memo": "'
        + b"x" * (2 * 1024 * 1024)
        + b'"}}'
    )
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    connection.putrequest("POST", "/request-clearance")
    connection.putheader("Content-Type", "application/json")
    connection.putheader("Transfer-Encoding", "chunked")
    connection.putheader("X-Vault-API-Key", headers["X-Vault-API-Key"])
    connection.endheaders()
    try:
        for start in range(0, len(payload), 65536):
            piece = payload[start : start + 65536]
            connection.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        connection.send(b"0\r\n\r\n")
    except OSError:
        pass  # answered 413 and closed before the whole body was sent
    response = connection.getresponse()
    assert response.status == 413, response.read()[:300]
    assert json.loads(response.read())["code"] == "payload_too_large"
    connection.close()
    for body in (
        b'{"tool_name": "t", "agent_id": "a", "tool_args": ' + b"[" * 5000 + b"]" * 5000 + b"}",
        b'{"tool_name": "t", "agent_id": "a", "tool_args": {"amount": 12000, "amount": 1}}',
    ):
        answer = stack.http.post(
            f"{stack.url}/request-clearance",
            content=body,
            headers={**headers, "Content-Type": "application/json"},
        )
        assert answer.status_code == 400, answer.text
        assert answer.headers["Content-Type"] == "application/problem+json"


def test_redis_stopped_and_restarted(stack, judge):
    """Last: it empties Redis. The web tier keeps serving the database-only endpoints."""
    headers = stack.tenant("Outage Co")
    judge.release.set()
    asked: dict = {}
    ask_many(stack, headers, [10, 20, 5000], asked)
    stack.wait_terminal(list(asked), BOUND)
    approved = [
        rid for rid, (status, *_) in stack.states(list(asked)).items() if status == "approved"
    ]
    token = stack.get(f"/clearance-status/{approved[0]}", headers).json()["token"]
    log_before = len(stack.log())

    stack.redis.stop()
    stopped_at = time.monotonic()
    served = refused = 0
    consumed = False
    # The outage lasts until the supervisor has seen a child die (and scheduled its restart),
    # at most 45 s; the web tier is checked throughout.
    while time.monotonic() - stopped_at < 45:
        assert stack.get("/health").status_code == 200
        status = stack.get(f"/clearance-status/{approved[1]}", headers)
        assert status.status_code == 200 and status.json()["status"] == "approved"
        assert stack.get("/ledger", headers).status_code == 200
        ready = stack.get("/ready").json()
        assert ready["status"] == "degraded" and ready["checks"]["redis"] == "down"
        if not consumed:
            response = stack.http.post(
                f"{stack.url}/consume-token", json={"token": token}, headers=headers
            )
            assert response.status_code == 200, response.text
            consumed = True
        response = stack.ask(headers, 30)
        assert response.status_code == 503 and response.headers["Retry-After"]
        served += 4
        refused += 1
        if "exited" in stack.log()[log_before:]:
            break
        time.sleep(0.5)
    outage = time.monotonic() - stopped_at
    assert stack.supervisor.poll() is None, "the supervisor stopped"

    stack.redis.start()
    restarted_at = time.monotonic()
    stack.wait_ready(60)
    fresh: dict = {}
    ask_many(stack, headers, [40, 6000], fresh)
    stack.wait_terminal(list(fresh), BOUND)
    recovery = time.monotonic() - restarted_at
    asked.update(fresh)
    verdict = assert_ledger_sound(stack, headers, asked)
    assert stack.supervisor.poll() is None
    record(
        "redis stopped and restarted",
        outage_s=round(outage, 1),
        served_during_outage=served,
        refused_503=refused,
        requests=len(asked),
        stuck=0,
        recovery_s=round(recovery, 1),
        ledger=verdict,
    )


@pytest.fixture(autouse=True)
def _stack_alive(stack):
    yield
    assert stack.supervisor.poll() is None, stack.log()[-3000:]
