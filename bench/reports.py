"""Report benchmark (not a test): a SOX 404 report over 1,000,000 ledger events.

One tenant gets N ledger events and N matching clearance requests spread over 30 days (two in
three approved, one in fifty reviewed, tokens burned for most approvals, a few args_mismatch
burns), all sealed by the production sealer. The first event is built exactly as `append_event`
builds it (bench/ledger.py's builder); the others reuse its encrypted content and receipt and get
their own uuid, request id and event/leaf hashes, because signing and encrypting a million events
takes most of an hour on this shared machine and a report never opens a decision or checks a
receipt (full verification does; bench/ledger.py measures that on real rows).
Then a real RQ worker process (`SimpleWorker`, burst) builds the report through
`jobs.reports.build_report`: the time from queueing to `ready`, and the worker's peak RSS
(`ru_maxrss` of that process, which includes the app's imports), are printed, with the worker's
RSS before the job as the baseline of the same run.

Usage:
  .venv/bin/python bench/reports.py [--events 1000000] [--db sqlite|postgresql]
      [--pg postgresql+psycopg://postgres@127.0.0.1:5432/postgres]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import ledger as ledger_bench  # noqa: E402 - bench/ledger.py: the bulk event builder

CHUNK = 20_000
DAYS = 30


def _event_rows(template: tuple, start: int, count: int) -> list[tuple]:
    """Rows like `template` (one real event) for events [start, start + count)."""
    from webapp.ledger.events import leaf_hash_hex
    from webapp.ledger.verify import confidence_bucket

    columns = ledger_bench.EVENT_COLUMNS
    at = {name: index for index, name in enumerate(columns)}
    rows = []
    for number in range(start, start + count):
        if number == 0:
            rows.append(template)
            continue
        made = ledger_bench._decision(number)
        row = list(template)
        event_hash = hashlib.sha256(f"bench-event-{number}".encode()).hexdigest()
        row[at["event_uuid"]] = str(uuid.uuid4())
        row[at["request_id"]] = made["request_id"]
        row[at["approved"]] = made["approved"]
        row[at["confidence"]] = made["confidence"]
        row[at["confidence_bucket"]] = confidence_bucket(made["confidence"])
        row[at["decision_status"]] = "approved" if made["approved"] else "denied"
        row[at["event_hash"]] = event_hash
        row[at["leaf_hash"]] = leaf_hash_hex(event_hash)
        rows.append(tuple(row))
    return rows


def _requests(client_id: str, start: int, count: int, now: datetime) -> list[dict]:
    """Clearance requests [start, start + count), the same decisions as the ledger events."""
    rows = []
    for number in range(start, start + count):
        made = ledger_bench._decision(number)
        decided = now - timedelta(seconds=(number * 2_591) % (DAYS * 86400))
        reviewed = number % 50 == 0
        approved = made["approved"]
        rows.append(
            {
                "request_id": made["request_id"],
                "client_id": client_id,
                "agent_id": f"agent-{number % 7}",
                "session_id": "",
                "tool_name": "payments.transfer",
                "tool_args": made["content"]["tool_args"],
                "tool_args_hash": "b" * 64,
                "policy_hint": "",
                "action_metadata": {"human_principal": f"user{number % 13}@bank.example"},
                "status": "approved" if approved else "denied",
                "approved": approved,
                "confidence": made["confidence"],
                "threshold": 0.8,
                "reason": made["content"]["reason"],
                "reason_code": (
                    ("approved_by_reviewer" if approved else "reviewer_denied")
                    if reviewed
                    else ("approved_by_policy" if approved else "rule_violated")
                ),
                "policy_id": "payouts",
                "policy_version_id": "pv_1",
                "policy_content_hash": "a" * 64,
                "citations": [],
                "evidence_chunks": [],
                "decided_by": "reviewer" if reviewed else "rules",
                "judge_verdict": {},
                "token": None,
                "token_jti": f"jti_{number:012d}" if approved else None,
                "reviewer_email": f"reviewer{number % 3}@bank.example" if reviewed else "",
                "reviewer_verified": reviewed,
                "review_reason": "checked the invoice" if reviewed else "",
                "attempts": 1,
                "created_at": decided - timedelta(seconds=2),
                "updated_at": decided,
                "review_started_at": decided - timedelta(seconds=60 + number % 7200)
                if reviewed
                else None,
                "decided_at": decided,
            }
        )
    return rows


def _burns(client_id: str, start: int, count: int, now: datetime) -> list[dict]:
    rows = []
    for number in range(start, start + count):
        if number % 3 == 0 or number % 10 == 1:  # denials have no token; some are never used
            continue
        rows.append(
            {
                "jti": f"jti_{number:012d}",
                "client_id": client_id,
                "request_id": f"req_{number:012d}",
                "outcome": "args_mismatch" if number % 997 == 2 else "consumed",
                "consumed_at": now - timedelta(seconds=(number * 2_591) % (DAYS * 86400) - 5),
            }
        )
    return rows


def build(options, database_url: str, redis_url: str) -> dict:
    from flask_migrate import upgrade
    from sqlalchemy import insert

    from config import Config
    from webapp import create_app
    from webapp.cli import init_migrations
    from webapp.extensions import db
    from webapp.models import BurnedToken, ClearanceRequest
    from webapp.runtime import vault
    from webapp.secrets import signing_seed
    from webapp.services import keys, sealing, tenants

    instance = Path(tempfile.mkdtemp(prefix="report-bench-"))
    config = Config.from_env(
        {},
        env="test",
        instance_path=instance,
        database_url=database_url,
        redis_url=redis_url,
        rate_limit_rps=0,
        log_level="WARNING",
        log_format="text",
    )
    app = create_app(config)
    init_migrations(app)
    with app.app_context():
        upgrade()
        keys.ensure_active_key_registered()
        tenant, _ = tenants.create_tenant("Bench tenant")
        client_id = tenant.client_id
        seed, transport_key = signing_seed(config), vault().transport_key
        key_id = vault().signer.key_id
        db.engine.dispose()
    now = datetime.now(UTC) - timedelta(minutes=5)
    started = time.perf_counter()
    [template] = ledger_bench._make_rows((client_id, seed, transport_key, key_id, 0, 1))
    for start in range(0, options.events, CHUNK):
        rows = _event_rows(template, start, min(CHUNK, options.events - start))
        with app.app_context():
            ledger_bench.insert_rows(app, rows)
    with app.app_context():
        for start in range(0, options.events, CHUNK):
            count = min(CHUNK, options.events - start)
            with db.engine.begin() as connection:
                connection.execute(
                    insert(ClearanceRequest.__table__), _requests(client_id, start, count, now)
                )
                burns = _burns(client_id, start, count, now)
                if burns:
                    connection.execute(insert(BurnedToken.__table__), burns)
        sealed = sealing.seal_pending_events(client_id)
        assert sealed and sealed[-1].tree_size == options.events
        db.session.remove()
        db.engine.dispose()
    prepared = time.perf_counter() - started
    print(json.dumps({"prepared_s": round(prepared, 1), "events": options.events}), flush=True)

    period_start = (now - timedelta(days=DAYS)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    period_end = (now + timedelta(seconds=60)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    with app.app_context():
        from webapp.services import reports

        report = reports.request_report(
            client_id,
            {"period_start": period_start, "period_end": period_end},
            actor="bench",
        )
        report_id, queued_at = report.report_id, time.perf_counter()
        db.session.remove()
        db.engine.dispose()
    env = dict(os.environ, REPORT_BENCH_DB=database_url, REPORT_BENCH_REDIS=redis_url)
    env["REPORT_BENCH_INSTANCE"] = str(instance)
    worker = subprocess.run(
        [sys.executable, __file__, "--worker"], env=env, capture_output=True, text=True, check=True
    )
    elapsed = time.perf_counter() - queued_at
    measured = json.loads(worker.stdout.strip().splitlines()[-1])
    with app.app_context():
        from webapp.services import reports

        view = reports.report_view(reports.get_report(client_id, report_id))
    assert view["status"] == "ready", view
    result = {
        "database": app.extensions["vault"].config.database_url.split(":", 1)[0],
        "events": options.events,
        "report_seconds_queue_to_ready": round(elapsed, 1),
        "build_seconds_in_worker": measured["build_seconds"],
        "worker_peak_rss_mib": measured["peak_rss_mib"],
        "worker_rss_before_job_mib": measured["rss_before_mib"],
        "artifacts": {a["format"]: a["size_bytes"] for a in view["artifacts"]},
        "summary": {k: view["summary"][k] for k in ("decisions", "manual_reviews", "exceptions")},
        "ledger_intact": view["summary"]["ledger_intact"],
    }
    shutil.rmtree(instance, ignore_errors=True)
    return result


def run_worker() -> None:
    """The worker process: the app, a burst SimpleWorker on the report's queue, and its RSS."""
    from redis import Redis
    from rq import SimpleWorker

    from config import Config
    from jobs import queues
    from jobs.runtime import set_app
    from webapp import create_app

    config = Config.from_env(
        {},
        env="test",
        instance_path=Path(os.environ["REPORT_BENCH_INSTANCE"]),
        database_url=os.environ["REPORT_BENCH_DB"],
        redis_url=os.environ["REPORT_BENCH_REDIS"],
        log_level="WARNING",
        log_format="text",
    )
    app = create_app(config)
    set_app(app)
    connection = Redis.from_url(config.redis_url)
    import jobs.reports  # noqa: F401 - loaded before the job, as the worker entry point does

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started = time.perf_counter()
    SimpleWorker([queues.queue(queues.DEFAULT, connection)], connection=connection).work(burst=True)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "build_seconds": round(seconds, 1),
                "peak_rss_mib": round(peak),
                "rss_before_mib": round(before),
            }
        )
    )


def main() -> int:
    if "--worker" in sys.argv:
        run_worker()
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--db", default="sqlite", choices=("sqlite", "postgresql"))
    parser.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    options = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="report-bench-"))
    redis_process, redis_url = ledger_bench.start_redis(scratch)
    try:
        if options.db == "sqlite":
            result = build(options, f"sqlite:///{scratch / 'bench.sqlite3'}", redis_url)
        else:
            result = _postgres(options, redis_url)
    finally:
        redis_process.terminate()
        redis_process.wait(10)
        shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(result, indent=2))
    return 0


def _postgres(options, redis_url: str) -> dict:
    from sqlalchemy import create_engine, text

    server = options.pg.rsplit("/", 1)[0]
    name = f"vault_report_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(options.pg, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        return build(options, f"{server}/{name}", redis_url)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


if __name__ == "__main__":
    sys.exit(main())
