"""The fault suite's stack: `make run`'s supervisor, started for real, beside a loopback judge.

One stack per module (starting it costs a database migration and six Python processes), with
its own database (a fresh SQLite file, or a fresh PostgreSQL database next to
TEST_DATABASE_URL) and its own redis-server that the tests may stop and start. Each test
uses its own tenant, so its assertions see only its own requests.

The judge answers by a ground truth the tests check afterwards: ``amount`` below 1,000 is
allowed, anything else denied. A request with ``"hold": true`` makes the judge wait until the
test releases it, so a worker can be caught mid-job.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from tests.helpers import LoopbackServer, RedisProcess, json_reply

ROOT = Path(__file__).resolve().parents[2]
ADMIN_KEY = "faults-admin-key-0123456789abcdef"
JUDGE_KEY = "faults-judge-key-0123456789abcdef"
LIMIT = 1000  # the judge's ground truth: amount < LIMIT is allowed


def verdict_for(body: dict[str, Any]) -> dict[str, Any]:
    amount = body.get("tool_args", {}).get("amount")
    allowed = isinstance(amount, (int, float)) and amount < LIMIT
    return {
        "decision": "allow" if allowed else "deny",
        "confidence": 0.99,
        "reason": "under the limit" if allowed else "over the limit",
        "reason_code": "approved_by_policy" if allowed else "rule_violated",
        "citations": [],
        "evidence_chunks": [],
        "policy_id": "faults",
        "policy_version_id": "pv_faults",
        "policy_content_hash": "0" * 64,
        "layer": "rules",
        "details": {},
    }


class Judge:
    """A loopback judge; holds ``hold`` requests until ``release`` is set (bounded)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.holding = threading.Event()
        self.server = LoopbackServer(self._answer)

    def _answer(self, _method: str, _path: str, _headers: dict, body: bytes):
        try:
            data = json.loads(body)
        except ValueError:
            return json_reply(400, {"error": "bad body"})
        if data.get("tool_args", {}).get("hold"):
            self.holding.set()
            self.release.wait(60)
        return json_reply(200, verdict_for(data))


