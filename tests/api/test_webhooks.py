"""Signed outbound webhooks (CONTRACT §14): endpoints, the events of a real decision flow
received on a real HTTP server on loopback and verified with the public client's
`verify_webhook`, retries with backoff through a real RQ worker, the delivery log, and the
automatic disabling of an endpoint that keeps failing.

Apps that deliver set ``webhook_allow_private`` because the receiving server is on loopback;
without it a loopback URL is refused at creation (tested below with the default app).
"""

from __future__ import annotations

import json

import pytest
from ledgix_python import verify_webhook

from tests.api.test_foundation import assert_problem
from tests.api.test_reviews import run_worker, serving
from tests.conftest import _reset_state, bootstrap, make_config, make_tenant
from tests.helpers import ask, register_policy

PUBLIC_URL = "https://8.8.8.8/hooks/ledgix"  # a literal public address: nothing is resolved
RULES = [
    "Payments above $10,000 are not allowed",
    "Payments must include an invoice_id",
    "Payments of $1,000 or more must be reviewed.",
]


def create(client, tenant, url=PUBLIC_URL, events=("clearance.decided",), **extra):
    body = {"url": url, "events": list(events), **extra}
    return client.post("/webhooks", json=body, headers=tenant.headers)


# --- endpoints ---------------------------------------------------------------------------------


def test_create_list_and_delete_with_the_secret_shown_once(client, tenant, sql):
    created = create(
        client, tenant, events=["clearance.decided", "agent.locked"], description="ops"
    )
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    assert set(body) == {
        "webhook_id",
        "url",
        "events",
        "description",
        "enabled",
        "created_at",
        "secret",
    }
    assert body["secret"].startswith("whsec_") and body["enabled"] is True
    assert body["events"] == ["clearance.decided", "agent.locked"]
    listed = client.get("/webhooks", headers=tenant.headers).get_json()["webhooks"]
    assert listed == [{k: v for k, v in body.items() if k != "secret"}]
    # Stored sealed: the raw secret appears nowhere in the database row.
    stored = sql("SELECT secret_sealed, url FROM webhook_endpoints").one()
    assert body["secret"] not in stored[0] and stored[1] == PUBLIC_URL
    # Creation and deletion are settings changes in the ledger, with the host only.
    deleted = client.delete(f"/webhooks/{body['webhook_id']}", headers=tenant.headers)
    assert deleted.status_code == 204 and deleted.get_data() == b""
    assert client.get("/webhooks", headers=tenant.headers).get_json() == {"webhooks": []}
    entries = client.get("/ledger", headers=tenant.headers).get_json()["entries"]
    changes = [e for e in entries if e["action_category"] == "settings_changed"]
    assert [e["reason"] for e in changes] == [
        "webhook endpoint deleted by api",
        "webhook endpoint created by api",
    ]
    assert changes[1]["action_metadata"]["changes"]["host"] == "https://8.8.8.8"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "http://127.0.0.1:9/hook", "events": ["clearance.decided"]}, "url"),
        ({"url": "https://127.0.0.1/hook", "events": ["clearance.decided"]}, "url"),
        ({"url": "https://10.1.2.3/hook", "events": ["clearance.decided"]}, "url"),
        ({"url": "https://169.254.169.254/latest", "events": ["clearance.decided"]}, "url"),
        ({"url": "https://[::1]/hook", "events": ["clearance.decided"]}, "url"),
        ({"url": "http://8.8.8.8/hook", "events": ["clearance.decided"]}, "url"),
        ({"url": "https://user:pw@8.8.8.8/hook", "events": ["clearance.decided"]}, "url"),
        ({"url": "", "events": ["clearance.decided"]}, "url"),
        ({"url": 7, "events": ["clearance.decided"]}, "url"),
        ({"events": ["clearance.decided"]}, "url"),
        ({"url": "https://8.8.8.8/" + "a" * 2100, "events": ["clearance.decided"]}, "url"),
        ({"url": PUBLIC_URL, "events": []}, "events"),
        ({"url": PUBLIC_URL, "events": "clearance.decided"}, "events"),
        ({"url": PUBLIC_URL, "events": ["clearance.made"]}, "events"),
        ({"url": PUBLIC_URL, "events": [7]}, "events"),
        ({"url": PUBLIC_URL}, "events"),
        ({"url": PUBLIC_URL, "events": ["agent.locked"], "description": "x" * 501}, "description"),
        ({"url": PUBLIC_URL, "events": ["agent.locked"], "description": 5}, "description"),
    ],
    ids=lambda v: repr(v)[:60] if isinstance(v, dict) else v,
)
def test_bad_endpoints_are_400_naming_the_field_and_store_nothing(client, tenant, sql, body, field):
    response = client.post("/webhooks", json=body, headers=tenant.headers)
    assert_problem(response, 400, "invalid_request")
    assert field in [e["field"] for e in response.get_json()["errors"]]
    assert sql("SELECT count(*) FROM webhook_endpoints").scalar() == 0
    assert sql("SELECT count(*) FROM ledger_events").scalar() == 0


