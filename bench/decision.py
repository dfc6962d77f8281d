"""Decision-path benchmark (not a test): the approve path against GET /health, in one run.

It starts the whole stack the way `make run` does (gunicorn, RQ workers, cron; embedded Redis
and SQLite unless DATABASE_URL / REDIS_URL are given) in a scratch instance folder, then
measures with keep-alive HTTP clients in separate processes:

1. /health throughput (closed loop), the yardstick;
2. the approve path: POST /request-clearance answered 200 `approved` inside the sync wait;
3. latency of the approve path at half of its maximum throughput (open loop, paced);
4. double spends: tokens each consumed by many concurrent clients; exactly one may win.

Usage: .venv/bin/python bench/decision.py [--seconds 10] [--clients 16] [--tokens 500 --attempts 20]
Rate limiting is switched off for the run (VAULT_RATE_LIMIT_RPS=0): it would cap one key at 20/s.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_stack(instance: Path, port: int, workers: int) -> tuple[subprocess.Popen, str]:
    env = {
        **os.environ,
        "VAULT_INSTANCE_PATH": str(instance),
        "VAULT_PORT": str(port),
        "VAULT_HOST": "127.0.0.1",
        "VAULT_RATE_LIMIT_RPS": "0",
        "VAULT_CLEARANCE_ASYNC_WORKERS": str(workers),
        "LOG_LEVEL": "WARNING",
        "VAULT_ADMIN_API_KEY": "bench-admin-key-0123456789",
    }
    process = subprocess.Popen(
        [PY, "jobs/supervisor.py"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    key = ""
    deadline = time.monotonic() + 120
    for line in process.stdout:
        if "API key" in line:
            key = line.split()[-1]
        if "listening on" in line or time.monotonic() > deadline:
            break
    wait_for(port, "/health")
    return process, key


def wait_for(port: int, path: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", path)
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"the stack did not answer {path}")


def call(
    conn: http.client.HTTPConnection, method: str, path: str, body: dict | None, headers: dict
) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    sent_headers = {**headers, "Content-Type": "application/json"} if data else headers
    try:
        conn.request(method, path, body=data, headers=sent_headers)
        response = conn.getresponse()
    except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
        # The server closed an idle keep-alive connection: reconnect once.
        conn.close()
        conn.request(method, path, body=data, headers=sent_headers)
        response = conn.getresponse()
    payload = response.read()
    return response.status, (json.loads(payload) if payload else {})


def closed_loop(args: tuple) -> list[float]:
    """One client: as many requests as it can for `seconds`; returns latencies."""
    port, method, path, body, headers, seconds, expect = args
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    latencies = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        started = time.perf_counter()
        status, payload = call(conn, method, path, body, headers)
        if status != 200 or (expect and payload.get("status") != expect):
            raise SystemExit(f"unexpected answer {status} {payload}")
        latencies.append(time.perf_counter() - started)
    return latencies


def paced(args: tuple) -> list[float]:
    """One client sending at a fixed rate (open loop); latency counts from the scheduled time."""
    port, path, body, headers, seconds, rate, phase = args
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    latencies = []
    # Clients are spread over the interval (phase in [0, 1)), or they would all fire at once.
    start = time.perf_counter() + phase / rate
    sent = 0
    while (now := time.perf_counter()) - start < seconds:
        scheduled = start + sent / rate
        if now < scheduled:
            time.sleep(scheduled - now)
        status, payload = call(conn, "POST", path, body, headers)
        if status != 200 or payload.get("status") != "approved":
            raise SystemExit(f"unexpected answer {status} {payload}")
        latencies.append(time.perf_counter() - scheduled)
        sent += 1
    return latencies


def consume_many(args: tuple) -> list[int]:
    port, headers, tokens = args
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    return [call(conn, "POST", "/consume-token", {"token": t}, headers)[0] for t in tokens]


def run_clients(
    pool: mp.Pool, func, argument: tuple | list[tuple], clients: int
) -> tuple[float, list[float]]:
    arguments = argument if isinstance(argument, list) else [argument] * clients
    started = time.perf_counter()
    results = pool.map(func, arguments)
    elapsed = time.perf_counter() - started
    latencies = [x for chunk in results for x in chunk]
    return len(latencies) / elapsed, latencies


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2, help="clearance RQ workers")
    parser.add_argument("--tokens", type=int, default=500)
    parser.add_argument("--attempts", type=int, default=20, help="concurrent consumers per token")
    args = parser.parse_args()

    instance = Path(tempfile.mkdtemp(prefix="vault-bench-"))
    port = free_port()
    stack, key = start_stack(instance, port, args.workers)
    headers = {"X-Vault-API-Key": key}
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        call(
            conn,
            "POST",
            "/register-policy",
            {
                "policy_id": "payments",
                "tools": ["pay_*"],
                "rules": [
                    "Payments above $10,000 are not allowed",
                    "Payments must include an invoice_id",
                ],
            },
            headers,
        )
        body = {
            "tool_name": "pay_invoice",
            "tool_args": {"amount": 120, "invoice_id": "INV-1"},
            "agent_id": "bench",
        }
        # Warm up: the first judgement loads the engine in each worker.
        for _ in range(args.workers * 4):
            status, first = call(conn, "POST", "/request-clearance", body, headers)
            deadline = time.monotonic() + 60
            while first["status"] == "processing" and time.monotonic() < deadline:
                time.sleep(0.2)
                status, first = call(
                    conn, "GET", f"/clearance-status/{first['request_id']}", None, headers
                )
            if first["status"] != "approved":
                raise SystemExit(f"warm-up request was not approved: {first}")

        with mp.Pool(args.clients) as pool:
            health_rps, health_lat = run_clients(
                pool,
                closed_loop,
                (port, "GET", "/health", None, {}, args.seconds, None),
                args.clients,
            )
            clear_rps, clear_lat = run_clients(
                pool,
                closed_loop,
                (port, "POST", "/request-clearance", body, headers, args.seconds, "approved"),
                args.clients,
            )
            half = clear_rps / 2
            per_client = half / args.clients
            _, paced_lat = run_clients(
                pool,
                paced,
                [
                    (
                        port,
                        "/request-clearance",
                        body,
                        headers,
                        args.seconds,
                        per_client,
                        i / args.clients,
                    )
                    for i in range(args.clients)
                ],
                args.clients,
            )

            # Double spends: mint tokens, then have `attempts` clients race for each one.
            tokens = [
                call(conn, "POST", "/request-clearance", body, headers)[1]["token"]
                for _ in range(args.tokens)
            ]
            shares = [(port, headers, tokens) for _ in range(args.attempts)]
            started = time.perf_counter()
            outcomes = pool.map(consume_many, shares)
            consume_elapsed = time.perf_counter() - started
        wins_per_token = [
            sum(1 for client in outcomes if client[i] == 200) for i in range(len(tokens))
        ]
        replays = sum(1 for client in outcomes for s in client if s == 409)
        double_spends = sum(1 for w in wins_per_token if w > 1)
        lost = sum(1 for w in wins_per_token if w == 0)
    finally:
        os.killpg(stack.pid, signal.SIGTERM)
        stack.wait(60)
        shutil.rmtree(instance, ignore_errors=True)

    print(
        f"machine: {os.cpu_count()} cores; clients {args.clients}; clearance workers {args.workers}; "
        f"{args.seconds:.0f} s per phase; database {os.environ.get('DATABASE_URL', 'embedded SQLite')}"
    )
    print(
        f"GET /health                 {health_rps:8.0f} req/s   p50 {pct(health_lat, 0.5):6.1f} ms  p99 {pct(health_lat, 0.99):6.1f} ms"
    )
    print(
        f"approve path (max)          {clear_rps:8.0f} req/s   p50 {pct(clear_lat, 0.5):6.1f} ms  p99 {pct(clear_lat, 0.99):6.1f} ms"
    )
    print(f"ratio clearance / health    {clear_rps / health_rps:8.1%}   (target ≥ 40 %)")
    print(
        f"approve path at {half:.0f} req/s   p50 {pct(paced_lat, 0.5):6.1f} ms  p99 {pct(paced_lat, 0.99):6.1f} ms   (target p99 ≤ 50 ms)"
    )
    attempts = args.tokens * args.attempts
    print(
        f"consume: {attempts} concurrent attempts on {args.tokens} tokens in {consume_elapsed:.1f} s: "
        f"{sum(wins_per_token)} burned, {replays} refused as replays, double spends {double_spends}, "
        f"tokens never burned {lost}   (target 0 double spends)"
    )
    print(f"median health latency {statistics.median(health_lat) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
