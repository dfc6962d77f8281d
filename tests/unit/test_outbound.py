"""The SSRF guard for user-supplied URLs (webapp/services/outbound.py), against real servers.

How the redirect tests stay honest: a test server has to listen on loopback, which the
production policy refuses, so no test can send a first hop to it under that policy unchanged.
Two ways are used instead, and neither touches the guard's code:

* the production policy (``allow_private=False``) widened by exactly one network,
  ``also_allow=("127.0.0.1/32",)``, so that the test server is reachable while every other
  private range stays refused; the server then redirects to ``http://10.0.0.1/``;
* the development policy (``allow_private=True``), under which the metadata endpoint
  169.254.169.254 (link-local) stays refused; the server redirects there.

In both cases the first hop arrives and the second is refused before any connection is made.
A name that resolves to 10.x is tested through ssrfguard's resolver seam (a stand-in for
``getaddrinfo``: whatever it answers is still checked), because there is no DNS server here.
"""

from __future__ import annotations

import json
import socket
import threading

import pytest

from tests.helpers import LoopbackServer
from webapp.services import outbound
from webapp.services.outbound import OutboundFailed, OutboundRefused


def received(server: LoopbackServer) -> list[dict]:
    return [r for r in server.requests]


@pytest.fixture
def server():
    """A real HTTP server on 127.0.0.1 with a few fixed routes."""

    def handle(method, path, headers, body):  # noqa: ANN001, ANN202
        if path == "/to-private":
            return 307, {"Location": "http://10.0.0.1/steal"}, b""
        if path == "/to-metadata":
            return 302, {"Location": "http://169.254.169.254/latest/meta-data/"}, b""
        if path == "/to-hook":
            return 307, {"Location": "/hook"}, b""
        if path == "/big":
            return 200, {}, b"x" * 100_000
        return (
            200,
            {"Content-Type": "application/json"},
            json.dumps({"got": body.decode()}).encode(),
        )

    instance = LoopbackServer(handle)
    thread = threading.Thread(
        target=instance.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    yield instance
    instance.server.shutdown()
    instance.server.server_close()


def fake_resolver(answers: dict[str, list[str]]):
    """A getaddrinfo stand-in: maps names to the given addresses (tests have no DNS)."""
    calls = []

    def resolve(host, port, *rest):  # noqa: ANN001, ANN202
        calls.append(host)
        return [
            (
                socket.AF_INET6 if ":" in a else socket.AF_INET,
                socket.SOCK_STREAM,
                6,
                "",
                (a, port, 0, 0) if ":" in a else (a, port),
            )
            for a in answers[host]
        ]

    resolve.calls = calls
    return resolve


# --- loopback needs the development flag ------------------------------------------------------


def test_without_allow_private_loopback_is_refused_and_nothing_is_sent(server):
    with pytest.raises(OutboundRefused) as refused:
        outbound.guarded_post(f"{server.url}/hook", {"a": 1}, allow_private=False)
    assert "Loopback" in refused.value.detail
    with pytest.raises(OutboundRefused):
        outbound.check_url(f"{server.url}/hook", allow_private=False)
    assert received(server) == []


def test_with_allow_private_the_loopback_server_receives_the_post(server):
    response = outbound.guarded_post(f"{server.url}/hook", {"a": 1}, allow_private=True)
    assert response.ok and json.loads(response.content) == {"got": '{"a":1}'}
    [request] = received(server)
    assert request["method"] == "POST" and request["headers"]["Content-Type"] == "application/json"
    outbound.check_url(f"{server.url}/hook", allow_private=True)  # no exception


def test_localhost_by_name_is_refused_after_resolution():
    # Resolved by the platform resolver (/etc/hosts), then refused for where it points.
    with pytest.raises(OutboundRefused) as refused:
        outbound.check_url("https://localhost/hook", allow_private=False)
    assert "127.0.0.1" in refused.value.detail or "::1" in refused.value.detail


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/",
        "http://127.1/",
        "http://2130706433/",
        "http://0x7f000001/",
        "http://0177.0.0.1/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://0.0.0.0/",
        "http://10.1.2.3/",
        "http://172.16.0.1/",
        "http://192.168.0.1/",
        "http://[fd00::1]/",
        "http://100.64.0.1/",
    ],
)
def test_loopback_and_private_literals_are_refused_in_production(url):
    with pytest.raises(OutboundRefused):
        outbound.check_url(url, allow_private=False)


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:169.254.169.254]/",
        "http://[fd00:ec2::254]/",
        "http://169.254.170.2/v2/credentials",
        "http://[fe80::1]/",
        "http://2852039166/",  # 169.254.169.254 as one decimal number
    ],
)
def test_link_local_and_metadata_stay_refused_even_with_allow_private(url):
    with pytest.raises(OutboundRefused):
        outbound.check_url(url, allow_private=True)


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/x",
        "file:///etc/passwd",
        "gopher://example.com/",
        "https://user:secret@example.com/",
        "https://exa mple.com/",
        "https://example.com/\r\nHost: evil",
        "not a url",
    ],
)
def test_other_schemes_credentials_and_malformed_urls_are_refused(url):
    with pytest.raises(OutboundRefused):
        outbound.check_url(url, allow_private=True)


