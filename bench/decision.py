"""Decision-path benchmark (not a test): the approve path against GET /health, in one run.

It starts the whole stack the way `make run` does (gunicorn, RQ workers, cron; embedded Redis
and SQLite unless DATABASE_URL / REDIS_URL are given) in a scratch instance folder, then
measures with keep-alive HTTP clients in separate processes:

1. /health throughput (closed loop, 16 clients), the yardstick;
2. the approve path (the fast lane: POST /request-clearance answered 200 `approved`, decided in
   the web process) at 16 and at 4 connections: throughput, p50 and p99;
3. double spends: tokens each consumed by many concurrent clients; exactly one may win;
4. the slow lane: a second stack whose judge is a loopback server answering after 200 ms, with
   a 100 ms sync wait: the POST answers 202 and polling /clearance-status resolves it.

With ``--wrk`` (Debian package ``wrk``; the maintainers measure with it against `make run`) the
/health and approve-path phases are measured a second time by wrk, in C, with a Lua script for
the POST that counts every answer that is not 200 `approved`; the Python clients above are
separate processes that share the 2 cores with the stack and take their own share of CPU. The
load average (1 min) is printed next to every figure: the figures mean little on a busy machine.

Usage: .venv/bin/python bench/decision.py [--seconds 10] [--clients 16] [--tokens 500 --attempts 20] [--wrk]
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
ADMIN_KEY = "bench-admin-key-0123456789"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_stack(
    instance: Path, port: int, workers: int, **extra_env: str
) -> tuple[subprocess.Popen, str]:
    env = {
        **os.environ,
        **extra_env,
        "VAULT_INSTANCE_PATH": str(instance),
        "VAULT_PORT": str(port),
        "VAULT_HOST": "127.0.0.1",
        "VAULT_RATE_LIMIT_RPS": "0",
        "VAULT_CLEARANCE_ASYNC_WORKERS": str(workers),
        "LOG_LEVEL": "WARNING",
        "VAULT_ADMIN_API_KEY": ADMIN_KEY,
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
    if not key:
        # Not a first start (a PostgreSQL database used before): a fresh tenant for this run.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        status, created = call(
            conn, "POST", "/admin/tenants", {"name": "bench"}, {"X-Admin-API-Key": ADMIN_KEY}
        )
        if status != 201:
            raise SystemExit(f"could not create the bench tenant: {status} {created}")
        key = created["api_key"]
    return process, key


def wait_for(port: int, path: str, seconds: float = 180) -> None:
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


class SlowJudge:
    """A judge service on loopback that approves after 200 ms (the slow lane's remote judge)."""

    def __init__(self, delay: float = 0.2) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        answer = json.dumps(
            {
                "decision": "allow",
                "confidence": 0.97,
                "reason": "slow judge approves",
                "reason_code": "approved_by_policy",
                "policy_id": "payments",
                "policy_version_id": "pv",
                "policy_content_hash": "0" * 64,
            }
        ).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                time.sleep(delay)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *_args) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        import threading

        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


def slow_lane(args: tuple) -> list[tuple[int, float, float]]:
    """One client: POST, then poll until decided; (POST status, POST latency, resolution time)."""
    port, body, headers, count = args
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    results = []
    for _ in range(count):
        started = time.perf_counter()
        status, answer = call(conn, "POST", "/request-clearance", body, headers)
        answered = time.perf_counter() - started
        deadline = time.monotonic() + 30
        while answer.get("status") == "processing" and time.monotonic() < deadline:
            time.sleep(0.01)
            _, answer = call(
                conn, "GET", f"/clearance-status/{answer['request_id']}", None, headers
            )
        if answer.get("status") != "approved":
            raise SystemExit(f"slow lane did not resolve to approved: {answer}")
        results.append((status, answered, time.perf_counter() - started))
    return results


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


WRK_POST = """
wrk.method = "POST"
wrk.body = [[%s]]
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-Vault-API-Key"] = "%s"
response = function(status, headers, body)
  if status ~= 200 or not string.find(body, '"status":%%s*"approved"') then
    io.write("NOT-APPROVED " .. status .. "\\n")
  end
end
"""


