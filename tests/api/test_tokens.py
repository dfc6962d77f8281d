"""A-JWT minting (CONTRACT §4) and POST /consume-token (CONTRACT §5).

These tests get approvals from the development stub judge (VAULT_ALLOW_STUB_JUDGE), so that
they exercise tokens alone; the judge's own decisions are tested in test_clearance_flow.
"""

from __future__ import annotations

import base64
import json
import threading
import time

import jwt as pyjwt
import pytest

from tests.api.test_foundation import assert_problem
from tests.conftest import make_config, make_tenant
from tests.helpers import ask, register_policy


@pytest.fixture
def stub_app(workdir, database_url, redis_url, _migrated):
    from jobs.runtime import set_app
    from tests.conftest import _reset_state
    from webapp import create_app

    app = create_app(make_config(workdir, database_url, redis_url, allow_stub_judge=True))
    app.config["TESTING"] = True
    set_app(app)
    yield app
    set_app(None)
    _reset_state(app)


@pytest.fixture
def approved(stub_app, run_stub_jobs):
    """An approved request of a fresh tenant: (client, tenant, status body)."""
    client = stub_app.test_client()
    tenant = make_tenant(stub_app, "Token Co")
    register_policy(client, tenant, "payments", ["Payments need an invoice"], ["pay_invoice"])
    first = ask(
        client,
        tenant,
        "pay_invoice",
        {"amount": 120.5, "invoice_id": "INV-1", "currency": "EUR"},
        session_id="sess-9",
    )
    assert first.status_code == 200  # decided at once by the fast lane
    status = client.get(
        f"/clearance-status/{first.get_json()['request_id']}", headers=tenant.headers
    ).get_json()
    assert status["status"] == "approved"
    return client, tenant, status


@pytest.fixture
def run_stub_jobs(stub_app):
    from rq import SimpleWorker

    from jobs.queues import all_queues

    def run():
        connection = stub_app.extensions["vault"].redis
        SimpleWorker(all_queues(connection), connection=connection).work(burst=True)

    return run


def jwks(client):
    return client.get("/.well-known/jwks.json").get_json()


def test_token_claims_follow_the_contract_and_verify_with_pyjwt(approved):
    client, tenant, status = approved
    token = status["token"]
    header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    assert header == {"alg": "EdDSA", "typ": "JWT", "kid": "vault-key-001"}
    key = pyjwt.PyJWK(jwks(client)["keys"][0])
    claims = pyjwt.decode(
        token, key=key, algorithms=["EdDSA"], audience="ledgix-sdk", issuer="alcv-vault"
    )
    assert claims["sub"] == "clearance" and claims["decision"] == "yes"
    assert claims["exp"] == claims["iat"] + 300 and claims["nbf"] == claims["iat"]
    assert claims["tool"] == "pay_invoice" and claims["agent_id"] == "agent-7"
    assert claims["session_id"] == "sess-9" and claims["client_id"] == tenant.client_id
    assert claims["request_id"] == status["request_id"] and claims["policy_id"] == "payments"
    import hashlib

    import rfc8785

    expected = hashlib.sha256(
        rfc8785.dumps({"amount": 120.5, "invoice_id": "INV-1", "currency": "EUR"})
    ).hexdigest()
    assert claims["tool_args_hash"] == expected
    # The status endpoint returns that same token, every time.
    again = client.get(
        f"/clearance-status/{status['request_id']}", headers=tenant.headers
    ).get_json()
    assert again["token"] == token


def test_consume_burns_once_and_replay_is_409(approved, sql):
    client, tenant, status = approved
    token = status["token"]
    first = client.post("/consume-token", json={"token": token}, headers=tenant.headers)
    assert first.status_code == 200
    body = first.get_json()
    assert (
        body["valid"] is True
        and body["tool_name"] == "pay_invoice"
        and body["session_id"] == "sess-9"
    )
    assert body["request_id"] == status["request_id"] and body["consumed_at"].endswith("Z")
    replay = client.post("/consume-token", json={"token": token}, headers=tenant.headers)
    problem = assert_problem(replay, 409, "token_replayed")
    assert (
        problem["valid"] is False
        and problem["jti"] == body["jti"]
        and problem["consumed_at"] == body["consumed_at"]
    )
    burns = sql(
        "SELECT count(*) FROM ledger_events WHERE action_category = 'token_consumed'"
    ).scalar()
    assert burns == 1


def test_binding_check_burns_a_token_shown_with_other_arguments(approved):
    client, tenant, status = approved
    token = status["token"]
    wrong = client.post(
        "/consume-token",
        json={
            "token": token,
            "tool_name": "pay_invoice",
            "tool_args": {"amount": 99999, "invoice_id": "INV-1", "currency": "EUR"},
        },
        headers=tenant.headers,
    )
    assert assert_problem(wrong, 422, "args_mismatch")["valid"] is False
    # Burned: even the right arguments are now a replay.
    right = client.post(
        "/consume-token",
        json={
            "token": token,
            "tool_name": "pay_invoice",
            "tool_args": {"currency": "EUR", "invoice_id": "INV-1", "amount": 120.5},
        },
        headers=tenant.headers,
    )
    assert_problem(right, 409, "token_replayed")


