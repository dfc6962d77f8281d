"""The RQ worker class `make run` starts: RQ's SimpleWorker, which registers itself again when
Redis has lost its record.

RQ registers a worker once, at start. A worker that rides out a Redis restart without
persistence (it retries the connection) keeps working, but its record and its place in the
per-queue worker sets are gone, so `rq info` and `/ready` (which counts live clearance workers)
no longer see it. Each heartbeat here checks the registration and writes it again if missing.
"""

from __future__ import annotations

from typing import Any

from rq import worker_registration
from rq.worker import SimpleWorker


class VaultWorker(SimpleWorker):
    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        super().heartbeat(timeout, pipeline)
        if pipeline is not None:
            return  # part of a job's bookkeeping; the idle loop's heartbeats check below
        if self.connection.sismember(worker_registration.REDIS_WORKER_KEYS, self.key):
            return
        self.log.warning(
            "Worker %s: its record was lost (Redis restarted?); registering again", self.name
        )
        with self.connection.pipeline() as registration:
            registration.hset(self.key, mapping=self.serialize())
            worker_registration.register(self, registration)
            registration.expire(self.key, timeout or self.worker_ttl + 60)
            registration.execute()