def test_another_tenants_endpoint_is_a_404(client, tenant, other_tenant):
    webhook_id = create(client, tenant).get_json()["webhook_id"]
    for response in (
        client.delete(f"/webhooks/{webhook_id}", headers=other_tenant.headers),
        client.get(f"/webhooks/{webhook_id}/deliveries", headers=other_tenant.headers),
        client.delete("/webhooks/whk_unknown", headers=tenant.headers),
    ):
        assert_problem(response, 404, "not_found")
    assert client.get("/webhooks", headers=other_tenant.headers).get_json() == {"webhooks": []}
    assert len(client.get("/webhooks", headers=tenant.headers).get_json()["webhooks"]) == 1


def test_a_tenant_has_at_most_twenty_endpoints(client, tenant):
    for _ in range(20):
        assert create(client, tenant).status_code == 201
    assert_problem(create(client, tenant), 400, "invalid_request")


def test_webhooks_need_the_tenant_key(client):
    assert_problem(client.get("/webhooks"), 401, "unauthorized")


# --- deliveries --------------------------------------------------------------------------------


@pytest.fixture
def hook_app(workdir, database_url, redis_url, _migrated):
    """An app that may deliver to loopback, with zero-second retries for a burst worker."""
    from jobs.runtime import set_app
    from webapp import create_app

    app = create_app(
        make_config(
            workdir,
            database_url,
            redis_url,
            webhook_allow_private=True,
            notify_retry_intervals=(0, 0),
        )
    )
    app.config["TESTING"] = True
    bootstrap(app)
    set_app(app)
    yield app
    set_app(None)
    _reset_state(app)


class Receiver:
    """Answers with the next status of `statuses` (the last one repeats), keeps every request."""

    def __init__(self, statuses=(200,)) -> None:
        self.statuses = list(statuses)

    def __call__(self, method, path, headers, body):  # noqa: ANN001, ANN204
        status = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
        return status, {"Content-Type": "text/plain"}, b"ok"


def received_events(server, secret: str) -> list[dict]:
    """Every delivery, after checking it as a receiver would with the public client."""
    events = []
    for request in server.requests:
        headers = {k.lower(): v for k, v in request["headers"].items()}
        assert verify_webhook(request["body"], headers["x-ledgix-signature"], secret)
        event = json.loads(request["body"])
        assert headers["x-ledgix-delivery"] == event["event_id"]
        assert headers["x-ledgix-timestamp"] == event["created_at"]
        assert headers["content-type"] == "application/json"
        events.append(event)
    return events