# --- names that resolve inside ---------------------------------------------------------------


def test_a_name_resolving_to_10_x_is_refused_before_connecting():
    resolver = fake_resolver({"hooks.internal.example": ["10.20.30.40"]})
    with pytest.raises(OutboundRefused) as refused:
        outbound.check_url(
            "https://hooks.internal.example/x", allow_private=False, resolver=resolver
        )
    assert "10.20.30.40" in refused.value.detail and "Private-Use" in refused.value.detail
    with pytest.raises(OutboundRefused):
        outbound.guarded_post(
            "https://hooks.internal.example/x", {}, allow_private=False, resolver=resolver
        )
    assert resolver.calls == ["hooks.internal.example", "hooks.internal.example"]


def test_a_name_with_one_public_and_one_private_answer_is_refused_whole():
    resolver = fake_resolver({"rebind.example": ["93.184.216.34", "169.254.169.254"]})
    with pytest.raises(OutboundRefused):
        outbound.check_url("https://rebind.example/", allow_private=False, resolver=resolver)


def test_a_name_resolving_to_a_public_address_passes_the_check():
    resolver = fake_resolver({"hooks.slack.com": ["34.237.202.130"]})
    outbound.check_url("https://hooks.slack.com/services/x", allow_private=False, resolver=resolver)


def test_a_name_that_does_not_resolve_is_not_refused_by_the_check_but_fails_to_send():
    def nowhere(*_args):  # noqa: ANN202
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    outbound.check_url("https://no-such-host.invalid/", allow_private=False, resolver=nowhere)
    with pytest.raises(OutboundFailed):
        outbound.guarded_post(
            "https://no-such-host.invalid/", {}, allow_private=False, resolver=nowhere
        )


# --- redirects --------------------------------------------------------------------------------


def test_a_redirect_to_a_private_address_is_refused(server):
    with pytest.raises(OutboundRefused) as refused:
        outbound.guarded_post(
            f"{server.url}/to-private", {"a": 1}, allow_private=False, also_allow=("127.0.0.1/32",)
        )
    assert "10.0.0.0/8" in refused.value.detail
    assert [r["path"] for r in received(server)] == ["/to-private"]  # the first hop only


def test_a_redirect_to_the_metadata_endpoint_is_refused_even_in_development(server):
    with pytest.raises(OutboundRefused) as refused:
        outbound.guarded_get(f"{server.url}/to-metadata", allow_private=True)
    assert "169.254.169.254" in refused.value.detail
    assert [r["path"] for r in received(server)] == ["/to-metadata"]


def test_also_allow_admits_exactly_that_network(server):
    assert outbound.guarded_post(
        f"{server.url}/hook", {}, allow_private=False, also_allow=("127.0.0.1/32",)
    ).ok
    with pytest.raises(OutboundRefused):
        outbound.check_url("http://127.0.0.2/", allow_private=False, also_allow=("127.0.0.1/32",))


