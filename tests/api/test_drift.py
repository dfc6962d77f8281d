"""Drift detection through the API with the built-in judge, a real RQ worker, real Redis counters
and a real SMTP server: settings, counters on every decision, the scoring job, the ladder
(medium forces review, high locks down), release, and tenant isolation."""

from __future__ import annotations

import email
import email.policy
import time
from datetime import timedelta

import pytest
from aiosmtpd.controller import Controller

from tests.api.test_foundation import assert_problem
from tests.api.test_notifications_delivery import Inbox, free_port
from tests.conftest import _reset_state, bootstrap, make_config, make_tenant
from tests.helpers import ask, register_policy

PAYMENT_RULES = ["Payments above $10,000 are not allowed"]
KNOWN_IBANS = [f"DE89370400440532013{n:03d}" for n in range(6)]


@pytest.fixture
def smtp():
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield inbox, controller.port
    controller.stop()


@pytest.fixture
def drift_app(workdir, database_url, redis_url, _migrated, smtp):
    """The test app with a real SMTP server for drift.detected emails."""
    from jobs.runtime import set_app
    from webapp import create_app

    app = create_app(
        make_config(
            workdir,
            database_url,
            redis_url,
            smtp_host="127.0.0.1",
            smtp_port=smtp[1],
            notify_retry_intervals=(),
            public_url="https://vault.example.test",
        )
    )
    app.config["TESTING"] = True
    bootstrap(app)
    set_app(app)
    yield app
    set_app(None)
    _reset_state(app)


@pytest.fixture
def setup(drift_app):
    tenant = make_tenant(drift_app, "Acme Payments")
    client = drift_app.test_client()
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    return drift_app, tenant, client


def run_all(app) -> None:
    from rq import SimpleWorker

    from jobs.queues import all_queues

    connection = app.extensions["vault"].redis
    SimpleWorker(all_queues(connection), connection=connection).work(burst=True)


def rescore(app) -> None:
    """Queue the periodic drift job the way rq cron does, and run it in a real worker."""
    from jobs import queues
    from jobs.drift import score_drift

    queues.queue(queues.DEFAULT, app.extensions["vault"].redis).enqueue(score_drift)
    run_all(app)


def seed_baseline(app, client_id: str, agent_id: str, days: int = 8, per_hour: int = 2) -> None:
    """A round-the-clock agent's past, through the same counter writes the decision path makes:
    one payment tool, amounts near 100, a handful of known IBANs, every token consumed. Seed
    before the agent's first live request: first-seen hours keep the earliest write."""
    from webapp.drift import features
    from webapp.services import drift

    now = time.time()
    with app.app_context():
        for hours_ago in range(days * 24, 0, -1):
            at = now - hours_ago * 3600
            for n in range(per_hour):
                counters = features.decision_counters(
                    "pay_invoice",
                    {"amount": 90 + (hours_ago * 7 + n * 13) % 25, "iban": KNOWN_IBANS[n % 6]},
                    {},
                    "allow",
                    at=at,
                )
                counters[features.token_counter("minted")] = 1
                counters[features.token_counter("consumed")] = 1
                drift.write_counters(client_id, agent_id, counters, now=at)


def approve(client, tenant, agent: str = "agent-7", **args) -> dict:
    body = {"amount": 100, "iban": KNOWN_IBANS[0], **args}
    return ask(client, tenant, "pay_invoice", body, agent_id=agent).get_json()


def status(client, tenant, request_id: str) -> dict:
    return client.get(f"/clearance-status/{request_id}", headers=tenant.headers).get_json()


def bucket(app, client_id: str, agent_id: str) -> dict[str, int]:
    from webapp.drift import features
    from webapp.services.drift import BUCKET_KEY

    key = BUCKET_KEY.format(
        client_id=client_id, hour=features.hour_of(time.time()), agent_id=agent_id
    )
    raw = app.extensions["vault"].redis.hgetall(key)
    return {k.decode(): int(v) for k, v in raw.items()}


# --- settings --------------------------------------------------------------------------------


