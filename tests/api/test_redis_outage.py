"""A Redis outage (issue 16 §2), against a real redis-server the test stops and starts.

What needs only the database keeps serving; what could create an approval or a token is
refused with 503 and writes nothing; /ready says which part is down; everything comes back
when Redis does.
"""

from __future__ import annotations

import pytest

from tests.api.test_foundation import assert_problem
from tests.conftest import bootstrap, make_config, make_tenant
from tests.helpers import RedisProcess, ask, register_policy


@pytest.fixture
def own_redis(workdir):
    server = RedisProcess(workdir).start()
    yield server
    server.stop()


@pytest.fixture
def outage_app(workdir, database_url, _migrated, own_redis):
    from jobs.runtime import set_app
    from tests.conftest import _reset_state
    from webapp import create_app

    app = create_app(
        make_config(
            workdir,
            database_url,
            own_redis.url,
            allow_stub_judge=True,
            rate_limit_rps=1000,
            rate_limit_burst=1000,
        )
    )
    app.config["TESTING"] = True
    bootstrap(app)
    set_app(app)
    yield app
    set_app(None)
    if own_redis.process is None:
        own_redis.start()
    _reset_state(app)
    with app.app_context():
        from webapp.extensions import db

        db.engine.dispose()  # PostgreSQL connections are shared by every session on the server


def run_worker(app) -> None:
    from rq import SimpleWorker

    from jobs.queues import all_queues
    from webapp.runtime import vault

    with app.app_context():
        connection = vault().redis
    SimpleWorker(all_queues(connection), connection=connection).work(burst=True)


def count(sql, table: str) -> int:
    return sql(f"SELECT COUNT(*) FROM {table}").scalar()


def test_what_needs_no_redis_keeps_serving_and_the_rest_comes_back(outage_app, own_redis, sql):
    client = outage_app.test_client()
    tenant = make_tenant(outage_app, "Outage Co")
    register_policy(client, tenant, "payments", ["Payments need an invoice"], ["pay_invoice"])
    first = ask(client, tenant, "pay_invoice", {"amount": 5, "invoice_id": "INV-5"})
    second = ask(client, tenant, "pay_invoice", {"amount": 6, "invoice_id": "INV-6"})
    run_worker(outage_app)
    approved = [
        client.get(f"/clearance-status/{r.get_json()['request_id']}", headers=tenant.headers)
        for r in (first, second)
    ]
    assert [a.get_json()["status"] for a in approved] == ["approved", "approved"]
    token = approved[0].get_json()["token"]

    own_redis.stop()
    requests_before = count(sql, "clearance_requests")

    # Database only: served.
    rid = first.get_json()["request_id"]
    status = client.get(f"/clearance-status/{rid}", headers=tenant.headers)
    assert status.status_code == 200 and status.get_json()["status"] == "approved"
    consumed = client.post("/consume-token", json={"token": token}, headers=tenant.headers)
    assert consumed.status_code == 200, consumed.get_data(as_text=True)
    assert consumed.get_json()["valid"] is True
    replay = client.post("/consume-token", json={"token": token}, headers=tenant.headers)
    assert_problem(replay, 409, "token_replayed")
    assert client.get("/ledger", headers=tenant.headers).status_code == 200
    assert client.get("/ledger/verify", headers=tenant.headers).get_json()["intact"]
    assert client.get("/.well-known/jwks.json").status_code == 200

    # Could create an approval (even decided at once, with no queue): the rate limiter cannot
    # count it, so it is refused and nothing is written.
    refused = ask(client, tenant, "pay_invoice", {"amount": 7, "invoice_id": "INV-7"})
    assert_problem(refused, 503, "unavailable")
    assert refused.headers["Retry-After"]
    assert count(sql, "clearance_requests") == requests_before

    ready = client.get("/ready")
    assert ready.status_code == 200
    body = ready.get_json()
    assert body["status"] == "degraded"
    assert body["checks"] == {"database": "ok", "redis": "down", "signer": "ok"}

    # Redis is back (empty: a restart without persistence): everything works again.
    own_redis.start()
    assert client.get("/ready").get_json()["status"] == "ready"
    again = ask(client, tenant, "pay_invoice", {"amount": 7, "invoice_id": "INV-7"})
    # Decided at once by the fast lane (no remote judge): 200, final.
    assert again.status_code == 200, again.get_data(as_text=True)
    run_worker(outage_app)
    final = client.get(
        f"/clearance-status/{again.get_json()['request_id']}", headers=tenant.headers
    ).get_json()
    assert final["status"] == "approved"


def test_writes_that_could_approve_fail_closed_without_redis(outage_app, own_redis, sql):
    """The rate limiter runs unmetered only for reads and token burns; other writes get 503."""
    client = outage_app.test_client()
    tenant = make_tenant(outage_app, "Closed Co")
    own_redis.stop()
    response = client.post(
        "/reviews/req_missing/decision",
        json={"approved": True, "reviewer_email": "r@example.com"},
        headers=tenant.headers,
    )
    assert_problem(response, 503, "unavailable")
    response = client.post(
        "/register-policy", json={"policy_id": "p", "rules": ["x"]}, headers=tenant.headers
    )
    assert_problem(response, 503, "unavailable")
    assert count(sql, "policies") == 0
    # A read still answers (here: 404 for an unknown request, from the database).
    response = client.get("/clearance-status/req_missing", headers=tenant.headers)
    assert_problem(response, 404, "not_found")
