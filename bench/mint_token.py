"""Decision-cache benchmark (not a test): POST /mint-token against POST /request-clearance.

It starts the whole stack the way `make run` does (reusing bench/decision.py's start-up), then
one keep-alive client alternates, for the same call, a full clearance (answered `approved`
inside the sync wait: queue hop, worker, judge) and a mint from the first approval (the rules
re-run in the web process, no queue). Both in the same run, so the ratio is what counts.

Usage: .venv/bin/python bench/mint_token.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import http.client
import os
import shutil
import signal
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from decision import call, free_port, pct, start_stack  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    instance = Path(tempfile.mkdtemp(prefix="vault-bench-"))
    port = free_port()
    stack, key = start_stack(instance, port, 2)
    headers = {"X-Vault-API-Key": key}
    body = {
        "tool_name": "pay_invoice",
        "tool_args": {"amount": 120, "invoice_id": "INV-1"},
        "agent_id": "bench",
    }
    clear_lat: list[float] = []
    mint_lat: list[float] = []
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        rules = ["Payments above $10,000 are not allowed", "Payments must include an invoice_id"]
        call(
            conn,
            "POST",
            "/register-policy",
            {"policy_id": "payments", "tools": ["pay_*"], "rules": rules},
            headers,
        )
        original = None
        for _ in range(8):  # warm-up: the first judgement loads the engine in each worker
            status, original = call(conn, "POST", "/request-clearance", body, headers)
            deadline = time.monotonic() + 60
            while original["status"] == "processing" and time.monotonic() < deadline:
                time.sleep(0.2)
                _, original = call(
                    conn, "GET", f"/clearance-status/{original['request_id']}", None, headers
                )
        if not original or original["status"] != "approved":
            raise SystemExit(f"warm-up request was not approved: {original}")
        mint_body = {
            **body,
            "session_id": "",
            "policy_id": "",
            "policy_version_id": original["policy_version_id"],
            "policy_content_hash": original["policy_content_hash"],
            "original_request_id": original["request_id"],
            "confidence_bucket": original["confidence_bucket"],
            "reason": original["reason"],
        }
        for _ in range(args.rounds):
            started = time.perf_counter()
            status, answer = call(conn, "POST", "/request-clearance", body, headers)
            if status != 200 or answer.get("status") != "approved":
                raise SystemExit(f"clearance was not approved inside the wait: {answer}")
            clear_lat.append(time.perf_counter() - started)
            started = time.perf_counter()
            status, answer = call(
                conn,
                "POST",
                "/mint-token",
                mint_body,
                {**headers, "Idempotency-Key": str(uuid.uuid4())},
            )
            if status != 200 or not answer.get("token"):
                raise SystemExit(f"mint failed: {status} {answer}")
            mint_lat.append(time.perf_counter() - started)
    finally:
        os.killpg(stack.pid, signal.SIGTERM)
        stack.wait(60)
        shutil.rmtree(instance, ignore_errors=True)
    print(f"rounds: {args.rounds}")
    print(f"request-clearance p50 {pct(clear_lat, 0.5):.1f} ms  p99 {pct(clear_lat, 0.99):.1f} ms")
    print(f"mint-token        p50 {pct(mint_lat, 0.5):.1f} ms  p99 {pct(mint_lat, 0.99):.1f} ms")
    print(f"mint / clearance p50 ratio: {pct(mint_lat, 0.5) / pct(clear_lat, 0.5):.2f}")


if __name__ == "__main__":
    main()