def test_settings_defaults_partial_update_and_audit(client, tenant, sql):
    got = client.get("/drift/settings", headers=tenant.headers)
    assert got.status_code == 200
    assert got.get_json() == {
        "enabled": True,
        "baseline_days": 7,
        "window_hours": 24,
        "score_threshold": 0.7,
        "min_events": 20,
        "auto_lockdown": False,
    }
    put = client.put(
        "/drift/settings",
        json={"auto_lockdown": True, "score_threshold": 0.8, "unknown": 1},
        headers=tenant.headers,
    )
    assert put.status_code == 200
    assert put.get_json()["auto_lockdown"] is True and put.get_json()["score_threshold"] == 0.8
    assert client.get("/drift/settings", headers=tenant.headers).get_json() == put.get_json()
    changed = sql(
        "SELECT count(*) FROM ledger_events WHERE action_category = 'settings_changed'"
    ).scalar()
    assert changed == 1


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("baseline_days", 0),
        ("baseline_days", 91),
        ("baseline_days", 7.5),
        ("baseline_days", "7"),
        ("window_hours", 0),
        ("window_hours", 169),
        ("score_threshold", -0.01),
        ("score_threshold", 1.01),
        ("score_threshold", True),
        ("min_events", 0),
        ("min_events", 10_001),
        ("enabled", "yes"),
        ("auto_lockdown", 1),
    ],
)
def test_settings_out_of_range_are_400_naming_the_field(client, tenant, field, value):
    response = client.put("/drift/settings", json={field: value}, headers=tenant.headers)
    body = assert_problem(response, 400, "invalid_request")
    assert body["errors"][0]["field"] == field
    assert client.get("/drift/settings", headers=tenant.headers).get_json()[field] != value


def test_settings_bad_bodies(client, tenant):
    assert_problem(
        client.put("/drift/settings", json={}, headers=tenant.headers), 400, "invalid_request"
    )
    assert_problem(
        client.put("/drift/settings", data="x", headers=tenant.headers, content_type="text/plain"),
        415,
        "unsupported_media_type",
    )
    assert client.get("/drift/settings").status_code == 401


# --- counters on the decision path -----------------------------------------------------------


def test_every_decision_and_token_use_updates_the_agents_hourly_counters(setup):
    app, tenant, client = setup
    first = approve(client, tenant)
    run_all(app)
    approved = status(client, tenant, first["request_id"])
    assert approved["status"] == "approved"
    counts = bucket(app, tenant.client_id, "agent-7")
    assert counts["n"] == 1 and counts["t\tpay_invoice"] == 1 and counts["o\tallow"] == 1
    assert counts["k\tminted"] == 1
    assert sum(v for k, v in counts.items() if k.startswith("c\t")) == 1
    assert not any(KNOWN_IBANS[0] in key for key in counts)  # digests, never the IBAN

    burn = {"token": approved["token"]}
    assert client.post("/consume-token", json=burn, headers=tenant.headers).status_code == 200
    assert client.post("/consume-token", json=burn, headers=tenant.headers).status_code == 409
    second = approve(client, tenant)
    run_all(app)
    token = status(client, tenant, second["request_id"])["token"]
    mismatch = {"token": token, "tool_name": "pay_invoice", "tool_args": {"amount": 9999}}
    assert client.post("/consume-token", json=mismatch, headers=tenant.headers).status_code == 422
    counts = bucket(app, tenant.client_id, "agent-7")
    assert (counts["k\tconsumed"], counts["k\treplay"], counts["k\targs_mismatch"]) == (1, 1, 1)
    assert counts["n"] == 2 and counts["k\tminted"] == 2


# --- the ladder ------------------------------------------------------------------------------


def test_medium_risk_sends_every_request_of_the_agent_to_review(setup):
    app, tenant, client = setup
    seed_baseline(app, tenant.client_id, "agent-7")
    approve(client, tenant)
    run_all(app)
    rescore(app)
    summary = client.get("/drift/summary", headers=tenant.headers).get_json()
    assert summary["agents"][0]["risk_level"] == "low"

    # Two calls of a tool it never used: a clear sign, but not yet high.
    for _ in range(2):
        ask(client, tenant, "pay_payroll", {"amount": 100}, agent_id="agent-7")
    run_all(app)
    rescore(app)
    (agent,) = client.get("/drift/summary", headers=tenant.headers).get_json()["agents"]
    assert agent["risk_level"] == "medium", agent
    assert agent["signals"]["new_capability"]["evidence"]["new_tools"] == {"pay_payroll": 2}

    request_id = approve(client, tenant)["request_id"]
    run_all(app)
    body = status(client, tenant, request_id)
    assert (body["status"], body["reason_code"]) == ("pending_review", "review_required_by_rule")
    assert "drift" in body["reason"] and "new_capability" in body["reason"]
    # Another agent of the same tenant is judged as usual.
    other = approve(client, tenant, agent="agent-8")["request_id"]
    run_all(app)
    assert status(client, tenant, other)["status"] == "approved"
    # No drift event below the threshold.
    assert client.get("/drift/events", headers=tenant.headers).get_json()["events"] == []


