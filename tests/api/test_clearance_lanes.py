"""The two lanes of POST /request-clearance: decided at once in the web process (the fast lane)
and queued for a slow judgement (a remote judge, or rules left to the language model); a crash
between the commit and the answer; hooks in a worker built without the web blueprints."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.api.test_clearance_paths import assert_invariants, run_worker, verdict
from tests.conftest import _reset_state, bootstrap, make_config, make_tenant
from tests.helpers import LoopbackServer, ask, json_reply, register_policy, start_rq_worker

ROOT = Path(__file__).resolve().parents[2]
PAYMENT_RULES = ["Payments above $10,000 are not allowed", "Payments must include an invoice_id"]
JUDGE_KEY = "judge-key-0123456789abcdef"


def poll(client, tenant, request_id: str, *, until, seconds: float = 30.0) -> dict:
    """GET /clearance-status until ``until(body)`` holds, within a bound."""
    deadline = time.monotonic() + seconds
    while True:
        body = client.get(f"/clearance-status/{request_id}", headers=tenant.headers).get_json()
        if until(body) or time.monotonic() > deadline:
            return body
        threading.Event().wait(0.05)


# --- the fast lane ------------------------------------------------------------------------------


def test_fast_lane_answers_final_states_with_event_and_token_in_one_go(
    client, tenant, run_jobs, sql
):
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    client.put("/review-settings", json={"minimum_confidence_score": 0.9}, headers=tenant.headers)
    approved = ask(client, tenant, "pay_invoice", {"amount": 120, "invoice_id": "INV-1"})
    denied = ask(client, tenant, "pay_invoice", {"amount": 20_000, "invoice_id": "INV-2"})
    client.put("/review-settings", json={"minimum_confidence_score": 0.99}, headers=tenant.headers)
    review = ask(client, tenant, "pay_invoice", {"amount": 120, "invoice_id": "INV-3"})
    bodies = [r.get_json() for r in (approved, denied, review)]
    assert [r.status_code for r in (approved, denied, review)] == [200, 200, 200]
    assert [(b["status"], b["reason_code"]) for b in bodies] == [
        ("approved", "approved_by_policy"),
        ("denied", "rule_violated"),
        ("pending_review", "below_confidence_threshold"),
    ]
    for body in bodies:
        assert_invariants(body)
        # What the POST answered is what was stored: the status endpoint agrees.
        assert (
            client.get(f"/clearance-status/{body['request_id']}", headers=tenant.headers).get_json()
            == body
        )
    assert run_jobs() == 0  # nothing went through the queue
    events = {
        r.request_id: r.decision_status
        for r in sql(
            "SELECT request_id, decision_status FROM ledger_events "
            "WHERE action_category = 'clearance_decision'"
        )
    }
    assert events == {bodies[0]["request_id"]: "approved", bodies[1]["request_id"]: "denied"}
    token = sql(
        "SELECT token, token_jti FROM clearance_requests WHERE request_id = :r",
        r=bodies[0]["request_id"],
    ).one()
    assert token.token == bodies[0]["token"] and token.token_jti
    burned = client.post(
        "/consume-token", json={"token": bodies[0]["token"]}, headers=tenant.headers
    )
    assert burned.status_code == 200


def test_idempotent_replay_returns_the_same_decided_request(client, tenant, sql):
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    headers = {"Idempotency-Key": "pay-1"}
    args = {"amount": 120, "invoice_id": "INV-1"}
    first = ask(client, tenant, "pay_invoice", args, headers=headers).get_json()
    second = ask(client, tenant, "pay_invoice", args, headers=headers).get_json()
    assert first["status"] == "approved" and second == first  # the same request and token
    assert sql("SELECT count(*) FROM clearance_requests").scalar() == 1
    assert (
        sql(
            "SELECT count(*) FROM ledger_events WHERE action_category = 'clearance_decision'"
        ).scalar()
        == 1
    )
    changed = ask(client, tenant, "pay_invoice", {**args, "amount": 121}, headers=headers)
    assert changed.status_code == 422 and changed.get_json()["code"] == "idempotency_mismatch"


def test_rules_left_to_the_model_go_to_the_slow_lane(
    workdir, database_url, redis_url, _migrated, sql
):
    """With a language model configured, text rules the engine cannot check are the model's:
    the request is queued. A compiled rule's violation is still decided at once."""
    from webapp import create_app

    app = create_app(
        make_config(
            workdir,
            database_url,
            redis_url,
            eval_model="test-model",
            eval_base_url="http://127.0.0.1:9/v1",
            judge_retries=0,
        )
    )
    bootstrap(app)
    try:
        tenant = make_tenant(app, "Modelled")
        client = app.test_client()
        register_policy(
            client,
            tenant,
            "payments",
            [*PAYMENT_RULES, "Payment memos must be written in a professional tone"],
            ["pay_*"],
        )
        denied = ask(client, tenant, "pay_invoice", {"amount": 20_000, "invoice_id": "I"})
        assert (denied.status_code, denied.get_json()["status"]) == (200, "denied")
        queued = ask(
            client,
            tenant,
            "pay_invoice",
            {"amount": 10, "invoice_id": "I", "memo": "thanks for the great work"},
        )
        assert (queued.status_code, queued.get_json()["status"]) == (202, "processing")
        assert app.extensions["vault"].redis.llen("rq:queue:clearance") == 1
    finally:
        _reset_state(app)


