"""A live vault for the real public client: a werkzeug server on loopback serving the app, and
a real RQ worker process (`rq worker`, as `make run` starts one) working its queues."""

from __future__ import annotations

import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from werkzeug.serving import make_server

from tests.conftest import (
    ADMIN_KEY,
    TenantHandle,
    _reset_state,
    bootstrap,
    make_config,
    make_tenant,
)
from tests.helpers import start_rq_worker


@dataclass
class LiveVault:
    url: str
    app: object

    def new_tenant(self, name: str) -> TenantHandle:
        return make_tenant(self.app, name)

    def seal(self, client_id: str) -> list[dict]:
        """Seal the tenant's pending ledger events now (CONTRACT §12)."""
        response = httpx.post(
            f"{self.url}/admin/ledger/seal",
            json={"client_id": client_id},
            headers={"X-Admin-API-Key": ADMIN_KEY},
        )
        assert response.status_code == 200, response.text
        return response.json()["checkpoints"]


@pytest.fixture(scope="module")
def live_vault(workdir, database_url, redis_url, _migrated):
    from jobs.runtime import set_app
    from webapp import create_app

    app = create_app(
        make_config(
            workdir,
            database_url,
            redis_url,
            clearance_sync_wait_ms=15_000,
            webhook_allow_private=True,
            notify_retry_intervals=(1, 1, 1),
        )
    )
    bootstrap(app)
    set_app(None)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    worker = _start_worker(workdir, database_url, redis_url)
    try:
        yield LiveVault(f"http://127.0.0.1:{server.server_port}", app)
    finally:
        worker.terminate()
        worker.wait(20)
        server.shutdown()
        _reset_state(app)


def _start_worker(workdir: Path, database_url: str, redis_url: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "VAULT_INSTANCE_PATH": str(workdir / "instance"),
        "VAULT_WEBHOOK_ALLOW_PRIVATE": "true",
        "VAULT_NOTIFY_RETRY_INTERVALS": "1,1,1",
        "LOG_FORMAT": "text",
    }
    from webapp.queueing import ALL

    return start_rq_worker(redis_url, env, ALL, with_scheduler=True)
