"""Store-time SSRF: trailing dots and loopback or private names (issue 16 §8)."""

from __future__ import annotations

import pytest

from tests.api.test_foundation import assert_problem
from tests.api.test_notifications import put
from webapp.services import outbound


@pytest.mark.parametrize(
    "url",
    [
        "https://localhost.:19443/hook",
        "https://LOCALHOST../hook",
        "https://api.localhost./hook",
        "https://printer.local/hook",
        "https://metadata.google.internal./computeMetadata/v1/",
        "https://nas.home.arpa/hook",
        "https://localhost.localdomain/hook",
        "https://ip6-localhost/hook",
    ],
)
def test_loopback_and_private_names_are_refused_when_stored(client, tenant, url):
    problem = assert_problem(
        put(client, tenant, slack_enabled=True, slack_webhook_url=url), 400, "invalid_request"
    )
    [error] = [e for e in problem["errors"] if e["field"] == "slack_webhook_url"]
    assert "not allowed" in error["message"]
    assert "/hook" not in problem["detail"]
    stored = client.get("/notification-settings", headers=tenant.headers).get_json()
    assert stored["slack_webhook_url"] == ""


def test_trailing_dots_are_normalised_before_the_check():
    assert (
        outbound.normalise_url("https://localhost.:19443/x?y=1") == "https://localhost:19443/x?y=1"
    )
    assert outbound.normalise_url("https://hooks.slack.com./a") == "https://hooks.slack.com/a"
    assert outbound.normalise_url("https://hooks.slack.com/a") == "https://hooks.slack.com/a"
    assert outbound.normalise_url("https://[::1]/a") == "https://[::1]/a"


def test_a_public_name_with_a_trailing_dot_is_still_accepted(app):
    # Not resolved (no DNS in tests): only the shape and the name are checked.
    with app.app_context():
        outbound.check_url("https://hooks.slack.com./services/x", resolve_host=False)


def test_local_names_are_allowed_only_where_private_addresses_are(app):
    with app.app_context():
        outbound.check_url("https://localhost.:19443/", allow_private=True, resolve_host=False)
        with pytest.raises(outbound.OutboundRefused):
            outbound.check_url("https://localhost.:19443/", allow_private=False)


def test_delivery_refuses_a_local_name_without_connecting(app):
    with app.app_context():
        with pytest.raises(outbound.OutboundRefused):
            outbound.guarded_post("https://localhost.:19443/hook", {"a": 1}, allow_private=False)