# --- the slow lane: a remote judge on loopback ------------------------------------------------


@pytest.fixture
def remote_judge(workdir, database_url, redis_url, _migrated):
    """An app whose judge is the given loopback server; the worker runs in this process."""
    from jobs.runtime import set_app
    from webapp import create_app

    built = []

    def build(url: str, **overrides):
        app = create_app(
            make_config(
                workdir,
                database_url,
                redis_url,
                **{
                    "judge_url": url,
                    "judge_api_key": JUDGE_KEY,
                    "judge_retries": 1,
                    "judge_retry_base_seconds": 0,
                    "judge_timeout_seconds": 2,
                    **overrides,
                },
            )
        )
        bootstrap(app)
        set_app(app)
        built.append(app)
        return app

    yield build
    set_app(None)
    from webapp.extensions import db

    for app in built:
        _reset_state(app)
        with app.app_context():
            db.engine.dispose()  # PostgreSQL's connections are shared by the whole CI run


def test_a_slow_judge_answers_202_then_polling_resolves(remote_judge):
    def slow_allow(*_):
        threading.Event().wait(0.2)  # the judge's own slowness, not synchronisation
        return json_reply(200, verdict("allow", "approved_by_policy", confidence=0.97))

    with LoopbackServer(slow_allow) as server:
        app = remote_judge(server.url, clearance_sync_wait_ms=50)
        tenant = make_tenant(app, "Patient")
        client = app.test_client()
        asked = ask(client, tenant, "pay", {"amount": 5})
        assert (asked.status_code, asked.get_json()["status"]) == (202, "processing")
        assert_invariants(asked.get_json())
        run_worker(app)
        body = poll(client, tenant, asked.get_json()["request_id"], until=lambda b: b["token"])
    assert_invariants(body)
    assert (body["status"], body["reason_code"]) == ("approved", "approved_by_policy")
    assert server.requests[0]["headers"]["X-API-Key"] == JUDGE_KEY


@pytest.mark.parametrize(
    "reply",
    [
        lambda *_: json_reply(503, {"error": "down"}),
        lambda *_: (200, {"Content-Type": "application/json"}, b'{"decision": "allow"'),
        lambda *_: json_reply(200, verdict("allow", "approved_by_policy", confidence="high")),
    ],
    ids=["failing", "truncated-json", "malformed-verdict"],
)
def test_a_failing_or_malformed_judge_never_approves(remote_judge, reply):
    with LoopbackServer(reply) as server:
        app = remote_judge(server.url)
        tenant = make_tenant(app, "Wary")
        client = app.test_client()
        asked = ask(client, tenant, "pay", {"amount": 5}).get_json()
        assert asked["status"] == "processing"
        run_worker(app)
        body = client.get(f"/clearance-status/{asked['request_id']}", headers=tenant.headers)
    body = body.get_json()
    assert_invariants(body)
    assert (body["status"], body["reason_code"], body["token"]) == (
        "denied",
        "judge_unavailable",
        None,
    )
    # The first try and one retry; only judge calls count (a stray probe of the port is not one).
    assert len([r for r in server.requests if r["method"] == "POST"]) == 2


