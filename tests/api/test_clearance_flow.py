"""Whole flows with the built-in judge and a real RQ worker: ask, decide, mint, burn, record;
the same through the standalone judge service; and the synchronous answer inside the wait."""

from __future__ import annotations

import os
import threading

import jwt as pyjwt
import pytest
from werkzeug.serving import make_server

from tests.api.test_clearance_paths import assert_invariants
from tests.api.test_foundation import assert_problem
from tests.conftest import _reset_state, bootstrap, make_config, make_tenant
from tests.helpers import ask, register_policy, start_rq_worker

PAYMENT_RULES = ["Payments above $10,000 are not allowed", "Payments must include an invoice_id"]


def test_approve_deny_and_no_policy_decided_at_once_by_the_built_in_judge(
    client, tenant, run_jobs, sql
):
    registered = register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    answers = [
        ask(client, tenant, "pay_invoice", {"amount": 120, "invoice_id": "INV-7"}),
        ask(client, tenant, "pay_invoice", {"amount": 50_000, "invoice_id": "INV-8"}),
        ask(client, tenant, "delete_database", {"name": "prod"}),
    ]
    # The fast lane: answered 200 in its final state, nothing queued for a worker.
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert [a.get_json()["status"] for a in answers] == ["approved", "denied", "denied"]
    assert run_jobs() == 0
    ok, too_big, unknown = (a.get_json() for a in answers)
    assert ok["token"] and ok["decided_at"]
    ok, too_big, unknown = (
        client.get(f"/clearance-status/{b['request_id']}", headers=tenant.headers).get_json()
        for b in (ok, too_big, unknown)
    )
    for body in (ok, too_big, unknown):
        assert_invariants(body)
    assert (ok["status"], ok["reason_code"]) == ("approved", "approved_by_policy")
    assert ok["confidence"] >= 0.9 and ok["confidence_bucket"] in ("high", "extra_high")
    assert ok["policy_version_id"] == registered["policy_version_id"]
    assert ok["policy_content_hash"] == registered["policy_content_hash"]
    assert {c["chunk_id"] for c in ok["citations"]} <= {
        f"{registered['policy_version_id']}:r0",
        f"{registered['policy_version_id']}:r1",
    }
    assert (too_big["status"], too_big["reason_code"]) == ("denied", "rule_violated")
    assert "10,000" in too_big["reason"]
    assert (unknown["status"], unknown["reason_code"]) == ("denied", "no_matching_policy")

    # The token verifies offline with the JWKS and burns once.
    key = pyjwt.PyJWK(client.get("/.well-known/jwks.json").get_json()["keys"][0])
    claims = pyjwt.decode(ok["token"], key=key, algorithms=["EdDSA"], audience="ledgix-sdk")
    assert claims["request_id"] == ok["request_id"]
    assert (
        client.post(
            "/consume-token", json={"token": ok["token"]}, headers=tenant.headers
        ).status_code
        == 200
    )
    assert_problem(
        client.post("/consume-token", json={"token": ok["token"]}, headers=tenant.headers),
        409,
        "token_replayed",
    )

    # Every terminal decision and the burn are in the ledger, with the fields of CONTRACT §11.
    ledger = client.get("/ledger?limit=10", headers=tenant.headers).get_json()["entries"]
    categories = [e["action_category"] for e in ledger]
    assert categories.count("clearance_decision") == 3
    assert categories.count("token_consumed") == 1 and categories.count("policy_registered") == 1
    decision = next(
        e
        for e in ledger
        if e["request_id"] == ok["request_id"] and e["action_category"] == "clearance_decision"
    )
    assert decision["tool_args"] == {"amount": 120, "invoice_id": "INV-7"}
    assert decision["intent_hash"] == claims["tool_args_hash"]
    assert decision["decision_status"] == "approved" and decision["approved"] is True
    assert decision["action_metadata"]["decided_by"] == "rules"
    assert decision["leaf_index"] is None and decision["checkpoint_id"] is None
    # Stored encrypted: the plaintext arguments are not in the row.
    raw = sql(
        "SELECT sealed FROM ledger_events WHERE event_uuid = :u", u=decision["event_uuid"]
    ).scalar()
    assert b"INV-7" not in bytes(raw)