def test_an_allowed_redirect_is_followed_and_checked(server):
    response = outbound.guarded_post(f"{server.url}/to-hook", {"n": 2}, allow_private=True)
    assert response.ok and response.url.endswith("/hook")
    assert [r["path"] for r in received(server)] == ["/to-hook", "/hook"]


# --- failures that are not refusals ----------------------------------------------------------


def test_an_oversized_answer_is_cut_off(server):
    with pytest.raises(OutboundFailed, match="exceeds 1000 bytes"):
        outbound.guarded_get(f"{server.url}/big", allow_private=True, max_bytes=1000)
    assert len(outbound.guarded_get(f"{server.url}/big", allow_private=True).content) == 100_000


def test_a_closed_port_is_a_failure_not_a_refusal():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        port = holder.getsockname()[1]
        with pytest.raises(OutboundFailed, match="connection failed"):
            outbound.guarded_post(
                f"http://127.0.0.1:{port}/hook", {}, allow_private=True, timeout=2
            )


def test_refusals_never_repeat_the_secret_part_of_the_url():
    secret = "T000/B000/VerySecretToken"
    for url in (
        f"https://127.0.0.1/services/{secret}",
        f"https://user:pw@hooks.example/{secret}",
        f"ftp://hooks.example/{secret}",
    ):
        with pytest.raises(OutboundRefused) as refused:
            outbound.check_url(url, allow_private=False)
        assert "VerySecretToken" not in str(refused.value) and "VerySecretToken" not in json.dumps(
            refused.value.errors
        )


def test_mask_shows_scheme_host_and_the_last_four_characters():
    assert (
        outbound.mask_url("https://hooks.slack.com/services/T0/B0/abcdWXYZ")
        == "https://hooks.slack.com/****WXYZ"
    )
    assert outbound.mask_url("") == ""


# --- the delivery log shared by notifications and webhooks ------------------------------------


def test_after_failure_retries_only_a_retryable_error_before_the_last_attempt():
    from webapp.services import outbound

    assert outbound.after_failure(True, final_attempt=False) == outbound.RETRYING
    assert outbound.after_failure(True, final_attempt=True) == outbound.FAILED
    assert outbound.after_failure(False, final_attempt=False) == outbound.FAILED


def test_record_attempt_appends_to_the_log_and_sets_the_status():
    from types import SimpleNamespace

    from webapp.models import utcnow
    from webapp.services import outbound

    row = SimpleNamespace(attempts=0, attempt_log=None, status="queued", last_error="")
    started = utcnow()
    outbound.record_attempt(row, started, outbound.RETRYING, "HTTP 503")
    first_log = row.attempt_log
    outbound.record_attempt(row, started, outbound.DELIVERED, "HTTP 200")
    assert row.attempt_log is not first_log  # reassigned: a JSON column sees the change
    assert [(e["attempt"], e["outcome"], e["detail"]) for e in row.attempt_log] == [
        (1, "failed", "HTTP 503"),
        (2, "delivered", "HTTP 200"),
    ]
    assert (row.attempts, row.status, row.last_error) == (2, "delivered", "")
    assert row.delivered_at == row.updated_at

    skipped = SimpleNamespace(attempts=0, attempt_log=[], status="queued", last_error="")
    outbound.record_attempt(skipped, started, outbound.SKIPPED, "disabled", counted=False)
    assert (skipped.attempts, skipped.last_error) == (0, "")
    outbound.record_attempt(
        skipped, started, outbound.SKIPPED, "opted out", skip_detail_is_error=True
    )
    assert (skipped.attempts, skipped.last_error) == (1, "opted out")
    outbound.record_attempt(skipped, started, outbound.FAILED, "x" * 2000)
    assert len(skipped.last_error) == 1000 and len(skipped.attempt_log[-1]["detail"]) == 500