def test_high_risk_with_auto_lockdown_locks_notifies_and_needs_a_reasoned_release(setup, smtp):
    app, tenant, client = setup
    inbox, _ = smtp
    assert (
        client.put(
            "/drift/settings", json={"auto_lockdown": True}, headers=tenant.headers
        ).status_code
        == 200
    )
    assert (
        client.put(
            "/notification-settings",
            json={"email_enabled": True, "email_recipients": "reviewer@acme.test"},
            headers=tenant.headers,
        ).status_code
        == 200
    )
    seed_baseline(app, tenant.client_id, "agent-7")
    approve(client, tenant)
    run_all(app)
    rescore(app)

    # A stolen credential: a new tool, large amounts, to IBANs the agent never paid.
    for n in range(5):
        ask(
            client,
            tenant,
            "pay_wire",
            {"amount": 9000 + n, "iban": f"GB33BUKB20201555555{n:03d}"},
            agent_id="agent-7",
        )
    run_all(app)
    rescore(app)

    (event,) = client.get("/drift/events", headers=tenant.headers).get_json()["events"]
    assert event["agent_id"] == "agent-7" and event["action"] == "lockdown"
    assert event["drift_score"] >= 0.7 and event["risk_level"] == "high"
    kinds = [s["kind"] for s in event["signals"]]
    assert {"new_capability", "new_counterparties"} <= set(kinds)
    (agent,) = client.get("/drift/summary", headers=tenant.headers).get_json()["agents"]
    assert agent["locked_down"] is True and agent["last_event_at"] == event["detected_at"]
    ledger = client.get("/ledger?limit=50", headers=tenant.headers).get_json()["entries"]
    lockdown = next(e for e in ledger if e["action_category"] == "agent_lockdown")
    assert lockdown["action_metadata"]["locked_by"] == "drift"

    # Reviewers are told, by the notification channel they chose.
    run_all(app)
    deadline = time.monotonic() + 10
    while not inbox.messages and time.monotonic() < deadline:
        time.sleep(0.02)
    (mail,) = inbox.messages
    message = email.message_from_bytes(mail["raw"], policy=email.policy.default)
    assert "agent-7" in message["Subject"] and "locked down" in message["Subject"]
    assert "new_capability" in message.get_body(("plain",)).get_content()

    # A locked agent is denied without the policy being evaluated.
    denied = approve(client, tenant)
    assert (denied["status"], denied["reason_code"]) == ("denied", "agent_locked_down")

    # Release needs a person and a reason.
    no_reason = client.delete("/drift/agents/agent-7/lockdown", headers=tenant.headers)
    assert assert_problem(no_reason, 400, "invalid_request")["errors"][0]["field"] == "reason"
    released = client.delete(
        "/drift/agents/agent-7/lockdown",
        json={"reason": "keys rotated after review"},
        headers=tenant.headers,
    ).get_json()
    assert released["locked_down"] is False
    assert (released["released_by"], released["reason"]) == (
        "initial key",
        "keys rotated after review",
    )
    # Still high: no new crossing, so no second lockdown, but every request is reviewed.
    rescore(app)
    assert len(client.get("/drift/events", headers=tenant.headers).get_json()["events"]) == 1
    request_id = approve(client, tenant)["request_id"]
    run_all(app)
    assert status(client, tenant, request_id)["reason_code"] == "review_required_by_rule"


def test_high_risk_without_auto_lockdown_writes_an_event_and_only_forces_review(setup):
    app, tenant, client = setup
    seed_baseline(app, tenant.client_id, "agent-7")
    approve(client, tenant)
    run_all(app)
    for n in range(5):
        ask(client, tenant, "pay_wire", {"amount": 5, "iban": f"GB33BUKB2020155555{n:04d}"})
    run_all(app)
    rescore(app)
    (event,) = client.get("/drift/events", headers=tenant.headers).get_json()["events"]
    assert event["action"] == "none"
    (agent,) = client.get("/drift/summary", headers=tenant.headers).get_json()["agents"]
    assert (agent["risk_level"], agent["locked_down"]) == ("high", False)
    request_id = approve(client, tenant)["request_id"]
    run_all(app)
    assert status(client, tenant, request_id)["status"] == "pending_review"


