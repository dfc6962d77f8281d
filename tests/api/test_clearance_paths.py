"""The clearance request path: validation, idempotency, lockdown, failures that fail closed,
the reaper, and the state machine's guarded transitions."""

from __future__ import annotations

import json
import os
import signal
import threading
from datetime import timedelta

import pytest

from tests.api.test_foundation import assert_problem
from tests.conftest import _reset_state, bootstrap, make_config, make_tenant
from tests.helpers import LoopbackServer, ask, json_reply, register_policy, start_rq_worker

INVARIANT_FIELDS = {
    "status",
    "approved",
    "requires_manual_review",
    "token",
    "reason",
    "request_id",
    "confidence",
    "minimum_confidence_score",
    "decision_status",
    "confidence_bucket",
    "minimum_confidence_bucket",
    "reason_code",
    "policy_id",
    "policy_version_id",
    "policy_content_hash",
    "citations",
    "created_at",
    "decided_at",
}


def assert_invariants(body: dict) -> None:
    assert set(body) >= INVARIANT_FIELDS
    status = body["status"]
    assert body["approved"] is (status == "approved")
    assert body["requires_manual_review"] is (status == "pending_review")
    assert (body["token"] is not None) is (status == "approved")
    assert body["decision_status"] == {
        "approved": "approved",
        "pending_review": "approved_pending_review",
    }.get(status, "denied")
    assert (body["decided_at"] is None) is (status in ("processing", "pending_review"))
    for name in ("reason", "reason_code", "policy_id", "policy_version_id", "policy_content_hash"):
        assert isinstance(body[name], str)


def verdict(decision="deny", reason_code="rule_violated", confidence=0.97, **extra):
    return {
        "decision": decision,
        "confidence": confidence,
        "reason": f"judge says {decision}",
        "reason_code": reason_code,
        "citations": [
            {
                "policy_id": "p",
                "policy_version_id": "pv",
                "chunk_id": "pv:r0",
                "text": "rule",
                "score": 1.0,
            }
        ],
        "evidence_chunks": [],
        "policy_id": "p",
        "policy_version_id": "pv",
        "policy_content_hash": "a" * 64,
        "layer": "rules",
        "details": {},
        **extra,
    }


@pytest.fixture
def judge_app(workdir, database_url, redis_url, _migrated):
    """Build an app whose judge is a loopback HTTP server (the remote-judge path)."""
    from jobs.runtime import set_app
    from webapp import create_app

    apps = []

    def build(url: str, **overrides):
        settings = {
            "judge_url": url,
            "judge_api_key": "judge-key-0123456789abcdef",
            "judge_retries": 1,
            "judge_retry_base_seconds": 0,
            "judge_timeout_seconds": 2,
            **overrides,
        }
        app = create_app(make_config(workdir, database_url, redis_url, **settings))
        app.config["TESTING"] = True
        bootstrap(app)
        set_app(app)
        apps.append(app)
        return app

    yield build
    set_app(None)
    for app in apps:
        _reset_state(app)


def run_worker(app) -> None:
    from rq import SimpleWorker

    from jobs.queues import all_queues

    connection = app.extensions["vault"].redis
    SimpleWorker(all_queues(connection), connection=connection).work(
        burst=True, with_scheduler=True
    )


# --- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"tool_args": {}, "agent_id": "a"}, "tool_name"),
        ({"tool_name": "  ", "tool_args": {}, "agent_id": "a"}, "tool_name"),
        ({"tool_name": "t", "agent_id": "a"}, "tool_args"),
        ({"tool_name": "t", "tool_args": [1], "agent_id": "a"}, "tool_args"),
        ({"tool_name": "t", "tool_args": {}}, "agent_id"),
        ({"tool_name": "t", "tool_args": {}, "agent_id": 7}, "agent_id"),
        ({"tool_name": "t", "tool_args": {"amount": 2**53}, "agent_id": "a"}, "tool_args.amount"),
        ({"tool_name": "t", "tool_args": {"n": [1, -(2**60)]}, "agent_id": "a"}, "tool_args.n[1]"),
        ({"tool_name": "t", "tool_args": {}, "agent_id": "a", "context": "p"}, "context"),
        (
            {"tool_name": "t", "tool_args": {}, "agent_id": "a", "context": {"policy_id": 5}},
            "context.policy_id",
        ),
        ({"tool_name": "t" * 257, "tool_args": {}, "agent_id": "a"}, "tool_name"),
    ],
)
def test_bad_clearance_bodies_are_400_and_write_nothing(client, tenant, body, field, sql):
    problem = assert_problem(
        client.post("/request-clearance", json=body, headers=tenant.headers), 400, "invalid_request"
    )
    assert field in {e["field"] for e in problem["errors"]}
    assert sql("SELECT count(*) FROM clearance_requests").scalar() == 0