def test_matching_binding_is_accepted(approved):
    client, tenant, status = approved
    ok = client.post(
        "/consume-token",
        json={
            "token": status["token"],
            "tool_name": "pay_invoice",
            "tool_args": {"currency": "EUR", "invoice_id": "INV-1", "amount": 120.5},
        },
        headers=tenant.headers,
    )
    assert ok.status_code == 200


def _forge(stub_app, claims_update=None, header_update=None, sign=True):
    """Sign a token with the vault's own key (or not) with chosen claims."""
    from webapp.ledger.encoding import b64url_encode
    from webapp.services.tokens import _segment

    now = int(time.time())
    claims = {
        "iss": "alcv-vault",
        "aud": "ledgix-sdk",
        "sub": "clearance",
        "iat": now,
        "nbf": now,
        "exp": now + 300,
        "jti": "forged-jti",
        "tool": "pay_invoice",
        "tool_args_hash": "0" * 64,
        "agent_id": "a",
        "policy_id": "p",
        "decision": "yes",
        "request_id": "req_x",
        "client_id": "cl_x",
    }
    claims.update(claims_update or {})
    header = {"alg": "EdDSA", "typ": "JWT", "kid": "vault-key-001", **(header_update or {})}
    signing_input = f"{_segment(header)}.{_segment(claims)}"
    signature = (
        stub_app.extensions["vault"].signer.sign(signing_input.encode()) if sign else b"\x00" * 64
    )
    return f"{signing_input}.{b64url_encode(signature)}"


def test_invalid_and_expired_tokens_are_422_and_burn_nothing(approved, stub_app, sql):
    client, tenant, status = approved
    token = status["token"]
    own = {"client_id": tenant.client_id}
    cases = {
        "tampered": token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB"),
        "malformed": "not-a-jwt",
        "unknown-kid": _forge(stub_app, own, {"kid": "someone-else"}),
        "bad-signature": _forge(stub_app, own, sign=False),
        "wrong-aud": _forge(stub_app, {**own, "aud": "other-sdk"}),
        "wrong-iss": _forge(stub_app, {**own, "iss": "evil"}),
        "wrong-sub": _forge(stub_app, {**own, "sub": "other"}),
        "other-tenant": _forge(stub_app, {"client_id": "cl_someone_else"}),
        "alg-none": base64.urlsafe_b64encode(b'{"alg":"none","kid":"vault-key-001"}')
        .decode()
        .rstrip("=")
        + ".e30.",
    }
    for name, bad in cases.items():
        response = client.post("/consume-token", json={"token": bad}, headers=tenant.headers)
        assert assert_problem(response, 422, "token_invalid")["valid"] is False, name
    expired = _forge(
        stub_app,
        {
            **own,
            "iat": int(time.time()) - 400,
            "nbf": int(time.time()) - 400,
            "exp": int(time.time()),
        },
    )
    assert_problem(
        client.post("/consume-token", json={"token": expired}, headers=tenant.headers),
        422,
        "token_expired",
    )
    assert sql("SELECT count(*) FROM burned_tokens").scalar() == 0
    # The genuine token is still good.
    assert (
        client.post("/consume-token", json={"token": token}, headers=tenant.headers).status_code
        == 200
    )


def test_another_tenants_token_is_invalid_here(approved, stub_app):
    client, tenant, status = approved
    other = make_tenant(stub_app, "Intruder")
    response = client.post("/consume-token", json={"token": status["token"]}, headers=other.headers)
    assert_problem(response, 422, "token_invalid")


def test_bad_consume_bodies(approved):
    client, tenant, _ = approved
    assert_problem(
        client.post("/consume-token", json={}, headers=tenant.headers), 400, "invalid_request"
    )
    assert_problem(
        client.post("/consume-token", json={"token": 5}, headers=tenant.headers),
        400,
        "invalid_request",
    )
    assert_problem(
        client.post(
            "/consume-token",
            data="token=x",
            headers={**tenant.headers, "Content-Type": "text/plain"},
        ),
        415,
        "unsupported_media_type",
    )


def test_parallel_consumes_exactly_one_wins(approved, stub_app):
    client, tenant, status = approved
    token = status["token"]
    results: list[int] = []
    barrier = threading.Barrier(32)

    def consume():
        local = stub_app.test_client()
        barrier.wait()
        results.append(
            local.post("/consume-token", json={"token": token}, headers=tenant.headers).status_code
        )

    threads = [threading.Thread(target=consume) for _ in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [200] + [409] * 31
