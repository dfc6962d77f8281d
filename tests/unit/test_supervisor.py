"""The `make run` supervisor restarts a dying child with backoff for as long as it takes, and
never stops the others because of it (issue 16 §2). Real child processes."""

from __future__ import annotations

import sys
import threading
import time

from jobs import supervisor
from jobs.supervisor import Child, supervise


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_a_child_that_keeps_dying_is_restarted_and_the_others_keep_running(monkeypatch, tmp_path):
    monkeypatch.setattr(supervisor, "BACKOFF_FIRST", 0.05)
    monkeypatch.setattr(supervisor, "BACKOFF_MAX", 0.2)
    marker = tmp_path / "runs"
    dying = Child(
        "cron",
        [sys.executable, "-c", f"open({str(marker)!r}, 'a').write('x'); raise SystemExit(1)"],
    )
    web = Child("web", [sys.executable, "-c", "import time; time.sleep(60)"])
    children = [web, dying]
    for child in children:
        child.start({})
    web_pid = web.process.pid
    stop = threading.Event()
    thread = threading.Thread(target=supervise, args=(children, {}, stop.is_set), daemon=True)
    thread.start()
    try:
        # Far more deaths than the old "5 in a minute, then stop the stack" rule allowed.
        assert wait_for(lambda: marker.exists() and len(marker.read_text()) >= 12, 30)
        assert thread.is_alive()
        assert web.alive() and web.process.pid == web_pid
    finally:
        stop.set()
        thread.join(5)
        web.process.kill()
        web.process.wait()


def test_backoff_doubles_up_to_its_cap_and_resets_after_a_stable_run():
    child = Child("worker", ["true"])
    child.started_at = 100.0
    delays = [child.schedule_restart(100.0 + i) for i in range(10)]
    assert delays[:4] == [0.5, 1.0, 2.0, 4.0]
    assert max(delays) == supervisor.BACKOFF_MAX
    # A child that ran long enough before dying starts again from the shortest delay.
    child.started_at = 0.0
    assert child.schedule_restart(supervisor.STABLE_SECONDS + 1) == supervisor.BACKOFF_FIRST


def test_a_port_with_a_listener_is_taken_and_the_stack_refuses_to_start(monkeypatch, tmp_path):
    # The web workers bind with SO_REUSEPORT; without the check a second vault of the same user
    # on the same port would start and share the first one's traffic.
    import socket

    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    try:
        assert supervisor.port_taken("127.0.0.1", port)
        monkeypatch.setenv("VAULT_HOST", "127.0.0.1")
        monkeypatch.setenv("VAULT_PORT", str(port))
        monkeypatch.setenv("VAULT_INSTANCE_PATH", str(tmp_path / "instance"))
        assert supervisor.main() == 1
        assert not (tmp_path / "instance").exists()  # refused before anything was started
    finally:
        listener.close()
    assert not supervisor.port_taken("127.0.0.1", port)