def test_unknown_fields_are_ignored_and_client_metadata_is_kept(client, tenant, sql):
    response = ask(
        client,
        tenant,
        "send_email",
        {"to": "a@b.c"},
        purpose="marketing",
        dataset_ref="ds-1",
        future_field={"x": 1},
        session_id="",
    )
    assert response.status_code == 200  # no policy: denied at once by the fast lane
    body = response.get_json()
    assert_invariants(body)
    assert (body["status"], body["reason_code"]) == ("denied", "no_matching_policy")
    row = sql("SELECT action_metadata, session_id FROM clearance_requests").one()
    metadata = (
        row.action_metadata
        if isinstance(row.action_metadata, dict)
        else json.loads(row.action_metadata)
    )
    assert metadata == {"purpose": "marketing", "dataset_ref": "ds-1"} and row.session_id == ""


def test_unknown_and_foreign_request_ids_are_the_same_404(client, tenant, other_tenant):
    rid = ask(client, tenant, "t", {}).get_json()["request_id"]
    assert_problem(
        client.get(f"/clearance-status/{rid}", headers=other_tenant.headers), 404, "not_found"
    )
    assert_problem(
        client.get("/clearance-status/req_nope", headers=tenant.headers), 404, "not_found"
    )


def test_idempotency_key_returns_the_same_request(client, tenant, sql):
    headers = {"Idempotency-Key": "k-1"}
    first = ask(client, tenant, "refund", {"amount": 10}, headers=headers).get_json()
    second = ask(client, tenant, "refund", {"amount": 10}, headers=headers).get_json()
    assert first["request_id"] == second["request_id"]
    assert_problem(
        ask(client, tenant, "refund", {"amount": 11}, headers=headers), 422, "idempotency_mismatch"
    )
    assert sql("SELECT count(*) FROM clearance_requests").scalar() == 1


# --- lockdown --------------------------------------------------------------------------------


def test_locked_down_agent_is_denied_without_evaluation(client, tenant, redis_client, sql):
    register_policy(client, tenant, "ops", ["Restarts are allowed"], ["restart_*"])
    locked = client.post(
        "/drift/agents/agent-7/lockdown", json={"reason": "odd behaviour"}, headers=tenant.headers
    )
    assert locked.status_code == 200
    assert (
        locked.get_json()["locked_down"] is True and locked.get_json()["reason"] == "odd behaviour"
    )
    again = client.post("/drift/agents/agent-7/lockdown", headers=tenant.headers)
    assert (
        again.status_code == 200 and again.get_json()["locked_at"] == locked.get_json()["locked_at"]
    )

    response = ask(client, tenant, "restart_service", {"name": "api"})
    assert response.status_code == 200
    body = response.get_json()
    assert_invariants(body)
    assert (body["status"], body["reason_code"], body["confidence"]) == (
        "denied",
        "agent_locked_down",
        0,
    )
    assert (
        body["policy_id"] == body["policy_version_id"] == body["policy_content_hash"] == ""
        and body["citations"] == []
    )
    assert redis_client.llen("rq:queue:clearance") == 0  # nothing was queued for the judge

    released = client.delete("/drift/agents/agent-7/lockdown", headers=tenant.headers)
    assert (
        released.get_json()["locked_down"] is False
        and released.get_json()["released_by"] == "initial key"  # the key's label (CONTRACT §10)
    )
    assert (
        client.delete("/drift/agents/agent-7/lockdown", headers=tenant.headers).status_code == 200
    )
    after = ask(client, tenant, "restart_service", {"name": "api"})
    assert (after.status_code, after.get_json()["status"]) == (200, "approved")
    categories = [
        r.action_category for r in sql("SELECT action_category FROM ledger_events ORDER BY seq")
    ]
    assert categories.count("agent_lockdown") == 1 and categories.count("agent_release") == 1
    assert "clearance_decision" in categories


