"""The tool gateway (CONTRACT §13) between a real vault and a real upstream, both on loopback.

The vault is the `app` fixture served over HTTP; approvals come from the built-in judge through
a real RQ worker; the upstream is a real HTTP server that records what reaches it.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from werkzeug.serving import make_server

from gateway import Gateway, GatewayConfig
from gateway.routes import RoutesError, load_routes, parse_routes
from tests.helpers import LoopbackServer, ask, register_policy

RULES = ["Payments above $10,000 are not allowed", "Payments must include an invoice_id"]
INVOICE = {"amount": 120, "invoice_id": "INV-7"}


@dataclass
class Served:
    url: str
    server: object
    thread: threading.Thread

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def serve(wsgi_app) -> Served:  # noqa: ANN001
    server = make_server("127.0.0.1", 0, wsgi_app, threaded=True)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    return Served(f"http://127.0.0.1:{server.server_port}", server, thread)


@pytest.fixture
def vault_url(app) -> Iterator[str]:
    served = serve(app)
    yield served.url
    served.stop()


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Set by a test to let a deliberately slow upstream answer (and at teardown)."""
    event = threading.Event()
    yield event
    event.set()


@pytest.fixture
def upstream(release) -> Iterator[LoopbackServer]:
    def answer(method: str, path: str, headers: dict[str, str], body: bytes):
        if path.startswith("/slow"):
            release.wait(10)
        if path.startswith("/big"):
            return 200, {"Content-Type": "application/octet-stream"}, bytes(range(256)) * 8192
        return (
            201,
            {"Content-Type": "application/json", "X-Upstream": "yes"},
            json.dumps(
                {"ran": method, "path": path, "got": json.loads(body) if body else None}
            ).encode(),
        )

    with LoopbackServer(answer) as server:
        yield server


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def gateway(tmp_path, vault_url, upstream, tenant) -> Iterator[str]:
    routes = {
        "routes": [
            {"path": "/", "tool": "pay_catchall", "upstream": upstream.url},
            {
                "path": "/invoices/pay",
                "methods": ["POST"],
                "tool": "pay_invoice",
                "upstream": upstream.url,
            },
            {
                "path": "/invoices",
                "methods": ["GET"],
                "tool": "pay_lookup",
                "upstream": upstream.url,
            },
            {"path": "/slow", "methods": ["POST"], "tool": "pay_invoice", "upstream": upstream.url},
            {"path": "/big", "methods": ["POST"], "tool": "pay_invoice", "upstream": upstream.url},
            {
                "path": "/gone",
                "methods": ["POST"],
                "tool": "pay_invoice",
                "upstream": f"http://127.0.0.1:{closed_port()}",
            },
        ]
    }
    routes["routes"].pop(0)  # the catch-all is only for test_routes_file_format
    path = tmp_path / "routes.json"
    path.write_text(json.dumps(routes))
    config = GatewayConfig(
        vault_url=vault_url,
        vault_api_key=tenant.api_key,
        routes_file=str(path),
        upstream_timeout_seconds=0.5,
    )
    app = Gateway(config, load_routes(path))
    served = serve(app)
    yield served.url
    served.stop()
    app.close()