def test_a_decision_flow_sends_signed_events_the_client_verifies(hook_app):
    app, client = hook_app, hook_app.test_client()
    tenant = make_tenant(app, "Hooked")
    register_policy(client, tenant, "payments", RULES, ["pay_*"])
    with serving(Receiver()) as server:
        created = create(
            client,
            tenant,
            url=f"{server.url}/hook",
            events=["clearance.decided", "review.pending", "review.decided", "agent.locked"],
        ).get_json()
        approved = ask(client, tenant, "pay_invoice", {"amount": 120, "invoice_id": "A"})
        pending = ask(client, tenant, "pay_invoice", {"amount": 5_000, "invoice_id": "B"})
        run_worker(app)
        review = client.post(
            f"/reviews/{pending.get_json()['request_id']}/decision",
            json={"approved": False, "reviewer_email": "lead@example.com", "reason": "no"},
            headers=tenant.headers,
        )
        assert review.status_code == 200, review.get_json()
        locked = client.post("/drift/agents/agent-7/lockdown", json={}, headers=tenant.headers)
        assert locked.status_code == 200
        run_worker(app)
        events = received_events(server, created["secret"])

    by_type = {}
    for event in events:
        by_type.setdefault(event["type"], []).append(event)
        assert event["client_id"] == tenant.client_id
        assert set(event) == {"event_id", "type", "created_at", "client_id", "data"}
    approved_id = approved.get_json()["request_id"]
    pending_id = pending.get_json()["request_id"]
    decided = {e["data"]["request_id"]: e["data"] for e in by_type["clearance.decided"]}
    assert decided[approved_id]["status"] == "approved"
    assert decided[pending_id]["reason_code"] == "reviewer_denied"
    assert [e["data"]["request_id"] for e in by_type["review.pending"]] == [pending_id]
    assert by_type["review.decided"][0]["data"]["reviewer"] == "lead@example.com"
    assert by_type["agent.locked"][0]["data"]["agent_id"] == "agent-7"
    # The arguments stay out of events; their intent hash names them.
    assert "tool_args" not in decided[approved_id] and decided[approved_id]["tool_args_hash"]
    # A tampered body or another secret does not verify.
    raw = server.requests[0]["body"]
    signature = {k.lower(): v for k, v in server.requests[0]["headers"].items()}[
        "x-ledgix-signature"
    ]
    assert not verify_webhook(raw.replace(b"approved", b"denied!!"), signature, created["secret"])
    assert not verify_webhook(raw, signature, "whsec_other")

    log = client.get(
        f"/webhooks/{created['webhook_id']}/deliveries", headers=tenant.headers
    ).get_json()
    assert len(log["deliveries"]) == len(events) and log["next_cursor"] is None
    assert {d["status"] for d in log["deliveries"]} == {"delivered"}


def test_failed_attempts_are_retried_with_the_same_bytes_and_logged(hook_app):
    app, client = hook_app, hook_app.test_client()
    tenant = make_tenant(app, "Flaky")
    with serving(Receiver(statuses=(503, 500, 200))) as server:
        created = create(client, tenant, url=f"{server.url}/hook", events=["agent.locked"])
        created = created.get_json()
        client.post("/drift/agents/bot/lockdown", json={}, headers=tenant.headers)
        run_worker(app)
        bodies = [request["body"] for request in server.requests]
        received_events(server, created["secret"])
    assert len(bodies) == 3 and len(set(bodies)) == 1  # one event, three identical attempts
    [delivery] = client.get(
        f"/webhooks/{created['webhook_id']}/deliveries", headers=tenant.headers
    ).get_json()["deliveries"]
    assert delivery["status"] == "delivered" and delivery["attempts"] == 3
    assert [a["outcome"] for a in delivery["attempt_log"]] == ["failed", "failed", "delivered"]
    assert "HTTP 503" in delivery["attempt_log"][0]["detail"]


def test_an_endpoint_failing_twenty_deliveries_in_a_row_is_disabled(hook_app):
    from webapp.services import webhooks

    app, client = hook_app, hook_app.test_client()
    tenant = make_tenant(app, "Broken receiver")
    with serving(Receiver(statuses=(400,))) as server:
        created = create(client, tenant, url=f"{server.url}/hook", events=["report.ready"])
        webhook_id = created.get_json()["webhook_id"]
        with app.app_context():
            for n in range(20):
                webhooks.emit(tenant.client_id, "report.ready", {"report_id": f"r{n}"})
        run_worker(app)
        assert len(server.requests) == 20  # a 400 is not retried
        [endpoint] = client.get("/webhooks", headers=tenant.headers).get_json()["webhooks"]
        assert endpoint["enabled"] is False
        with app.app_context():
            assert webhooks.emit(tenant.client_id, "report.ready", {"report_id": "r21"}) == []
            row = webhooks.get_endpoint(tenant.client_id, webhook_id)
            assert "20 failed deliveries in a row" in row.disabled_reason
            webhooks.enable_endpoint(tenant.client_id, webhook_id, actor="test")
            assert len(webhooks.emit(tenant.client_id, "report.ready", {"report_id": "r22"})) == 1


def test_a_success_resets_the_failure_count(hook_app):
    from webapp.services import webhooks

    app, client = hook_app, hook_app.test_client()
    tenant = make_tenant(app, "Sometimes down")
    with serving(Receiver(statuses=(400,) * 19 + (200,) + (400,) * 19 + (400,))) as server:
        created = create(client, tenant, url=f"{server.url}/hook", events=["report.ready"])
        with app.app_context():
            for n in range(39):
                webhooks.emit(tenant.client_id, "report.ready", {"report_id": f"r{n}"})
                run_worker(app)
        assert len(server.requests) == 39
    [endpoint] = client.get("/webhooks", headers=tenant.headers).get_json()["webhooks"]
    assert endpoint["enabled"] is True, created.get_json()