def test_a_locked_down_agent_is_denied_at_once_without_asking_the_judge(remote_judge, sql):
    """Lockdown is decided in the web process even when every other request goes to the remote
    judge: 200 denied with its ledger event, no judge call, nothing queued."""
    with LoopbackServer(
        lambda *_: json_reply(200, verdict("allow", "approved_by_policy"))
    ) as server:
        app = remote_judge(server.url)
        tenant = make_tenant(app, "Locked")
        client = app.test_client()
        locked = client.post("/drift/agents/agent-7/lockdown", headers=tenant.headers)
        assert locked.status_code == 200
        asked = ask(client, tenant, "pay", {"amount": 5})
        body = asked.get_json()
        assert (asked.status_code, body["status"], body["reason_code"]) == (
            200,
            "denied",
            "agent_locked_down",
        )
        assert_invariants(body)
        assert (body["token"], body["policy_id"], body["citations"]) == (None, "", [])
        from webapp.runtime import vault

        with app.app_context():
            assert vault().redis.llen("rq:queue:clearance") == 0
        run_worker(app)  # nothing to do: no job was queued
    assert [r for r in server.requests if r["method"] == "POST"] == []
    [(category, decision)] = list(
        sql(
            "SELECT action_category, decision_status FROM ledger_events WHERE request_id = :r",
            r=body["request_id"],
        )
    )
    assert (category, decision) == ("clearance_decision", "denied")


def test_the_sync_wait_answers_200_when_a_worker_decides_in_time(
    remote_judge, workdir, database_url, redis_url
):
    def slow_allow(*_):
        threading.Event().wait(0.2)
        return json_reply(200, verdict("allow", "approved_by_policy", confidence=0.97))

    with LoopbackServer(slow_allow) as server:
        app = remote_judge(server.url, clearance_sync_wait_ms=20_000, judge_timeout_seconds=10)
        tenant = make_tenant(app, "Waiter")
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "VAULT_INSTANCE_PATH": str(workdir / "instance"),
            "VAULT_JUDGE_URL": server.url,
            "VAULT_JUDGE_API_KEY": JUDGE_KEY,
            "LOG_FORMAT": "text",
        }
        worker = start_rq_worker(redis_url, env)
        try:
            response = ask(app.test_client(), tenant, "pay_invoice", {"amount": 120})
        finally:
            worker.terminate()
            worker.wait(20)
    assert response.status_code == 200
    assert response.get_json()["status"] == "approved" and response.get_json()["token"]


# --- a crash between the commit and the answer ------------------------------------------------

CRASHING_SERVER = """
import os, sys
from werkzeug.serving import make_server
from webapp import create_app
from webapp.services import clearance

app = create_app()
# Registered like any hook: it runs after the commit, before the answer is written.
clearance.on_transition(app, lambda request: os._exit(70))
server = make_server("127.0.0.1", 0, app)
print(server.server_port, flush=True)
server.serve_forever()
"""