@pytest.fixture
def approve(client, tenant, run_jobs):
    """approve(tool, args) -> an approval token minted by the real vault for that exact call."""
    register_policy(client, tenant, "payments", RULES, ["pay_*"])

    def run(tool: str = "pay_invoice", args: dict | None = None) -> dict:
        asked = ask(client, tenant, tool, INVOICE if args is None else args).get_json()
        run_jobs()
        status = client.get(
            f"/clearance-status/{asked['request_id']}", headers=tenant.headers
        ).get_json()
        assert status["status"] == "approved", status
        return status

    return run


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def assert_problem(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert (body["status"], body["code"], body["type"]) == (status, code, "about:blank")
    assert body["detail"] and "Traceback" not in response.text
    return body


def test_an_approved_call_is_forwarded_once_without_the_credential(gateway, upstream, approve):
    approval = approve()
    response = httpx.post(
        f"{gateway}/invoices/pay?",
        json=INVOICE,
        headers={**bearer(approval["token"]), "X-Ledgix-Jti": "forged", "X-Request-ID": "r-42"},
    )
    assert response.status_code == 201, response.text
    assert response.headers["X-Upstream"] == "yes"
    assert response.headers["X-Request-ID"] == "r-42"
    assert response.json() == {"ran": "POST", "path": "/invoices/pay", "got": INVOICE}

    [seen] = upstream.requests
    headers = {k.lower(): v for k, v in seen["headers"].items()}
    assert "authorization" not in headers
    claims = approval["token"].split(".")[1]
    import base64

    claims = json.loads(base64.urlsafe_b64decode(claims + "=="))
    assert headers["x-ledgix-request-id"] == approval["request_id"]
    assert headers["x-ledgix-jti"] == claims["jti"]  # the caller's forged value is dropped
    assert headers["x-ledgix-tool"] == "pay_invoice"
    assert headers["x-ledgix-agent-id"] == "agent-7"
    assert headers["x-ledgix-policy-id"] == "payments"
    assert headers["x-ledgix-session-id"] == ""
    assert headers["x-ledgix-tool-args-hash"] == claims["tool_args_hash"]
    assert headers["x-request-id"] == "r-42"
    assert json.loads(seen["body"]) == INVOICE


def test_a_replayed_token_is_409_and_never_reaches_the_upstream(gateway, upstream, approve):
    token = approve()["token"]
    assert httpx.post(f"{gateway}/invoices/pay", json=INVOICE, headers=bearer(token)).is_success
    again = httpx.post(f"{gateway}/invoices/pay", json=INVOICE, headers=bearer(token))
    body = assert_problem(again, 409, "token_replayed")
    assert body["valid"] is False and body["jti"] and body["consumed_at"]
    assert len(upstream.requests) == 1


def test_another_body_is_422_args_mismatch_and_burns_the_token(gateway, upstream, approve):
    token = approve()["token"]
    changed = {**INVOICE, "amount": 9_999}
    response = httpx.post(f"{gateway}/invoices/pay", json=changed, headers=bearer(token))
    assert_problem(response, 422, "args_mismatch")
    # Burned: even the approved body is refused now.
    again = httpx.post(f"{gateway}/invoices/pay", json=INVOICE, headers=bearer(token))
    assert_problem(again, 409, "token_replayed")
    assert upstream.requests == []


def test_a_token_for_another_tool_is_refused(gateway, upstream, approve, tmp_path):
    token = approve("pay_vendor", INVOICE)["token"]
    response = httpx.post(f"{gateway}/invoices/pay", json=INVOICE, headers=bearer(token))
    assert_problem(response, 422, "args_mismatch")
    assert upstream.requests == []


def test_missing_malformed_and_forged_tokens_are_401(gateway, upstream, approve):
    token = approve()["token"]
    header, claims, _signature = token.split(".")
    forged = f"{header}.{claims}.{'A' * 86}"
    for headers, code in (
        ({}, "unauthorized"),
        ({"Authorization": f"Basic {token}"}, "unauthorized"),
        (bearer("not-a-jwt"), "token_invalid"),
        (bearer(forged), "token_invalid"),
        ({"Authorization": b"Bearer \xe9\xe9"}, "token_invalid"),
    ):
        response = httpx.post(f"{gateway}/invoices/pay", json=INVOICE, headers=headers)
        assert_problem(response, 401, code)
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert upstream.requests == []
    # None of that burned the real token.
    assert httpx.post(f"{gateway}/invoices/pay", json=INVOICE, headers=bearer(token)).is_success


def test_bad_bodies_are_refused_before_anything_is_consumed(gateway, upstream, approve):
    token = approve()["token"]
    url = f"{gateway}/invoices/pay"
    json_type = {**bearer(token), "Content-Type": "application/json"}
    for content, headers, status in (
        (b"amount=120", json_type, 400),
        (b'{"amount": 120', json_type, 400),
        (b"[1, 2]", json_type, 400),
        (b'{"amount": 12000, "amount": 120}', json_type, 400),
        (b'{"amount": NaN}', json_type, 400),
        (b"\xff\xfe", json_type, 400),
        (b"[" * 5000 + b"]" * 5000, json_type, 400),
        (json.dumps(INVOICE).encode(), {**bearer(token), "Content-Type": "text/plain"}, 415),
        (b"{}" + b" " * (1024 * 1024), json_type, 413),
    ):
        response = httpx.post(url, content=content, headers=headers)
        assert response.status_code == status, (content[:40], response.text)
        assert response.headers["content-type"] == "application/problem+json"
    # A body and a query: the query would reach the upstream unapproved.
    both = httpx.post(f"{url}?amount=1", json=INVOICE, headers=bearer(token))
    assert_problem(both, 400, "invalid_request")
    duplicate = assert_problem(
        httpx.post(url, content=b'{"amount": 1, "amount": 2}', headers=json_type),
        400,
        "invalid_request",
    )
    assert "amount" in duplicate["detail"]
    assert upstream.requests == []
    assert httpx.post(url, json=INVOICE, headers=bearer(token)).status_code == 201


def test_a_call_without_a_body_is_bound_to_its_query(gateway, upstream, approve):
    lookup = {"amount": "120", "invoice_id": "INV-7"}
    token = approve("pay_lookup", lookup)["token"]
    other = httpx.get(
        f"{gateway}/invoices/INV-7?amount=120&invoice_id=INV-8", headers=bearer(token)
    )
    assert_problem(other, 422, "args_mismatch")

    token = approve("pay_lookup", lookup)["token"]
    twice = httpx.get(
        f"{gateway}/invoices/INV-7?amount=120&invoice_id=INV-7&invoice_id=INV-8",
        headers=bearer(token),
    )
    assert_problem(twice, 400, "invalid_request")
    response = httpx.get(
        f"{gateway}/invoices/INV-7?invoice_id=INV-7&amount=120", headers=bearer(token)
    )
    assert response.status_code == 201
    assert upstream.requests[-1]["path"] == "/invoices/INV-7?invoice_id=INV-7&amount=120"
    assert len(upstream.requests) == 1


def test_unknown_routes_methods_and_dot_segments_never_consume(gateway, upstream, approve):
    token = approve()["token"]
    assert_problem(
        httpx.post(f"{gateway}/refunds", json=INVOICE, headers=bearer(token)), 404, "not_found"
    )
    assert_problem(
        httpx.post(f"{gateway}/invoicesx", json=INVOICE, headers=bearer(token)), 404, "not_found"
    )
    wrong = httpx.put(f"{gateway}/invoices/pay", json=INVOICE, headers=bearer(token))
    assert_problem(wrong, 405, "method_not_allowed")
    assert wrong.headers["Allow"] == "POST"
    dotted = httpx.post(f"{gateway}/invoices/pay/%2e%2e/admin", json=INVOICE, headers=bearer(token))
    assert_problem(dotted, 400, "invalid_request")
    assert upstream.requests == []
    assert httpx.post(f"{gateway}/invoices/pay", json=INVOICE, headers=bearer(token)).is_success


def test_upstream_timeouts_are_504_and_unreachable_upstreams_502(gateway, approve, release):
    slow = httpx.post(f"{gateway}/slow", json=INVOICE, headers=bearer(approve()["token"]))
    assert_problem(slow, 504, "upstream_timeout")
    release.set()
    gone = httpx.post(f"{gateway}/gone", json=INVOICE, headers=bearer(approve()["token"]))
    assert_problem(gone, 502, "upstream_unreachable")


def test_a_large_answer_streams_back_intact(gateway, approve):
    with httpx.stream(
        "POST", f"{gateway}/big", json=INVOICE, headers=bearer(approve()["token"])
    ) as response:
        assert response.status_code == 200
        received = b"".join(response.iter_bytes())
    assert received == bytes(range(256)) * 8192


def test_a_vault_that_refuses_the_gateway_or_is_down_fails_closed(
    tmp_path, vault_url, upstream, approve
):
    token = approve()["token"]
    path = tmp_path / "routes.json"
    path.write_text(
        json.dumps({"routes": [{"path": "/pay", "tool": "pay_invoice", "upstream": upstream.url}]})
    )
    for url, key, code in (
        (vault_url, "wrong-key", "vault_error"),
        (f"http://127.0.0.1:{closed_port()}", "any", "vault_unreachable"),
    ):
        app = Gateway(GatewayConfig(url, key, str(path)), load_routes(path))
        served = serve(app)
        try:
            response = httpx.post(f"{served.url}/pay", json=INVOICE, headers=bearer(token))
        finally:
            served.stop()
            app.close()
        assert_problem(response, 502, code)
        assert "wrong-key" not in response.text
    assert upstream.requests == []


def test_routes_file_format(tmp_path):
    table = parse_routes(
        {
            "routes": [
                {"path": "/", "tool": "any", "upstream": "http://127.0.0.1:1"},
                {"path": "/a/", "methods": ["post"], "tool": "a", "upstream": "http://h:2/base/"},
                {"path": "/a/b", "tool": "ab", "upstream": "https://h"},
            ]
        }
    )
    assert table.find("/a/b/c").tool == "ab"
    assert table.find("/a/bc").tool == "a"
    assert table.find("/a").methods == frozenset({"POST"})
    assert table.find("/a").upstream == "http://h:2/base"
    assert table.find("/zzz").tool == "any"
    for bad in (
        [],
        {"routes": []},
        {"routes": [{"path": "relative", "tool": "t", "upstream": "http://h"}]},
        {"routes": [{"path": "/a/../b", "tool": "t", "upstream": "http://h"}]},
        {"routes": [{"path": "/a", "tool": "", "upstream": "http://h"}]},
        {"routes": [{"path": "/a", "tool": "t", "upstream": "ftp://h"}]},
        {"routes": [{"path": "/a", "tool": "t", "upstream": "http://h?x=1"}]},
        {"routes": [{"path": "/a", "tool": "t", "upstream": "http://h:99999"}]},
        {"routes": [{"path": "/a", "tool": "t", "methods": ["FETCH"], "upstream": "http://h"}]},
        {
            "routes": [
                {"path": "/a", "tool": "t", "upstream": "http://h"},
                {"path": "/a/", "tool": "u", "upstream": "http://h"},
            ]
        },
    ):
        with pytest.raises(RoutesError):
            parse_routes(bad)
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(RoutesError):
        load_routes(tmp_path / "bad.json")
    with pytest.raises(RoutesError):
        load_routes(tmp_path / "missing.json")


def test_the_gateway_does_not_import_the_vault():
    import subprocess
    import sys

    code = (
        "import sys, gateway, gateway.app, gateway.routes, gateway.config;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('webapp', 'jobs')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