# --- Redis down, queue full ------------------------------------------------------------------


def test_redis_unreachable_is_503_and_nothing_is_written(
    workdir, database_url, redis_url, _migrated, sql
):
    from webapp import create_app

    no_redis = f"unix://{workdir}/no-such-redis.sock"
    slow = create_app(
        make_config(
            workdir,
            database_url,
            no_redis,
            rate_limit_rps=0,
            judge_url="http://127.0.0.1:9",
            judge_api_key="judge-key-0123456789abcdef",
        )
    )
    try:
        tenant = make_tenant(slow, "No Redis")
        response = ask(
            slow.test_client(), tenant, "pay", {"amount": 1}, headers={"Idempotency-Key": "k"}
        )
        assert_problem(response, 503, "unavailable")
        assert int(response.headers["Retry-After"]) >= 1
        assert sql("SELECT count(*) FROM clearance_requests").scalar() == 0
        assert sql("SELECT count(*) FROM idempotency_records").scalar() == 0
        # The fast lane needs no queue: the decision is still made, and still fails closed.
        fast = create_app(make_config(workdir, database_url, no_redis, rate_limit_rps=0))
        body = ask(fast.test_client(), tenant, "pay", {"amount": 1}).get_json()
        assert (body["status"], body["reason_code"]) == ("denied", "no_matching_policy")
    finally:
        _reset_state(create_app(make_config(workdir, database_url, redis_url)))


def test_full_queue_answers_429_with_retry_after(workdir, database_url, redis_url, _migrated, sql):
    from webapp import create_app

    app = create_app(
        make_config(
            workdir,
            database_url,
            redis_url,
            clearance_queue_size=1,
            judge_url="http://127.0.0.1:9",  # the slow lane: only it uses the queue
            judge_api_key="judge-key-0123456789abcdef",
        )
    )
    tenant = make_tenant(app, "Busy")
    client = app.test_client()
    try:
        assert ask(client, tenant, "t", {"n": 1}).status_code == 202
        assert ask(client, tenant, "t", {"n": 2}).status_code == 202
        response = ask(client, tenant, "t", {"n": 3})
        assert_problem(response, 429, "rate_limited")
        assert int(response.headers["Retry-After"]) >= 1
        assert sql("SELECT count(*) FROM clearance_requests").scalar() == 2
    finally:
        _reset_state(app)


# --- the judge failing ----------------------------------------------------------------------


def test_failing_judge_is_retried_then_denied(judge_app, sql):
    with LoopbackServer(lambda *a: json_reply(500, {"error": "boom"})) as server:
        app = judge_app(server.url)
        tenant = make_tenant(app, "Flaky")
        client = app.test_client()
        rid = ask(client, tenant, "pay", {"amount": 5}).get_json()["request_id"]
        run_worker(app)
        body = client.get(f"/clearance-status/{rid}", headers=tenant.headers).get_json()
    assert_invariants(body)
    assert (body["status"], body["reason_code"]) == ("denied", "judge_unavailable")
    assert len(server.requests) == 2  # first try plus one retry
    assert server.requests[0]["headers"]["X-API-Key"] == "judge-key-0123456789abcdef"


def test_failing_judge_goes_to_review_when_the_tenant_says_so(judge_app):
    with LoopbackServer(
        lambda *a: (200, {"Content-Type": "application/json"}, b"{not json")
    ) as server:
        app = judge_app(server.url)
        tenant = make_tenant(app, "Careful")
        client = app.test_client()
        client.put(
            "/review-settings", json={"judge_failure_mode": "review"}, headers=tenant.headers
        )
        rid = ask(client, tenant, "pay", {"amount": 5}).get_json()["request_id"]
        run_worker(app)
        body = client.get(f"/clearance-status/{rid}", headers=tenant.headers).get_json()
    assert (body["status"], body["reason_code"], body["token"]) == (
        "pending_review",
        "judge_unavailable",
        None,
    )