def wrk(port: int, path: str, conns: int, seconds: float, post: tuple[dict, str] | None = None):
    """One wrk run: (req/s, p50 ms, p99 ms, answers that were not 200 approved, load before)."""
    load = os.getloadavg()[0]
    argv = ["wrk", f"-t{min(conns, 2)}", f"-c{conns}", f"-d{int(seconds)}s", "--latency"]
    script = None
    if post is not None:
        body, key = post
        script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
        script.write(WRK_POST % (json.dumps(body), key))
        script.close()
        argv += ["-s", script.name]
    try:
        out = subprocess.run(
            [*argv, f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, check=True
        ).stdout
    finally:
        if script is not None:
            os.unlink(script.name)
    rps = p50 = p99 = 0.0
    bad = out.count("NOT-APPROVED")
    for line in out.splitlines():
        parts = line.split()
        if line.startswith("Requests/sec:"):
            rps = float(parts[1])
        elif len(parts) == 2 and parts[0] in ("50%", "99%"):
            value = _wrk_ms(parts[1])
            p50, p99 = (value, p99) if parts[0] == "50%" else (p50, value)
        elif line.strip().startswith("Non-2xx"):
            bad = max(bad, int(parts[-1]))
        elif line.strip().startswith("Socket errors"):
            bad += sum(int(x.strip(",")) for x in parts if x.strip(",").isdigit())
    return rps, p50, p99, bad, load


def web_cpu_seconds(group: int) -> float:
    """CPU time (user + system) the web tier's processes (gunicorn's master and workers) of
    the stack's process group have used so far, from /proc."""
    ticks = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != group:
                continue
            if b"gunicorn" not in (entry / "cmdline").read_bytes():
                continue
            # the fields after the command name, which is in brackets and may hold spaces
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, ProcessLookupError):
            continue  # a process that ended meanwhile
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def _wrk_ms(text: str) -> float:
    for unit, factor in (("us", 0.001), ("ms", 1.0), ("s", 1000.0)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * factor
    return float(text)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


POLICY = {
    "policy_id": "payments",
    "tools": ["pay_*"],
    "rules": ["Payments above $10,000 are not allowed", "Payments must include an invoice_id"],
}
BODY = {
    "tool_name": "pay_invoice",
    "tool_args": {"amount": 120, "invoice_id": "INV-1"},
    "agent_id": "bench",
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2, help="clearance RQ workers")
    parser.add_argument("--tokens", type=int, default=500)
    parser.add_argument("--attempts", type=int, default=20, help="concurrent consumers per token")
    parser.add_argument("--slow-requests", type=int, default=40, help="slow-lane requests")
    parser.add_argument(
        "--wrk", action="store_true", help="measure /health and approvals with wrk too"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="wrk: alternate /health and the approve path at 16 connections this many times "
        "(the ratio is the median of the rounds, so a passing disturbance moves one round)",
    )
    args = parser.parse_args()
    if args.wrk and not shutil.which("wrk"):
        raise SystemExit("--wrk needs wrk on PATH (Debian: apt-get install -y wrk)")

    load_before = os.getloadavg()[0]
    instance = Path(tempfile.mkdtemp(prefix="vault-bench-"))
    port = free_port()
    started_at = time.perf_counter()
    stack, key = start_stack(instance, port, args.workers)
    headers = {"X-Vault-API-Key": key}
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        call(conn, "POST", "/register-policy", POLICY, headers)
        # The first clearance after start-up: the web workers warmed the judge, so it is 200.
        first_started = time.perf_counter()
        first_status, first = call(conn, "POST", "/request-clearance", BODY, headers)
        first_ms = (time.perf_counter() - first_started) * 1000
        if first_status != 200 or first["status"] != "approved":
            raise SystemExit(f"first request was not approved at once: {first_status} {first}")

        loads = {}
        with mp.Pool(args.clients) as pool:
            loads["health"] = os.getloadavg()[0]
            health_rps, health_lat = run_clients(
                pool,
                closed_loop,
                (port, "GET", "/health", None, {}, args.seconds, None),
                args.clients,
            )
            loads["clear16"] = os.getloadavg()[0]
            clear_rps, clear_lat = run_clients(
                pool,
                closed_loop,
                (port, "POST", "/request-clearance", BODY, headers, args.seconds, "approved"),
                args.clients,
            )
            loads["clear4"] = os.getloadavg()[0]
            four_rps, four_lat = run_clients(
                pool,
                closed_loop,
                (port, "POST", "/request-clearance", BODY, headers, args.seconds, "approved"),
                4,
            )

            # Double spends: mint tokens, then have `attempts` clients race for each one.
            tokens = [
                call(conn, "POST", "/request-clearance", BODY, headers)[1]["token"]
                for _ in range(args.tokens)
            ]
            shares = [(port, headers, tokens) for _ in range(args.attempts)]
            started = time.perf_counter()
            outcomes = pool.map(consume_many, shares)
            consume_elapsed = time.perf_counter() - started
        wrk_results = {}
        ratios = []
        # The web tier's CPU per request, by path: the ratio of the two is what the approve
        # path can reach against /health when the cores, not waiting, are the limit.
        cpu_ms: dict[str, list[float]] = {"health": [], "approve": []}

        def measured(kind: str, *wrk_args) -> tuple:  # noqa: ANN002
            before = web_cpu_seconds(stack.pid)
            result = wrk(*wrk_args)
            spent = web_cpu_seconds(stack.pid) - before
            cpu_ms[kind].append(spent * 1000 / max(1.0, result[0] * args.seconds))
            return result

        if args.wrk:
            post = (BODY, key)
            for round_ in range(1, args.rounds + 1):
                health = wrk_results[f"health 16 #{round_}"] = measured(
                    "health", port, "/health", 16, args.seconds
                )
                approve = wrk_results[f"approve 16 #{round_}"] = measured(
                    "approve", port, "/request-clearance", 16, args.seconds, post
                )
                ratios.append(approve[0] / health[0])
            wrk_results["approve 4"] = wrk(port, "/request-clearance", 4, args.seconds, post)
            wrk_results["approve 1"] = wrk(port, "/request-clearance", 1, args.seconds, post)
        wins_per_token = [
            sum(1 for client in outcomes if client[i] == 200) for i in range(len(tokens))
        ]
        replays = sum(1 for client in outcomes for s in client if s == 409)
        double_spends = sum(1 for w in wins_per_token if w > 1)
        lost = sum(1 for w in wins_per_token if w == 0)
    finally:
        os.killpg(stack.pid, signal.SIGTERM)
        stack.wait(60)

    # The slow lane: the same instance (database, signing key) restarted with a remote judge
    # that takes 200 ms.
    judge = SlowJudge(0.2)
    slow_port = free_port()
    slow_env = {
        "VAULT_JUDGE_URL": judge.url,
        "VAULT_JUDGE_API_KEY": "bench-judge-key-0123456789abcdef",
        "VAULT_CLEARANCE_SYNC_WAIT_MS": "100",
    }
    stack, key = start_stack(instance, slow_port, args.workers, **slow_env)
    try:
        slow_headers = {"X-Vault-API-Key": key}
        call(
            http.client.HTTPConnection("127.0.0.1", slow_port, timeout=30),
            "POST",
            "/register-policy",
            POLICY,
            slow_headers,
        )
        per_client = max(1, args.slow_requests // 4)
        with mp.Pool(4) as pool:
            slow = [
                r
                for chunk in pool.map(slow_lane, [(slow_port, BODY, slow_headers, per_client)] * 4)
                for r in chunk
            ]
    finally:
        os.killpg(stack.pid, signal.SIGTERM)
        stack.wait(60)
        shutil.rmtree(instance, ignore_errors=True)
        judge.server.shutdown()

    print(
        f"machine: {os.cpu_count()} cores, load before the run {load_before:.1f}; "
        f"clients {args.clients}; clearance workers {args.workers}; {args.seconds:.0f} s per phase; "
        f"database {os.environ.get('DATABASE_URL', 'embedded SQLite')}"
    )
    print(f"first clearance after start-up: {first_status} {first['status']} in {first_ms:.1f} ms")
    print("Python clients (separate processes on the same cores):")
    print(
        f"GET /health (16 conns)      {health_rps:8.0f} req/s   p50 {pct(health_lat, 0.5):6.1f} ms  p99 {pct(health_lat, 0.99):6.1f} ms   load {loads['health']:.1f}"
    )
    print(
        f"approve path (16 conns)     {clear_rps:8.0f} req/s   p50 {pct(clear_lat, 0.5):6.1f} ms  p99 {pct(clear_lat, 0.99):6.1f} ms   load {loads['clear16']:.1f}"
    )
    print(
        f"approve path (4 conns)      {four_rps:8.0f} req/s   p50 {pct(four_lat, 0.5):6.1f} ms  p99 {pct(four_lat, 0.99):6.1f} ms   load {loads['clear4']:.1f}   (target p99 ≤ 15 ms)"
    )
    print(
        f"ratio approve / health      {clear_rps / health_rps:8.1%}   (target ≥ 25 % SQLite, ≥ 20 % PostgreSQL)"
    )
    if wrk_results:
        print("wrk (2 threads at most, keep-alive):")
        for name, (rps, p50, p99, bad, load) in wrk_results.items():
            print(
                f"wrk {name:10s} conns      {rps:8.0f} req/s   p50 {p50:6.1f} ms  p99 {p99:6.1f} ms   load {load:.1f}   not 200/approved: {bad}"
            )
        print(
            f"wrk ratio approve / health  {statistics.median(ratios):8.1%}   (median of "
            + ", ".join(f"{r:.1%}" for r in ratios)
            + ")"
        )
        health_cpu = statistics.median(cpu_ms["health"])
        approve_cpu = statistics.median(cpu_ms["approve"])
        print(
            f"web tier CPU per request    /health {health_cpu:.2f} ms, approve {approve_cpu:.2f} ms "
            f"(medians of the rounds): with the cores as the limit, the approve path can reach "
            f"{health_cpu / approve_cpu:.1%} of /health"
        )
    attempts = args.tokens * args.attempts
    print(
        f"consume: {attempts} concurrent attempts on {args.tokens} tokens in {consume_elapsed:.1f} s: "
        f"{sum(wins_per_token)} burned, {replays} refused as replays, double spends {double_spends}, "
        f"tokens never burned {lost}   (target 0 double spends)"
    )
    statuses = {code: sum(1 for r in slow if r[0] == code) for code in sorted({r[0] for r in slow})}
    print(
        f"slow lane (200 ms judge, 100 ms sync wait, 4 clients): POST answered {statuses}, "
        f"POST p50 {pct([r[1] for r in slow], 0.5):.0f} ms; resolved by polling: "
        f"p50 {pct([r[2] for r in slow], 0.5):.0f} ms  p99 {pct([r[2] for r in slow], 0.99):.0f} ms"
    )
    print(f"whole run {time.perf_counter() - started_at:.0f} s")


if __name__ == "__main__":
    main()
