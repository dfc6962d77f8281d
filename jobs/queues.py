"""Queue names and their workloads, kept apart so slow work never delays decisions."""

from __future__ import annotations

from redis import Redis
from rq import Queue

CLEARANCE = "clearance"  # judge calls: the hot path
INGEST = "ingest"  # extraction, chunking, embedding
NOTIFY = "notify"  # email and chat webhooks
LEDGER = "ledger"  # sealing and anchoring
DEFAULT = "default"

ALL = (CLEARANCE, INGEST, NOTIFY, LEDGER, DEFAULT)


def queue(name: str, connection: Redis) -> Queue:
    return Queue(name, connection=connection)


def all_queues(connection: Redis) -> list[Queue]:
    return [Queue(name, connection=connection) for name in ALL]
