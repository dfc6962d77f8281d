"""Mixed load against the `make run` stack (not a test): N requests over C keep-alive
connections, counting every status; the figure that matters is 0 answers in 5xx.

The mix, per request: 50 % POST /request-clearance (amounts above and below the policy's
limit), 20 % GET /clearance-status of an earlier request, 10 % POST /consume-token (the token
of an earlier approval, so some win and the rest are 409 replays), 10 % GET /ledger, 10 %
hostile bodies that must be 400 (duplicate keys, nesting past 32 levels, lone surrogates, NUL).

Usage: .venv/bin/python bench/load.py [--requests 2000] [--connections 16]
Embedded SQLite + Redis unless DATABASE_URL / REDIS_URL are set. Rate limiting is off for the
run (VAULT_RATE_LIMIT_RPS=0): it would cap one key at 20/s, which is a 429, not what is measured.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADMIN_KEY = "load-admin-key-0123456789abcdef"
HOSTILE = [
    b'{"tool_name": "pay_invoice", "agent_id": "a", "tool_args": {"amount": 12000, "amount": 1}}',
    b'{"tool_name": "pay_invoice", "agent_id": "a", "tool_args": '
    + b'{"k": ' * 40
    + b"1"
    + b"}" * 40
    + b"}",
    b'{"tool_name": "pay\\ud800", "agent_id": "a", "tool_args": {}}',
    b'{"tool_name": "pay_invoice", "agent_id": "a\\u0000", "tool_args": {}}',
    b'{"tool_name": "pay_invoice", "agent_id": "a", "tool_args": '
    + b"[" * 5000
    + b"]" * 5000
    + b"}",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_stack(instance: Path, port: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "VAULT_INSTANCE_PATH": str(instance),
        "VAULT_PORT": str(port),
        "VAULT_HOST": "127.0.0.1",
        "VAULT_RATE_LIMIT_RPS": "0",
        "VAULT_ADMIN_API_KEY": ADMIN_KEY,
        "LOG_LEVEL": "WARNING",
    }
    process = subprocess.Popen(
        [sys.executable, "jobs/supervisor.py"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            status, _ = call(port, "GET", "/ready")
            if status == 200:
                return process
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("the stack did not become ready")


def call(port: int, method: str, path: str, body: bytes | None = None, key: str = "", conn=None):  # noqa: ANN001
    own = conn is None
    conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json"}
    if key:
        headers["X-Vault-API-Key"] = key
    if method == "POST" and path.startswith("/admin"):
        headers["X-Admin-API-Key"] = ADMIN_KEY
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    if own:
        conn.close()
    return response.status, data


class Shared:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.request_ids: list[str] = []
        self.tokens: list[str] = []
        self.statuses: Counter = Counter()
        self.by_kind: Counter = Counter()
        self.latencies: list[float] = []


def client(port: int, key: str, count: int, shared: Shared, seed: int) -> None:
    rng = random.Random(seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for _ in range(count):
        roll = rng.random()
        with shared.lock:
            known = list(shared.request_ids[-50:])
            token = shared.tokens.pop() if shared.tokens and roll < 0.8 and roll >= 0.7 else None
        if roll < 0.5 or not known:
            kind, method, path = "request-clearance", "POST", "/request-clearance"
            amount = rng.choice([120, 900, 4_999, 7_500, 12_000])
            body = json.dumps(
                {
                    "tool_name": "pay_invoice",
                    "tool_args": {"amount": amount, "invoice_id": f"INV-{rng.randrange(10**6)}"},
                    "agent_id": f"agent-{seed}",
                }
            ).encode()
        elif roll < 0.7:
            kind, method, body = "clearance-status", "GET", None
            path = f"/clearance-status/{rng.choice(known)}"
        elif roll < 0.8:
            kind, method, path = "consume-token", "POST", "/consume-token"
            body = json.dumps({"token": token or "a.b.c"}).encode()
        elif roll < 0.9:
            kind, method, path, body = "ledger", "GET", "/ledger?limit=20", None
        else:
            kind, method, path = "hostile", "POST", "/request-clearance"
            body = rng.choice(HOSTILE)
        started = time.perf_counter()
        try:
            status, data = call(port, method, path, body, key, conn)
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            status, data = 599, b""  # a dropped connection counts as a server error
        elapsed = time.perf_counter() - started
        with shared.lock:
            shared.statuses[status] += 1
            shared.by_kind[(kind, status)] += 1
            shared.latencies.append(elapsed)
            if kind == "request-clearance" and status in (200, 202):
                answer = json.loads(data)
                shared.request_ids.append(answer["request_id"])
                if answer.get("token"):
                    shared.tokens.append(answer["token"])
            if kind == "clearance-status" and status == 200:
                answer = json.loads(data)
                if answer.get("token") and rng.random() < 0.3:
                    shared.tokens.append(answer["token"])
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--connections", type=int, default=16)
    args = parser.parse_args()
    instance = Path(tempfile.mkdtemp(prefix="vault-load-"))
    port = free_port()
    stack = start_stack(instance, port)
    try:
        status, data = call(port, "POST", "/admin/tenants", json.dumps({"name": "Load"}).encode())
        key = json.loads(data)["api_key"]
        policy = {
            "policy_id": "payments",
            "rules": ["Payments above $5,000 require manual review", "Never pay more than $10,000"],
            "tools": ["pay_*"],
        }
        status, data = call(port, "POST", "/register-policy", json.dumps(policy).encode(), key)
        assert status in (200, 201), data
        shared = Shared()
        per_client = args.requests // args.connections
        threads = [
            threading.Thread(target=client, args=(port, key, per_client, shared, seed))
            for seed in range(args.connections)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        total = sum(shared.statuses.values())
        server_errors = sum(n for s, n in shared.statuses.items() if s >= 500)
        latencies = sorted(shared.latencies)
        print(f"requests: {total} over {args.connections} connections in {elapsed:.1f} s")
        print(f"throughput: {total / elapsed:.0f} req/s")
        print(
            f"latency: p50 {statistics.median(latencies) * 1000:.1f} ms, "
            f"p99 {latencies[int(len(latencies) * 0.99) - 1] * 1000:.1f} ms"
        )
        print(f"statuses: {dict(sorted(shared.statuses.items()))}")
        for (kind, status), count in sorted(shared.by_kind.items()):
            print(f"  {kind:18} {status}: {count}")
        print(f"5xx: {server_errors}")
    finally:
        os.killpg(stack.pid, signal.SIGTERM)
        try:
            stack.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(stack.pid, signal.SIGKILL)
        shutil.rmtree(instance, ignore_errors=True)


if __name__ == "__main__":
    main()
