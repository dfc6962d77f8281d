"""Tool gateway overhead (not a test): a call through the gateway against the same call made
straight to the upstream, in one run.

It starts the whole vault stack the way `make run` does (through bench/decision.py's helper), a
small upstream HTTP service, and the gateway the way `make gateway` does (gunicorn, 2 workers ×
16 threads), all on loopback. It mints approval tokens through the real approve path, then, from
one keep-alive client, interleaves:

1. the upstream called directly (the yardstick);
2. `POST /consume-token` at the vault alone (what the gateway adds, in one round trip);
3. the same call through the gateway with a fresh token each time (consume + forward).

It also prints the CPU time the gateway's processes spent per call, which does not depend on how
busy the machine is (wall-clock figures on the shared 2-core VM do).

Usage: .venv/bin/python bench/gateway.py [--calls 500]
Rate limiting is switched off for the run (VAULT_RATE_LIMIT_RPS=0).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from decision import call, free_port, pct, start_stack, wait_for  # noqa: E402

PY = sys.executable
ARGS = {"amount": 120, "invoice_id": "INV-1"}
UPSTREAM = """
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Head and body go out in two writes: without this, Nagle holds the body for the client's
    # delayed ACK (40 ms) whenever the client is not http.client.
    disable_nagle_algorithm = True
    def do_GET(self):
        self._answer(b"")
    def do_POST(self):
        self._answer(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
    def _answer(self, body):
        payload = json.dumps({"ok": True, "echo": json.loads(body) if body else None}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Echo)
server.daemon_threads = True
server.serve_forever()
"""


def mint(port: int, headers: dict, count: int) -> list[str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    body = {"tool_name": "pay_invoice", "tool_args": ARGS, "agent_id": "bench"}
    tokens = []
    while len(tokens) < count:
        status, answer = call(conn, "POST", "/request-clearance", body, headers)
        deadline = time.monotonic() + 60
        while answer.get("status") == "processing" and time.monotonic() < deadline:
            time.sleep(0.05)
            status, answer = call(
                conn, "GET", f"/clearance-status/{answer['request_id']}", None, headers
            )
        if answer.get("status") != "approved":
            raise SystemExit(f"not approved: {status} {answer}")
        tokens.append(answer["token"])
    return tokens


def timed(conn: http.client.HTTPConnection, path: str, body: dict, headers: dict) -> float:
    started = time.perf_counter()
    status, _ = call(conn, "POST", path, body, headers)
    elapsed = time.perf_counter() - started
    if status != 200:
        raise SystemExit(f"unexpected {status} on {path}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=500)
    args = parser.parse_args()

    instance = Path(tempfile.mkdtemp(prefix="vault-bench-gateway-"))
    vault_port, upstream_port, gateway_port = free_port(), free_port(), free_port()
    processes: list[subprocess.Popen] = []
    try:
        stack, key = start_stack(instance, vault_port, 2)
        processes.append(stack)
        headers = {"X-Vault-API-Key": key}
        conn = http.client.HTTPConnection("127.0.0.1", vault_port, timeout=30)
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
        processes.append(
            subprocess.Popen([PY, "-c", UPSTREAM, str(upstream_port)], start_new_session=True)
        )
        routes = instance / "routes.json"
        routes.write_text(
            json.dumps(
                {
                    "routes": [
                        {
                            "path": "/pay",
                            "methods": ["POST"],
                            "tool": "pay_invoice",
                            "upstream": f"http://127.0.0.1:{upstream_port}",
                        }
                    ]
                }
            )
        )
        env = {
            **os.environ,
            "GATEWAY_PORT": str(gateway_port),
            "GATEWAY_VAULT_URL": f"http://127.0.0.1:{vault_port}",
            "GATEWAY_VAULT_API_KEY": key,
            "GATEWAY_ROUTES_FILE": str(routes),
        }
        processes.append(
            subprocess.Popen(
                [PY, "-m", "gateway"],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        )
        wait_for(upstream_port, "/pay")
        wait_for_port(gateway_port)

        warm = 20
        tokens = mint(vault_port, headers, 2 * (args.calls + warm))
        direct_conn = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=30)
        vault_conn = http.client.HTTPConnection("127.0.0.1", vault_port, timeout=30)
        gateway_conn = http.client.HTTPConnection("127.0.0.1", gateway_port, timeout=30)
        direct, consume, gateway = [], [], []
        gateway_group = processes[-1].pid
        cpu_before = 0.0
        for index in range(args.calls + warm):
            if index == warm:
                cpu_before = group_cpu_seconds(gateway_group)
            d = timed(direct_conn, "/pay", ARGS, {})
            c = timed(
                vault_conn,
                "/consume-token",
                {"token": tokens.pop(), "tool_name": "pay_invoice", "tool_args": ARGS},
                headers,
            )
            g = timed(gateway_conn, "/pay", ARGS, {"Authorization": f"Bearer {tokens.pop()}"})
            if index >= warm:
                direct.append(d)
                consume.append(c)
                gateway.append(g)
        cpu_per_call = (group_cpu_seconds(gateway_group) - cpu_before) / args.calls
    finally:
        for process in reversed(processes):
            os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        shutil.rmtree(instance, ignore_errors=True)

    print(f"{args.calls} calls each, one keep-alive client, interleaved")
    print(f"{'':32} {'p50 ms':>8} {'p99 ms':>8}")
    for name, values in (
        ("upstream directly", direct),
        ("consume-token alone", consume),
        ("through the gateway", gateway),
    ):
        print(f"{name:32} {pct(values, 0.5):8.2f} {pct(values, 0.99):8.2f}")
    print(
        f"gateway overhead: p50 +{pct(gateway, 0.5) - pct(direct, 0.5):.2f} ms, "
        f"p99 +{pct(gateway, 0.99) - pct(direct, 0.99):.2f} ms; "
        f"ratio gateway/direct p50 {pct(gateway, 0.5) / pct(direct, 0.5):.1f}x"
    )
    print(f"gateway processes' own CPU per call: {cpu_per_call * 1000:.2f} ms")
    print(f"load average after the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def group_cpu_seconds(group: int) -> float:
    """User + system CPU of every live process in a process group (gunicorn and its workers)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group:  # field 5 of stat: the process group id
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def wait_for_port(port: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/")
            conn.getresponse().read()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the gateway did not start")


if __name__ == "__main__":
    main()