@pytest.mark.parametrize(
    "answer",
    [
        verdict("allow", "approved_by_policy", confidence=1.5),
        verdict("maybe", "approved_by_policy"),
        {"decision": "allow"},
        verdict("allow", "rule_violated"),
    ],
    ids=[
        "confidence-out-of-range",
        "unknown-decision",
        "missing-fields",
        "allow-without-approval-code",
    ],
)
def test_malformed_or_contradictory_verdicts_never_approve(judge_app, answer):
    with LoopbackServer(lambda *a: json_reply(200, answer)) as server:
        app = judge_app(server.url)
        tenant = make_tenant(app, "Strict")
        client = app.test_client()
        rid = ask(client, tenant, "pay", {"amount": 5}).get_json()["request_id"]
        run_worker(app)
        body = client.get(f"/clearance-status/{rid}", headers=tenant.headers).get_json()
    assert body["status"] == "denied" and body["token"] is None


def test_remote_judge_verdicts_map_to_states(judge_app):
    answers = iter(
        [
            verdict("allow", "approved_by_policy", confidence=0.97),
            verdict("allow", "approved_by_policy", confidence=0.5),
            verdict("review", "review_required_by_rule", confidence=0.9),
            verdict("deny", "no_matching_policy", confidence=0.0),
        ]
    )
    with LoopbackServer(lambda *a: json_reply(200, next(answers))) as server:
        app = judge_app(server.url)
        tenant = make_tenant(app, "Mapper")
        client = app.test_client()
        ids = [ask(client, tenant, "pay", {"n": n}).get_json()["request_id"] for n in range(4)]
        run_worker(app)  # FIFO: the judge's answers meet the requests in order
        bodies = [
            client.get(f"/clearance-status/{rid}", headers=tenant.headers).get_json() for rid in ids
        ]
    for body in bodies:
        assert_invariants(body)
    assert [(b["status"], b["reason_code"]) for b in bodies] == [
        ("approved", "approved_by_policy"),
        ("pending_review", "below_confidence_threshold"),
        ("pending_review", "review_required_by_rule"),
        ("denied", "no_matching_policy"),
    ]
    assert (
        bodies[0]["confidence_bucket"] == "extra_high" and bodies[1]["confidence_bucket"] == "low"
    )
    assert bodies[0]["citations"][0]["chunk_id"] == "pv:r0"


# --- a worker killed mid-job, and the reaper ------------------------------------------------------


def test_reaper_recovers_a_request_whose_worker_was_killed(
    judge_app, workdir, database_url, redis_url
):
    release = threading.Event()

    def slow_then_deny(*_):
        release.wait(30)
        return json_reply(200, verdict("deny", "rule_violated"))

    with LoopbackServer(slow_then_deny) as server:
        app = judge_app(server.url, judge_timeout_seconds=30)
        tenant = make_tenant(app, "Crashy")
        client = app.test_client()
        rid = ask(client, tenant, "pay", {"amount": 5}).get_json()["request_id"]
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "VAULT_INSTANCE_PATH": str(workdir / "instance"),
            "VAULT_JUDGE_URL": server.url,
            "VAULT_JUDGE_API_KEY": "judge-key-0123456789abcdef",
            "VAULT_JUDGE_TIMEOUT_SECONDS": "30",
            "LOG_FORMAT": "text",
        }
        worker = start_rq_worker(redis_url, env, burst=True)
        assert server.received.wait(60), "the worker never called the judge"
        worker.send_signal(signal.SIGKILL)  # killed in the middle of the job
        worker.wait(10)
        assert (
            client.get(f"/clearance-status/{rid}", headers=tenant.headers).get_json()["status"]
            == "processing"
        )

        from webapp.models import utcnow
        from webapp.services import clearance

        with app.app_context():
            # Not yet stale: the reaper leaves it alone.
            assert clearance.reap_stuck() == 0
            assert (
                clearance.reap_stuck(
                    now=utcnow()
                    + timedelta(seconds=app.extensions["vault"].config.clearance_reap_seconds + 1)
                )
                == 1
            )
        release.set()
        run_worker(app)
        body = client.get(f"/clearance-status/{rid}", headers=tenant.headers).get_json()
    assert (body["status"], body["reason_code"]) == ("denied", "rule_violated")


# --- the state machine --------------------------------------------------------------------------


def processing_request(judge_app) -> tuple:
    """A request left ``processing`` by the slow lane (its judge job is never run)."""
    app = judge_app("http://127.0.0.1:9")
    tenant = make_tenant(app, "Slow")
    body = ask(app.test_client(), tenant, "t", {}).get_json()
    assert body["status"] == "processing"
    return app, body["request_id"]