def test_a_delivery_to_a_disabled_endpoint_is_skipped(hook_app):
    from webapp.extensions import db
    from webapp.models import WebhookDelivery
    from webapp.services import webhooks

    app, client = hook_app, hook_app.test_client()
    tenant = make_tenant(app, "Gone")
    with serving(Receiver()) as server:
        created = create(client, tenant, url=f"{server.url}/hook", events=["report.ready"])
        webhook_id = created.get_json()["webhook_id"]
        with app.app_context():
            [delivery] = webhooks.emit(tenant.client_id, "report.ready", {"report_id": "r"})
            row = webhooks.get_endpoint(tenant.client_id, webhook_id)
            row.enabled = False
            db.session.commit()
        run_worker(app)
        assert server.requests == []
    with app.app_context():
        assert db.session.get(WebhookDelivery, delivery.delivery_id).status == "skipped"


def test_without_the_private_switch_a_loopback_endpoint_is_refused(client, tenant):
    with serving(Receiver()) as server:
        response = create(client, tenant, url=f"{server.url}/hook")
    assert_problem(response, 400, "invalid_request")
    assert server.requests == []


def test_a_finished_report_sends_report_ready(hook_app):
    app, client = hook_app, hook_app.test_client()
    tenant = make_tenant(app, "Audited")
    with serving(Receiver()) as server:
        created = create(client, tenant, url=f"{server.url}/hook", events=["report.ready"])
        report = client.post("/reports", json={"formats": ["json"]}, headers=tenant.headers)
        assert report.status_code == 202, report.get_json()
        run_worker(app)
        [event] = received_events(server, created.get_json()["secret"])
    assert event["type"] == "report.ready"
    assert event["data"]["report_id"] == report.get_json()["report_id"]
    assert event["data"]["formats"] == ["json"]


def test_a_drift_incident_sends_a_signed_drift_detected_event(hook_app):
    """An agent's drift is injected through the real decision path (a week of round-the-clock
    payments, then a burst of wires to new IBANs); the scoring job crosses into high risk and
    a real receiver on loopback gets one signed ``drift.detected`` (CONTRACT §14)."""
    import hashlib
    import hmac

    from tests.api.test_drift import approve, rescore, seed_baseline

    app, client = hook_app, hook_app.test_client()
    tenant = make_tenant(app, "Drifting")
    register_policy(
        client, tenant, "payments", ["Payments above $10,000 are not allowed"], ["pay_*"]
    )
    with serving(Receiver()) as server:
        created = create(
            client, tenant, url=f"{server.url}/hook", events=["drift.detected"]
        ).get_json()
        seed_baseline(app, tenant.client_id, "agent-7")
        approve(client, tenant)
        run_worker(app)
        for n in range(5):
            ask(client, tenant, "pay_wire", {"amount": 5, "iban": f"GB33BUKB2020155555{n:04d}"})
        run_worker(app)
        assert server.requests == []  # nothing subscribed has happened yet
        rescore(app)
        run_worker(app)
        [event] = received_events(server, created["secret"])
        [request] = server.requests

    # The signature is HMAC-SHA256 over the raw body with the endpoint's secret, by hand too.
    headers = {k.lower(): v for k, v in request["headers"].items()}
    expected = hmac.new(created["secret"].encode(), request["body"], hashlib.sha256).hexdigest()
    assert headers["x-ledgix-signature"] == f"sha256={expected}"
    assert request["method"] == "POST" and request["path"] == "/hook"

    [incident] = client.get("/drift/events", headers=tenant.headers).get_json()["events"]
    assert set(event) == {"event_id", "type", "created_at", "client_id", "data"}
    assert event["type"] == "drift.detected"
    assert event["client_id"] == tenant.client_id
    assert event["data"] == {
        "drift_event_id": incident["event_id"],
        "agent_id": "agent-7",
        "detected_at": incident["detected_at"],
        "drift_score": incident["drift_score"],
        "risk_level": "high",
        "action": incident["action"],
    }
    log = client.get(
        f"/webhooks/{created['webhook_id']}/deliveries", headers=tenant.headers
    ).get_json()
    [delivery] = log["deliveries"]
    assert delivery["status"] == "delivered"