@pytest.fixture(scope="module")
def judge():
    judge = Judge()
    with judge.server:
        yield judge


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def stack_database(tmp_path_factory):
    base = os.environ.get("TEST_DATABASE_URL")
    if not base:
        yield f"sqlite:///{tmp_path_factory.mktemp('faults-db') / 'vault.sqlite3'}"
        return
    name = f"vault_faults_{uuid.uuid4().hex[:10]}"
    server = base.rpartition("/")[0]
    admin = create_engine(f"{server}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    yield f"{server}/{name}"
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@dataclass
class Stack:
    url: str
    database_url: str
    redis: RedisProcess
    supervisor: subprocess.Popen
    log_path: Path
    engine: Any = None
    http: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=30))

    # --- the API, as a client uses it ------------------------------------------------------

    def tenant(self, name: str) -> dict[str, str]:
        response = self.http.post(
            f"{self.url}/admin/tenants", json={"name": name}, headers={"X-Admin-API-Key": ADMIN_KEY}
        )
        assert response.status_code == 201, response.text
        return {"X-Vault-API-Key": response.json()["api_key"]}

    def ask(self, headers: dict[str, str], amount: float, **args: Any) -> httpx.Response:
        body = {
            "tool_name": "pay_invoice",
            "tool_args": {"amount": amount, **args},
            "agent_id": "fault-agent",
        }
        return self.http.post(f"{self.url}/request-clearance", json=body, headers=headers)

    def get(self, path: str, headers: dict[str, str] | None = None) -> httpx.Response:
        return self.http.get(f"{self.url}{path}", headers=headers or {})

    # --- the database, for what a client cannot see ------------------------------------------

    def sql(self, statement: str, **params: Any) -> list[Any]:
        with self.engine.begin() as connection:
            result = connection.execute(text(statement), params)
            return list(result) if result.returns_rows else []

    def states(self, request_ids: list[str]) -> dict[str, tuple[str, bool, str]]:
        rows = self.sql("SELECT request_id, status, approved, reason_code FROM clearance_requests")
        wanted = set(request_ids)
        return {r[0]: (r[1], bool(r[2]), r[3]) for r in rows if r[0] in wanted}

    def wait_terminal(self, request_ids: list[str], seconds: float) -> float:
        """Seconds until every request is approved or denied; fails past ``seconds``."""
        started = time.monotonic()
        pending: list[str] = list(request_ids)
        while time.monotonic() - started < seconds:
            states = self.states(request_ids)
            pending = [r for r in request_ids if states.get(r, ("",))[0] not in TERMINAL]
            if not pending:
                return time.monotonic() - started
            time.sleep(0.25)
        raise AssertionError(f"{len(pending)} request(s) not terminal after {seconds} s: {pending}")

    def child_pids(self, needle: str) -> list[int]:
        """Pids of the supervisor's children whose command line contains ``needle``."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except (OSError, ValueError, IndexError):
                continue
            if ppid == self.supervisor.pid and needle in cmdline:
                found.append(int(entry.name))
        return found

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_ready(self, seconds: float) -> float:
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            assert self.supervisor.poll() is None, f"supervisor exited:\n{self.log()[-3000:]}"
            try:
                response = self.get("/ready")
                if response.status_code == 200 and response.json()["status"] == "ready":
                    return time.monotonic() - started
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        raise AssertionError(f"stack not ready after {seconds} s:\n{self.log()[-3000:]}")


TERMINAL = ("approved", "denied")


@pytest.fixture(scope="module")
def stack(tmp_path_factory, stack_database, judge):
    directory = tmp_path_factory.mktemp("faults")
    redis = RedisProcess(directory).start()
    port = _free_port()
    log_path = directory / "supervisor.log"
    env = {
        **os.environ,
        "VAULT_ENV": "development",
        "VAULT_INSTANCE_PATH": str(directory / "instance"),
        "VAULT_HOST": "127.0.0.1",
        "VAULT_PORT": str(port),
        "DATABASE_URL": stack_database,
        "REDIS_URL": redis.url,
        "VAULT_ADMIN_API_KEY": ADMIN_KEY,
        "VAULT_JUDGE_URL": judge.server.url,
        "VAULT_JUDGE_API_KEY": JUDGE_KEY,
        "VAULT_JUDGE_RETRIES": "1",
        "VAULT_JUDGE_RETRY_BASE_SECONDS": "1",
        "VAULT_JUDGE_TIMEOUT_SECONDS": "30",
        "VAULT_CLEARANCE_REAP_SECONDS": "5",
        "VAULT_CLEARANCE_ASYNC_WORKERS": "2",
        "VAULT_CLEARANCE_SYNC_WAIT_MS": "0",
        "VAULT_WEB_WORKERS": "1",
        "VAULT_RATE_LIMIT_RPS": "10000",
        "VAULT_RATE_LIMIT_BURST": "10000",
        "OPENBLAS_NUM_THREADS": "1",
        # Few connections per process: the PostgreSQL server is shared with other suites.
        "VAULT_CONTROL_PLANE_DB_MAX_OPEN_CONNS": "4",
    }
    for name in ("TEST_DATABASE_URL", "TEST_REDIS_URL"):
        env.pop(name, None)
    with log_path.open("wb") as log:
        supervisor = subprocess.Popen(
            [sys.executable, str(ROOT / "jobs" / "supervisor.py")],
            env=env,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    running = Stack(
        url=f"http://127.0.0.1:{port}",
        database_url=stack_database,
        redis=redis,
        supervisor=supervisor,
        log_path=log_path,
        engine=create_engine(stack_database),
    )
    try:
        running.wait_ready(240)
        yield running
    finally:
        judge.release.set()
        if supervisor.poll() is None:
            supervisor.send_signal(signal.SIGTERM)
            try:
                supervisor.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(supervisor.pid, signal.SIGKILL)
                supervisor.wait(10)
        running.http.close()
        running.engine.dispose()
        redis.stop()


def assert_ledger_sound(stack: Stack, headers: dict[str, str], asked: dict[str, Any]) -> str:
    """Nothing approved wrongly, one decision event per terminal decision, ledger intact.

    ``asked`` maps each request id to the amount it asked for (None: poison, never approvable).
    """
    states = stack.states(list(asked))
    assert set(states) == set(asked)
    for request_id, (status, approved, reason_code) in states.items():
        assert status in TERMINAL, (request_id, status)
        assert approved == (status == "approved")
        if approved:
            amount = asked[request_id]
            assert amount is not None and amount < LIMIT, (request_id, amount)
            assert reason_code == "approved_by_policy", (request_id, reason_code)
    events = stack.sql(
        "SELECT request_id, COUNT(*) FROM ledger_events "
        "WHERE action_category = 'clearance_decision' GROUP BY request_id"
    )
    counts = {r[0]: r[1] for r in events if r[0] in states}
    assert counts == {request_id: 1 for request_id in asked}, counts
    verdict = stack.get("/ledger/verify", headers).json()
    assert verdict["intact"], verdict
    return "intact"


def record(name: str, **figures: Any) -> None:
    """Print one result line (pytest -s shows it); bench/README.md quotes these."""
    print(f"\nFAULT {name}: " + ", ".join(f"{k}={v}" for k, v in figures.items()), flush=True)