def test_illegal_transitions_raise(judge_app):
    from webapp.extensions import db
    from webapp.models import ClearanceRequest
    from webapp.services import clearance

    app, rid = processing_request(judge_app)
    with app.app_context():
        request = db.session.get(ClearanceRequest, rid)
        request.status = "approved"
        db.session.commit()
        with pytest.raises(clearance.IllegalTransition):
            clearance._transition(
                request, clearance.Resolution("denied", "x", "rule_violated", 0.0, "system")
            )
        with pytest.raises(clearance.IllegalTransition):
            clearance._record_new(
                request, clearance.Resolution("other", "x", "rule_violated", 0.0, "system")
            )


def test_racing_transitions_exactly_one_wins(judge_app, sql):
    from webapp.judge.types import Verdict
    from webapp.services import clearance

    app, rid = processing_request(judge_app)
    barrier = threading.Barrier(2)
    results = []

    def approve():
        with app.app_context():
            barrier.wait()
            results.append(
                clearance.apply_verdict(
                    rid, Verdict("allow", 0.99, "ok", "approved_by_policy")
                ).status
            )

    def fail():
        with app.app_context():
            barrier.wait()
            results.append(clearance.fail_judgement(rid, "timeout").status)

    threads = [threading.Thread(target=approve), threading.Thread(target=fail)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    final = sql("SELECT status FROM clearance_requests WHERE request_id = :r", r=rid).scalar()
    assert final in ("approved", "denied")
    assert sql("SELECT count(*) FROM ledger_events WHERE request_id = :r", r=rid).scalar() == 1
    assert (
        sql("SELECT token FROM clearance_requests WHERE request_id = :r", r=rid).scalar()
        is not None
    ) == (final == "approved")


def test_a_judge_that_says_it_cannot_judge_follows_the_failure_mode(judge_app):
    with LoopbackServer(
        lambda *a: json_reply(200, verdict("deny", "judge_unavailable", confidence=0.0))
    ) as server:
        app = judge_app(server.url)
        tenant = make_tenant(app, "Unsure")
        client = app.test_client()
        first = ask(client, tenant, "pay", {"n": 1}).get_json()["request_id"]
        run_worker(app)
        client.put(
            "/review-settings", json={"judge_failure_mode": "review"}, headers=tenant.headers
        )
        second = ask(client, tenant, "pay", {"n": 2}).get_json()["request_id"]
        run_worker(app)
        bodies = [
            client.get(f"/clearance-status/{r}", headers=tenant.headers).get_json()
            for r in (first, second)
        ]
    assert [(b["status"], b["reason_code"]) for b in bodies] == [
        ("denied", "judge_unavailable"),
        ("pending_review", "judge_unavailable"),
    ]


def test_a_new_agents_first_requests_arriving_together_do_not_collide(app, tenant):
    from webapp.extensions import db
    from webapp.models import AgentState
    from webapp.services import agents

    with app.app_context():
        # Two requests both found no row for the agent before either committed.
        first_saw = agents.current_state(tenant.client_id, "new-agent")
        second_saw = agents.current_state(tenant.client_id, "new-agent")
        assert first_saw is None and second_saw is None
        agents.touch(tenant.client_id, "new-agent", first_saw)
        db.session.commit()
        agents.touch(tenant.client_id, "new-agent", second_saw)  # must not fail on the key
        db.session.commit()
        rows = db.session.query(AgentState).filter_by(client_id=tenant.client_id).all()
        assert [(row.agent_id, row.locked_down) for row in rows] == [("new-agent", False)]
        assert rows[0].last_seen_at is not None


def test_a_daily_count_per_agent_is_read_from_todays_requests(client, tenant):
    # 'per day' counts this agent's requests for the tool since midnight UTC (DatabaseHistory);
    # before, the count was not known and every such request waited for a human
    register_policy(client, tenant, "refunds", ["Max 2 refunds per agent per day."], ["refund_*"])
    got = [
        ask(client, tenant, "refund_order", {"order_id": f"O-{i}"}).get_json()["status"]
        for i in range(3)
    ]
    assert got == ["approved", "approved", "denied"]
    other = ask(client, tenant, "refund_order", {"order_id": "O-9"}, agent_id="agent-8")
    assert other.get_json()["status"] == "approved"  # another agent's day is its own
