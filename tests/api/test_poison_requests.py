"""Poison requests and the reaper (issue 16 §1), with a real RQ worker and a loopback judge.

A poison request is one whose terminal transition raises on its own content. The edge now
refuses the content that did this (tool_args 600 levels deep), so the test plants it in the
row after the request was accepted, as data written before the fix would be.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from rq import Queue

from tests.conftest import bootstrap, make_config, make_tenant
from tests.helpers import LoopbackServer, ask, json_reply

DENY = {
    "decision": "deny",
    "confidence": 0.9,
    "reason": "the loopback judge denies everything",
    "reason_code": "rule_violated",
    "citations": [],
    "evidence_chunks": [],
    "policy_id": "",
    "policy_version_id": "",
    "policy_content_hash": "",
    "layer": "rules",
    "details": {},
}
# Decodes from the row, then breaks the ledger's recursive CBOR encoder (and any recursive
# walk) inside a worker: the reported poison.
POISON_LEVELS = 650


def poison_args(levels: int = POISON_LEVELS) -> str:
    return '{"k": ' * levels + "1" + "}" * levels


@pytest.fixture
def judge():
    with LoopbackServer(lambda *_: json_reply(200, DENY)) as server:
        yield server


@pytest.fixture
def slow_lane_app(workdir, database_url, redis_url, _migrated, judge):
    """Every request goes to the queue: a remote judge on loopback, no retries."""
    from jobs.runtime import set_app
    from tests.conftest import _reset_state
    from webapp import create_app

    config = make_config(
        workdir,
        database_url,
        redis_url,
        judge_url=judge.url,
        judge_api_key="loopback-judge-key-0123456789",
        judge_retries=0,
        clearance_reap_seconds=5,
    )
    app = create_app(config)
    app.config["TESTING"] = True
    bootstrap(app)
    set_app(app)
    yield app
    set_app(None)
    _reset_state(app)
    with app.app_context():
        from webapp.extensions import db

        db.engine.dispose()  # PostgreSQL connections are shared by every session on the server


@pytest.fixture
def worker(slow_lane_app):
    """A real RQ SimpleWorker over every queue, in burst mode."""
    from rq import SimpleWorker

    from jobs.queues import all_queues
    from webapp.runtime import vault

    def run() -> None:
        with slow_lane_app.app_context():
            connection = vault().redis
        SimpleWorker(all_queues(connection), connection=connection).work(burst=True)

    return run


def status_of(sql, request_id: str) -> tuple[str, str, int]:
    row = sql(
        "SELECT status, reason_code, transition_failures FROM clearance_requests "
        "WHERE request_id = :rid",
        rid=request_id,
    ).first()
    return row[0], row[1], row[2]


def reap(app, minutes_later: float) -> int:
    from webapp.models import utcnow
    from webapp.services import reaper

    with app.app_context():
        return reaper.reap_stuck(now=utcnow() + timedelta(minutes=minutes_later))


def test_a_poison_request_is_denied_and_never_stops_the_others(slow_lane_app, worker, sql):
    client = slow_lane_app.test_client()
    tenant = make_tenant(slow_lane_app, "Poison Co")
    poison = ask(client, tenant, "pay_invoice", {"amount": 1}).get_json()["request_id"]
    sql(
        "UPDATE clearance_requests SET tool_args = :args WHERE request_id = :rid",
        args=poison_args(),
        rid=poison,
    )
    worker()  # the judge job raises on the poison content: it stays processing
    assert status_of(sql, poison)[0] == "processing"

    # A request whose job was lost (Redis emptied, say) must still be recovered beside it.
    lost = ask(client, tenant, "pay_invoice", {"amount": 2}).get_json()["request_id"]
    with slow_lane_app.app_context():
        from webapp.runtime import vault

        Queue("clearance", connection=vault().redis).empty()

    later = 0.0
    for _ in range(12):  # a bound: each round is one reaper run and one worker run
        later += 1.0
        reap(slow_lane_app, later)
        worker()
        if status_of(sql, poison)[0] != "processing":
            break
    status, code, failures = status_of(sql, poison)
    assert (status, code) == ("denied", "judge_unavailable")
    # Its job crashed (failed) on the content: queued once more, then its denial raised on the
    # content and the content-free denial followed at once, with no failed runs counted.
    assert failures == 0
    assert status_of(sql, lost)[:2] == ("denied", "rule_violated")

    # One decision event per terminal decision, and the ledger verifies.
    events = sql(
        "SELECT request_id FROM ledger_events WHERE action_category = 'clearance_decision'"
    ).all()
    assert sorted(r[0] for r in events) == sorted([poison, lost])
    verdict = client.get("/ledger/verify", headers=tenant.headers).get_json()
    assert verdict["intact"], verdict
    # Never approved, no token.
    assert sql("SELECT COUNT(*) FROM clearance_requests WHERE approved").scalar() == 0
    body = client.get(f"/clearance-status/{lost}", headers=tenant.headers).get_json()
    assert body["token"] is None


def test_a_row_that_cannot_even_be_loaded_is_denied_safely(slow_lane_app, worker, sql):
    """Deep enough that decoding the row raises: only the content-free path can deny it."""
    client = slow_lane_app.test_client()
    tenant = make_tenant(slow_lane_app, "Unreadable Co")
    rid = ask(client, tenant, "pay_invoice", {"amount": 1}).get_json()["request_id"]
    sql(
        "UPDATE clearance_requests SET tool_args = :args WHERE request_id = :rid",
        args=poison_args(3000),
        rid=rid,
    )
    worker()
    for round_ in range(1, 12):
        reap(slow_lane_app, round_)
        worker()
        if status_of(sql, rid)[0] != "processing":
            break
    status, code, failures = status_of(sql, rid)
    assert (status, code) == ("denied", "judge_unavailable")
    assert failures == 0  # the decode error is a content error: denied without it at once
    row = sql(
        "SELECT COUNT(*) FROM ledger_events WHERE request_id = :rid AND "
        "action_category = 'clearance_decision'",
        rid=rid,
    ).scalar()
    assert row == 1
    verdict = client.get("/ledger/verify", headers=tenant.headers).get_json()
    assert verdict["intact"], verdict


def test_the_reaper_job_itself_survives_a_poison_request(slow_lane_app, worker, sql):
    """The periodic job, run by the worker, completes even while a poison request is stuck."""
    from rq import Queue as RQQueue
    from rq.job import JobStatus

    from jobs.clearance import reap_stuck_requests
    from webapp.runtime import vault

    client = slow_lane_app.test_client()
    tenant = make_tenant(slow_lane_app, "Cron Co")
    rid = ask(client, tenant, "pay_invoice", {"amount": 1}).get_json()["request_id"]
    sql(
        "UPDATE clearance_requests SET tool_args = :args, transition_failures = 2, "
        "attempts = 4 WHERE request_id = :rid",
        args=poison_args(3000),
        rid=rid,
    )
    with slow_lane_app.app_context():
        job = RQQueue("default", connection=vault().redis).enqueue(reap_stuck_requests)
    worker()
    with slow_lane_app.app_context():
        job.refresh()
        assert job.get_status() == JobStatus.FINISHED
    assert status_of(sql, rid)[:2] == ("denied", "judge_unavailable")