def test_an_agent_still_learning_is_never_high(setup):
    app, tenant, client = setup
    client.put("/drift/settings", json={"auto_lockdown": True}, headers=tenant.headers)
    for n in range(6):
        ask(client, tenant, "pay_wire", {"amount": 9000, "iban": f"GB33BUKB2020155555{n:04d}"})
    run_all(app)
    rescore(app)
    (agent,) = client.get("/drift/summary", headers=tenant.headers).get_json()["agents"]
    assert (agent["risk_level"], agent["locked_down"]) == ("learning", False)
    assert client.get("/drift/events", headers=tenant.headers).get_json()["events"] == []
    assert approve(client, tenant)["status"] == "approved"  # judged as usual, no forced review


def test_disabled_drift_neither_scores_nor_forces_review(setup):
    app, tenant, client = setup
    seed_baseline(app, tenant.client_id, "agent-7")
    approve(client, tenant)
    run_all(app)
    client.put("/drift/settings", json={"enabled": False}, headers=tenant.headers)
    for _ in range(6):
        ask(client, tenant, "pay_payroll", {"amount": 100})
    run_all(app)
    rescore(app)
    (agent,) = client.get("/drift/summary", headers=tenant.headers).get_json()["agents"]
    assert agent["risk_level"] == "learning" and agent["drift_score"] == 0


# --- lockdown, release, isolation ------------------------------------------------------------


def test_lock_an_unseen_agent_in_advance_and_release_idempotently(client, tenant, sql):
    locked = client.post(
        "/drift/agents/not-yet-seen/lockdown",
        json={"reason": "pre-emptive"},
        headers=tenant.headers,
    )
    assert locked.status_code == 200
    assert locked.get_json()["locked_by"] == "initial key" and locked.get_json()["locked_down"]
    released = client.delete(
        "/drift/agents/not-yet-seen/lockdown",
        json={"reason": "false alarm"},
        headers=tenant.headers,
    )
    assert released.get_json()["reason"] == "false alarm"
    again = client.delete("/drift/agents/not-yet-seen/lockdown", headers=tenant.headers)
    assert (
        again.status_code == 200
        and again.get_json()["released_at"] == (released.get_json()["released_at"])
    )
    never = client.delete("/drift/agents/never-locked/lockdown", headers=tenant.headers)
    assert never.status_code == 200 and never.get_json()["locked_down"] is False
    releases = sql(
        "SELECT count(*) FROM ledger_events WHERE action_category = 'agent_release'"
    ).scalar()
    assert releases == 1
    too_long = client.post(f"/drift/agents/{'a' * 300}/lockdown", headers=tenant.headers)
    assert_problem(too_long, 400, "invalid_request")


def test_summary_and_events_are_per_tenant_with_a_cursor(app, client, tenant, other_tenant):
    from webapp.extensions import db
    from webapp.models import AgentState, DriftEvent, utcnow

    with app.app_context():
        now = utcnow()
        db.session.add(AgentState(client_id=tenant.client_id, agent_id="agent-7"))
        for n in range(3):
            db.session.add(
                DriftEvent(
                    event_id=f"drift_{n}",
                    client_id=tenant.client_id,
                    agent_id="agent-7",
                    detected_at=now - timedelta(minutes=n),
                    drift_score=0.8,
                    risk_level="high",
                    signals=[{"kind": "volume", "score": 0.8, "evidence": {}}],
                    action="none",
                )
            )
        db.session.commit()

    page = client.get("/drift/events?limit=2", headers=tenant.headers).get_json()
    assert [e["event_id"] for e in page["events"]] == ["drift_0", "drift_1"]
    rest = client.get(
        f"/drift/events?limit=2&cursor={page['next_cursor']}", headers=tenant.headers
    ).get_json()
    assert [e["event_id"] for e in rest["events"]] == ["drift_2"] and rest["next_cursor"] is None
    for bad in ("cursor=%%%", "limit=0", "cursor=e30"):
        assert_problem(
            client.get(f"/drift/events?{bad}", headers=tenant.headers), 400, "invalid_request"
        )

    theirs = client.get("/drift/events", headers=other_tenant.headers).get_json()
    assert theirs == {"events": [], "next_cursor": None}
    assert client.get("/drift/summary", headers=other_tenant.headers).get_json()["agents"] == []
    ours = client.get("/drift/summary", headers=tenant.headers).get_json()
    assert [a["agent_id"] for a in ours["agents"]] == ["agent-7"] and ours["generated_at"]
    # Another tenant's cursor reveals nothing either.
    assert (
        client.get(
            f"/drift/events?cursor={page['next_cursor']}", headers=other_tenant.headers
        ).get_json()["events"]
        == []
    )