def test_a_crash_after_the_commit_leaves_a_recorded_final_decision(
    app, client, tenant, workdir, database_url, redis_url, sql
):
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "VAULT_INSTANCE_PATH": str(workdir / "instance"),
        "VAULT_RATE_LIMIT_RPS": "0",
        "LOG_FORMAT": "text",
        "LOG_LEVEL": "WARNING",
    }
    server = subprocess.Popen(
        [sys.executable, "-c", CRASHING_SERVER],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        port = int(server.stdout.readline())
        body = json.dumps(
            {
                "tool_name": "pay_invoice",
                "tool_args": {"amount": 120, "invoice_id": "INV-9"},
                "agent_id": "a",
            }
        )
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request(
            "POST",
            "/request-clearance",
            body=body,
            headers={
                "Content-Type": "application/json",
                "X-Vault-API-Key": tenant.api_key,
                "Idempotency-Key": "crash-1",
            },
        )
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            conn.getresponse()  # the process died before it answered
        assert server.wait(30) == 70
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(10)

    request_id = sql("SELECT request_id FROM clearance_requests").scalar()
    status = client.get(f"/clearance-status/{request_id}", headers=tenant.headers).get_json()
    assert_invariants(status)
    assert (status["status"], status["reason_code"]) == ("approved", "approved_by_policy")
    assert status["token"] and status["decided_at"]
    assert (
        sql(
            "SELECT decision_status FROM ledger_events WHERE request_id = :r", r=request_id
        ).scalar()
        == "approved"
    )
    # The client's retry with its key answers with that same decision.
    retried = client.post(
        "/request-clearance",
        data=body,
        content_type="application/json",
        headers={**tenant.headers, "Idempotency-Key": "crash-1"},
    )
    assert retried.status_code == 200 and retried.get_json() == status


# --- hooks without the web blueprints ---------------------------------------------------------


def test_a_worker_built_without_blueprints_still_notifies_reviewers(
    remote_judge, workdir, database_url, redis_url
):
    from jobs.runtime import set_app
    from webapp import create_app
    from webapp.extensions import db
    from webapp.models.notifications import NotificationDelivery

    review = verdict("review", "review_required_by_rule", confidence=0.9)
    with LoopbackServer(lambda *_: json_reply(200, review)) as server:
        web = remote_judge(server.url)
        tenant = make_tenant(web, "Notified")
        client = web.test_client()
        settings = {"email_enabled": True, "email_recipients": "ops@bank.example"}
        assert (
            client.put("/notification-settings", json=settings, headers=tenant.headers).status_code
            == 200
        )
        rid = ask(client, tenant, "pay", {"amount": 5}).get_json()["request_id"]

        worker_app = create_app(
            make_config(
                workdir,
                database_url,
                redis_url,
                judge_url=server.url,
                judge_api_key=JUDGE_KEY,
                judge_retries=0,
                smtp_host="",
            ),
            web=False,
        )
        assert "decision" not in worker_app.blueprints and not worker_app.blueprints
        set_app(worker_app)  # the judge job runs in the lean app
        run_worker(worker_app)
    with worker_app.app_context():
        rows = db.session.query(NotificationDelivery).filter_by(request_id=rid).all()
        assert [(r.channel, r.event) for r in rows] == [("email", "review.pending")]
        db.session.remove()
        db.engine.dispose()
    assert poll(client, tenant, rid, until=lambda b: True)["status"] == "pending_review"


# --- warming at start-up -------------------------------------------------------------------------


def test_web_workers_warm_the_decision_path_before_serving(app, client, tenant, other_tenant, sql):
    import runpy

    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    register_policy(client, other_tenant, "ops", ["Restarts are allowed"], ["restart_*"])
    before = sql("SELECT count(*) FROM ledger_events").scalar()
    hooks = runpy.run_path(str(ROOT / "gunicorn.conf.py"))

    class Worker:  # what gunicorn hands its post_worker_init hook
        wsgi = app

    hooks["post_worker_init"](Worker())
    from webapp.services import judging

    with app.app_context():
        assert judging.warm_up() == 2
    # Warming reads only: no request, event or agent was written.
    assert sql("SELECT count(*) FROM clearance_requests").scalar() == 0
    assert sql("SELECT count(*) FROM agent_states").scalar() == 0
    assert sql("SELECT count(*) FROM ledger_events").scalar() == before


# --- round trips ------------------------------------------------------------------------------


class Statements:
    """Every SQL statement the engine sends while the block runs."""

    def __init__(self, app) -> None:
        self.app = app
        self.seen: list[str] = []

    def __enter__(self) -> list[str]:
        from sqlalchemy import event

        from webapp.extensions import db

        with self.app.app_context():
            self.engine = db.engine
        event.listen(self.engine, "before_cursor_execute", self._record)
        return self.seen

    def _record(self, _conn, _cursor, statement, *_args) -> None:  # noqa: ANN001
        self.seen.append(" ".join(statement.split())[:80])

    def __exit__(self, *_exc) -> None:
        from sqlalchemy import event

        event.remove(self.engine, "before_cursor_execute", self._record)


def test_an_inline_approval_takes_at_most_four_statements_and_reads_nothing(app, client, tenant):
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    args = {"amount": 120, "invoice_id": "INV-1"}
    assert ask(client, tenant, "pay_invoice", args).get_json()["status"] == "approved"  # warm
    from webapp.extensions import db

    # As in a served request, the session starts empty (the test's context would keep one
    # session, and its identity map, across requests).
    db.session.remove()
    with Statements(app) as plain:
        assert ask(client, tenant, "pay_invoice", args).get_json()["status"] == "approved"
    db.session.remove()
    with Statements(app) as keyed:
        keyed_answer = ask(client, tenant, "pay_invoice", args, headers={"Idempotency-Key": "k"})
        assert keyed_answer.get_json()["status"] == "approved"
    sealing_lock = "SELECT pg_advisory_xact_lock_shared"  # PostgreSQL only: orders the ledger
    for seen, extra in ((plain, []), (keyed, ["INSERT INTO idempotency_records"])):
        writes = [s for s in seen if not s.startswith(sealing_lock)]
        assert len(writes) <= 3 + len(extra), seen
        assert not [s for s in writes if s.startswith("SELECT")], seen  # no reads, no re-reads
        assert writes[0].startswith("INSERT INTO clearance_requests"), seen
        assert any(s.startswith("INSERT INTO ledger_events") for s in writes), seen
        for statement in extra:
            assert any(s.startswith(statement) for s in writes), seen
        # The agent's activity is written at most once a second.
        assert len([s for s in writes if "agent_states" in s]) <= 1


def test_cached_reads_follow_every_change_at_once(app, client, tenant, admin_headers):
    """Keys, lockdowns, settings and policies are cached per process; a change is seen by
    the very next request."""
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    args = {"amount": 120, "invoice_id": "INV-1"}
    assert ask(client, tenant, "pay_invoice", args).get_json()["status"] == "approved"

    client.put("/review-settings", json={"minimum_confidence_score": 1.0}, headers=tenant.headers)
    assert ask(client, tenant, "pay_invoice", args).get_json()["status"] == "pending_review"
    client.put("/review-settings", json={"minimum_confidence_score": 0.8}, headers=tenant.headers)

    register_policy(client, tenant, "payments", ["Payments are not allowed"], ["pay_*"])
    assert ask(client, tenant, "pay_invoice", args).get_json()["status"] == "denied"
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    assert ask(client, tenant, "pay_invoice", args).get_json()["status"] == "approved"

    client.post("/drift/agents/agent-7/lockdown", headers=tenant.headers)
    locked = ask(client, tenant, "pay_invoice", args).get_json()
    assert (locked["status"], locked["reason_code"]) == ("denied", "agent_locked_down")
    client.delete("/drift/agents/agent-7/lockdown", headers=tenant.headers)
    assert ask(client, tenant, "pay_invoice", args).get_json()["status"] == "approved"

    from webapp.extensions import db
    from webapp.models import ApiKey
    from webapp.services import tenants

    with app.app_context():
        key_id = db.session.query(ApiKey.key_id).filter_by(client_id=tenant.client_id).scalar()
        tenants.revoke_api_key(tenant.client_id, key_id)
    assert ask(client, tenant, "pay_invoice", args).status_code == 401


def test_an_inline_row_is_written_whole_with_its_defaults(client, tenant, sql):
    # The new row is one Core INSERT (no unit-of-work flush): columns the service leaves out
    # must still get their defaults, and what is stored is what the answer said.
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    answer = ask(client, tenant, "pay_invoice", {"amount": 120, "invoice_id": "INV-1"}).get_json()
    assert answer["status"] == "approved"
    row = (
        sql(
            "SELECT status, approved, token_jti, required_approvals, transition_failures, "
            "judge_reason, decision_channel, attempts, session_id, created_at, decided_at "
            "FROM clearance_requests WHERE request_id = :id",
            id=answer["request_id"],
        )
        .mappings()
        .one()
    )
    assert row["status"] == "approved" and row["approved"]
    assert row["token_jti"]
    assert (row["required_approvals"], row["transition_failures"], row["attempts"]) == (1, 0, 0)
    assert (row["judge_reason"], row["decision_channel"], row["session_id"]) == ("", "", "")
    assert row["created_at"] is not None and row["decided_at"] is not None
    status = client.get(f"/clearance-status/{answer['request_id']}", headers=tenant.headers)
    assert status.get_json()["status"] == "approved"
