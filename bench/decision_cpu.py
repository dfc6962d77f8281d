"""CPU per approval on the fast lane, by phase (a benchmark, not a test).

Starts the stack as `make run` does (bench/decision.py's start_stack: embedded SQLite and Redis
unless DATABASE_URL / REDIS_URL are given), registers the bench policy, then builds the same
app in this process against that instance and sends approvals one after another through the
WSGI test client, measuring the thread's CPU time (not wall time, so a busy machine disturbs
the figures less) in total and inside each phase of the service.

Usage: .venv/bin/python bench/decision_cpu.py [--requests 400]
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import importlib.util
import os
import pstats
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# bench/decision.py by its path: putting bench/ on sys.path would hide the `ingest` package.
_spec = importlib.util.spec_from_file_location("bench_decision", ROOT / "bench" / "decision.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N", help="print the N costliest functions"
    )
    args = parser.parse_args()
    instance = Path(tempfile.mkdtemp(prefix="vault-cpu-"))
    port = bench.free_port()
    stack, key = bench.start_stack(instance, port, 1)
    try:
        conn = bench.http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        bench.call(conn, "POST", "/register-policy", bench.POLICY, {"X-Vault-API-Key": key})
        measure(instance, key, args.requests, args.profile)
    finally:
        os.killpg(stack.pid, signal.SIGTERM)
        stack.wait(60)
        shutil.rmtree(instance, ignore_errors=True)


def measure(instance: Path, key: str, count: int, profile: int = 0) -> None:
    os.environ.setdefault("VAULT_INSTANCE_PATH", str(instance))
    os.environ.setdefault("REDIS_URL", f"unix://{instance}/redis.sock")
    os.environ["VAULT_RATE_LIMIT_RPS"] = "0"
    os.environ["LOG_LEVEL"] = "WARNING"
    os.chdir(ROOT)
    from sqlalchemy.orm import Session

    from webapp.services import agents, clearance, judging, keys, tokens
    from wsgi import app

    with app.app_context():
        judging.warm_up()
    spent: collections.Counter[str] = collections.Counter()

    def timed(owner: object, name: str, label: str) -> None:
        original = getattr(owner, name)

        def wrapper(*a, **k):  # noqa: ANN002, ANN003, ANN202
            started = time.thread_time()
            try:
                return original(*a, **k)
            finally:
                spent[label] += time.thread_time() - started

        setattr(owner, name, wrapper)

    timed(clearance, "request_clearance", "service (request_clearance)")
    timed(clearance, "_stage", "  stage (judge, rows, event, token)")
    timed(judging, "judge_at_once", "    judge (built-in engine)")
    timed(clearance, "append_event", "    ledger event (CBOR, hash, seal, receipt)")
    timed(tokens, "mint", "    token (A-JWT)")
    timed(keys, "require_registered", "    signing-key registry check")
    timed(agents, "record_activity", "    agent activity")
    timed(Session, "commit", "  commit (flush of the rows, SQL commit)")
    timed(clearance, "_after_commit", "  after commit (drift counters, hooks)")

    client = app.test_client()
    headers = {"X-Vault-API-Key": key}
    for _ in range(50):  # warm the per-process caches
        assert (
            client.post("/request-clearance", json=bench.BODY, headers=headers).status_code == 200
        )
    spent.clear()
    profiler = cProfile.Profile(time.thread_time) if profile else None
    if profiler:
        profiler.enable()
    started = time.thread_time()
    for _ in range(count):
        answer = client.post("/request-clearance", json=bench.BODY, headers=headers)
        if answer.status_code != 200 or answer.get_json()["status"] != "approved":
            raise SystemExit(f"unexpected answer {answer.status_code} {answer.get_json()}")
    total = time.thread_time() - started
    if profiler:
        profiler.disable()
        stats = pstats.Stats(profiler)
        stats.sort_stats("tottime").print_stats(profile)
        stats.sort_stats("cumulative").print_stats(profile)
    print(
        f"load {os.getloadavg()[0]:.1f}; database "
        f"{os.environ.get('DATABASE_URL', 'embedded SQLite')}; {count} approvals, one at a time"
    )
    print(f"CPU per approval, whole request through the WSGI app: {total / count * 1000:.2f} ms")
    for label, seconds in spent.items():
        print(f"{label:48s} {seconds / count * 1000:6.3f} ms")


if __name__ == "__main__":
    main()