def test_review_threshold_sends_low_confidence_to_review(client, tenant):
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    client.put("/review-settings", json={"minimum_confidence_score": 0.99}, headers=tenant.headers)
    asked = ask(client, tenant, "pay_invoice", {"amount": 120, "invoice_id": "INV-7"})
    assert (asked.status_code, asked.get_json()["status"]) == (200, "pending_review")
    body = client.get(
        f"/clearance-status/{asked.get_json()['request_id']}", headers=tenant.headers
    ).get_json()
    assert_invariants(body)
    assert (body["status"], body["reason_code"]) == ("pending_review", "below_confidence_threshold")
    assert (
        body["minimum_confidence_score"] == 0.99
        and body["minimum_confidence_bucket"] == "extra_high"
    )


def test_review_settings_validation_and_ledger(client, tenant, sql):
    assert client.get("/review-settings", headers=tenant.headers).get_json() == {
        "client_id": tenant.client_id,
        "minimum_confidence_score": 0.8,
        "minimum_confidence_bucket": "high",
        "judge_failure_mode": "deny",
        "required_approvals": 1,
    }
    for bad in (
        {"minimum_confidence_score": 1.5},
        {"minimum_confidence_score": -0.1},
        {"minimum_confidence_score": "high"},
        {"judge_failure_mode": "approve"},
        {},
    ):
        assert_problem(
            client.put("/review-settings", json=bad, headers=tenant.headers), 400, "invalid_request"
        )
    updated = client.put(
        "/review-settings", json={"minimum_confidence_score": 0.9}, headers=tenant.headers
    ).get_json()
    assert updated["minimum_confidence_score"] == 0.9 and updated["judge_failure_mode"] == "deny"
    assert (
        sql(
            "SELECT count(*) FROM ledger_events WHERE action_category = 'settings_changed'"
        ).scalar()
        == 1
    )


@pytest.fixture
def judge_service(config, _migrated):
    """The standalone judge app served by a real HTTP server on loopback."""
    from dataclasses import replace

    from webapp.judge_service import create_judge_app

    judge_app = create_judge_app(
        replace(config, judge_service_api_key="judge-service-key-0123456789")
    )
    server = make_server("127.0.0.1", 0, judge_app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_the_vault_uses_the_judge_service_when_configured(
    judge_service, workdir, database_url, redis_url
):
    import httpx

    from jobs.runtime import set_app
    from webapp import create_app

    app = create_app(
        make_config(
            workdir,
            database_url,
            redis_url,
            judge_url=judge_service,
            judge_api_key="judge-service-key-0123456789",
            judge_retries=0,
        )
    )
    bootstrap(app)
    set_app(app)
    try:
        tenant = make_tenant(app, "Remote Judge")
        client = app.test_client()
        register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
        ids = [
            ask(client, tenant, "pay_invoice", args).get_json()["request_id"]
            for args in ({"amount": 120, "invoice_id": "A"}, {"amount": 20_000, "invoice_id": "B"})
        ]
        from tests.api.test_clearance_paths import run_worker

        run_worker(app)
        statuses = [
            client.get(f"/clearance-status/{i}", headers=tenant.headers).get_json()["status"]
            for i in ids
        ]
        assert statuses == ["approved", "denied"]
        # The service itself refuses a wrong key and a bad body.
        wrong = httpx.post(f"{judge_service}/evaluate", json={}, headers={"X-API-Key": "nope"})
        assert wrong.status_code == 401 and wrong.json()["code"] == "unauthorized"
        bad = httpx.post(
            f"{judge_service}/evaluate",
            json={"client_id": tenant.client_id},
            headers={"X-API-Key": "judge-service-key-0123456789"},
        )
        assert bad.status_code == 400
    finally:
        set_app(None)
        _reset_state(app)


def test_answer_arrives_within_the_sync_wait(workdir, database_url, redis_url, _migrated):
    """With a worker running, POST answers 200 with the final decision instead of 202."""
    from webapp import create_app

    app = create_app(make_config(workdir, database_url, redis_url, clearance_sync_wait_ms=20_000))
    bootstrap(app)
    tenant = make_tenant(app, "Waiter")
    client = app.test_client()
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "VAULT_INSTANCE_PATH": str(workdir / "instance"),
        "LOG_FORMAT": "text",
    }
    worker = start_rq_worker(redis_url, env)
    try:
        response = ask(client, tenant, "pay_invoice", {"amount": 120, "invoice_id": "INV-1"})
        assert response.status_code == 200
        assert response.get_json()["status"] == "approved" and response.get_json()["token"]
    finally:
        worker.terminate()
        worker.wait(20)
        _reset_state(app)
