"""Notification settings (CONTRACT §7): validation, the webhook URL masked and encrypted at
rest, a PUT without the URL keeps it, the SSRF check at save time, tenant isolation, and the
delivery log list. Deliveries end to end are in test_notifications_delivery.py."""

from __future__ import annotations

import json

import pytest

from tests.api.test_foundation import assert_problem
from tests.conftest import make_tenant

HOOK = "https://hooks.slack.com/services/T0000/B0000/s3cr3tTokenWXYZ"
SECRET_PART = "s3cr3tToken"


def put(client, tenant, **body):
    return client.put("/notification-settings", json=body, headers=tenant.headers)


def test_defaults_are_everything_off(client, tenant):
    body = client.get("/notification-settings", headers=tenant.headers).get_json()
    assert body == {
        "client_id": tenant.client_id,
        "email_enabled": False,
        "email_recipients": "",
        "slack_enabled": False,
        "slack_webhook_url": "",
        "sensitive_args": [],
        "warnings": [],
    }


def test_put_stores_masks_and_encrypts_the_webhook_url(app, client, tenant, sql):
    response = put(
        client,
        tenant,
        email_enabled=True,
        email_recipients="ops@example.com, Risk@Example.org",
        slack_enabled=True,
        slack_webhook_url=HOOK,
        sensitive_args=["card_number", " cvv "],
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body == {
        "client_id": tenant.client_id,
        "email_enabled": True,
        "email_recipients": "ops@example.com,Risk@Example.org",
        "slack_enabled": True,
        "slack_webhook_url": "https://hooks.slack.com/****WXYZ",
        "sensitive_args": ["card_number", "cvv"],
        # The test app has no SMTP server: saved, with the warning (see the test below).
        "warnings": [{"field": "email_enabled", "message": body["warnings"][0]["message"]}],
    }
    assert client.get("/notification-settings", headers=tenant.headers).get_json() == body
    # At rest: the stored document holds no readable URL, and the ledger event no URL at all.
    stored = sql(
        "SELECT value FROM tenant_settings WHERE client_id = :c AND kind = 'notification'",
        c=tenant.client_id,
    ).scalar()
    stored_text = stored if isinstance(stored, str) else json.dumps(stored)
    assert SECRET_PART not in stored_text and "services/T0000" not in stored_text
    from webapp.extensions import db
    from webapp.models import LedgerEvent
    from webapp.services import notifications
    from webapp.services.ledger import open_event

    with app.app_context():
        assert notifications.webhook_url(tenant.client_id) == HOOK
        [event] = (
            db.session.query(LedgerEvent)
            .filter_by(client_id=tenant.client_id, action_category="settings_changed")
            .all()
        )
        content = open_event(event)
    dumped = json.dumps(content)
    assert (
        SECRET_PART not in dumped
        and "hooks.slack.com" not in dumped
        and "ops@example.com" not in dumped
    )
    changes = content["action_metadata"]["changes"]
    assert changes["slack_webhook_url"] == {"changed": True, "set": True}
    assert changes["email_enabled"] == {"from": False, "to": True}


def test_put_without_the_url_keeps_it_and_the_masked_value_means_unchanged(app, client, tenant):
    from webapp.services import notifications

    assert put(client, tenant, slack_enabled=True, slack_webhook_url=HOOK).status_code == 200
    assert (
        put(client, tenant, email_enabled=True, email_recipients="a@example.com").status_code == 200
    )
    masked = client.get("/notification-settings", headers=tenant.headers).get_json()[
        "slack_webhook_url"
    ]
    round_trip = put(
        client, tenant, slack_enabled=True, slack_webhook_url=masked, email_enabled=False
    )
    assert round_trip.status_code == 200
    assert round_trip.get_json()["slack_webhook_url"] == masked
    with app.app_context():
        assert notifications.webhook_url(tenant.client_id) == HOOK
    # Clearing needs the channel off first.
    assert_problem(put(client, tenant, slack_webhook_url=""), 400, "invalid_request")
    cleared = put(client, tenant, slack_enabled=False, slack_webhook_url="").get_json()
    assert (cleared["slack_enabled"], cleared["slack_webhook_url"]) == (False, "")
    with app.app_context():
        assert notifications.webhook_url(tenant.client_id) == ""


def test_recipients_may_be_a_list_and_are_deduplicated(client, tenant):
    body = put(
        client, tenant, email_recipients=["a@example.com", "A@example.com", "b@example.com"]
    ).get_json()
    assert body["email_recipients"] == "a@example.com,b@example.com"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"email_recipients": "ops@example.com, not-an-address"}, "email_recipients"),
        ({"email_recipients": "a@example.com\r\nBcc: victim@example.com"}, "email_recipients"),
        (
            {"email_recipients": ",".join(f"user{n}@example.com" for n in range(51))},
            "email_recipients",
        ),
        ({"email_recipients": 42}, "email_recipients"),
        ({"email_enabled": True}, "email_recipients"),
        ({"email_enabled": True, "email_recipients": " , "}, "email_recipients"),
        ({"email_enabled": "yes", "email_recipients": "a@example.com"}, "email_enabled"),
        ({"slack_enabled": True}, "slack_webhook_url"),
        ({"slack_enabled": 1, "slack_webhook_url": HOOK}, "slack_enabled"),
        ({"slack_webhook_url": "http://hooks.slack.com/services/x"}, "slack_webhook_url"),
        ({"slack_webhook_url": "ftp://hooks.slack.com/x"}, "slack_webhook_url"),
        ({"slack_webhook_url": "not a url"}, "slack_webhook_url"),
        ({"slack_webhook_url": "https://user:pw@hooks.slack.com/x"}, "slack_webhook_url"),
        ({"slack_webhook_url": "https://hooks.slack.com/" + "x" * 2100}, "slack_webhook_url"),
        ({"slack_webhook_url": 5}, "slack_webhook_url"),
        ({"sensitive_args": "card_number"}, "sensitive_args"),
        ({"sensitive_args": ["ok", 3]}, "sensitive_args"),
        ({"sensitive_args": ["bad\nname"]}, "sensitive_args"),
        ({"sensitive_args": [f"a{n}" for n in range(101)]}, "sensitive_args"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_invalid_settings_are_400_with_field_errors_and_change_nothing(client, tenant, body, field):
    problem = assert_problem(put(client, tenant, **body), 400, "invalid_request")
    assert field in {e["field"] for e in problem["errors"]}
    assert (
        client.get("/notification-settings", headers=tenant.headers).get_json()["email_enabled"]
        is False
    )


def test_fifty_recipients_are_accepted(client, tenant):
    addresses = ",".join(f"user{n}@example.com" for n in range(50))
    assert (
        put(client, tenant, email_recipients=addresses).get_json()["email_recipients"] == addresses
    )


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1/hook",
        "https://127.0.0.1:8443/hook",
        "https://[::1]/hook",
        "https://localhost/hook",
        "https://169.254.169.254/latest/meta-data/",
        "https://[::ffff:169.254.169.254]/",
        "https://10.0.0.5/hook",
        "https://192.168.1.10/hook",
        "https://2130706433/hook",
        "https://0x7f.1/hook",
    ],
)
def test_webhook_urls_that_reach_inside_are_refused_at_save_time(client, tenant, url):
    problem = assert_problem(
        put(client, tenant, slack_enabled=True, slack_webhook_url=url), 400, "invalid_request"
    )
    [error] = [e for e in problem["errors"] if e["field"] == "slack_webhook_url"]
    assert "not allowed" in error["message"]
    assert "/hook" not in problem["detail"]  # the refusal never echoes the (secret) path
    assert (
        client.get("/notification-settings", headers=tenant.headers).get_json()["slack_webhook_url"]
        == ""
    )


def test_a_sealed_url_copied_to_another_tenant_does_not_open(
    app, client, tenant, other_tenant, sql
):
    from webapp.extensions import db
    from webapp.models import TenantSetting
    from webapp.services import notifications

    put(client, tenant, slack_enabled=True, slack_webhook_url=HOOK)
    with app.app_context():
        stolen = dict(db.session.get(TenantSetting, (tenant.client_id, "notification")).value)
        db.session.add(
            TenantSetting(client_id=other_tenant.client_id, kind="notification", value=stolen)
        )
        db.session.commit()
        assert notifications.webhook_url(other_tenant.client_id) == ""
        assert notifications.webhook_url(tenant.client_id) == HOOK


def test_settings_are_per_tenant(client, tenant, other_tenant):
    put(client, tenant, email_enabled=True, email_recipients="ops@example.com")
    assert (
        client.get("/notification-settings", headers=other_tenant.headers).get_json()[
            "email_enabled"
        ]
        is False
    )


def test_settings_need_a_tenant_key(client):
    assert_problem(client.get("/notification-settings"), 401, "unauthorized")
    assert_problem(client.put("/notification-settings", json={}), 401, "unauthorized")
    assert_problem(client.post("/notification-settings/test"), 401, "unauthorized")
    assert_problem(client.get("/notifications/deliveries"), 401, "unauthorized")


def test_unchanged_settings_write_no_ledger_event(app, client, tenant, sql):
    put(client, tenant, email_recipients="ops@example.com")
    put(client, tenant, email_recipients="ops@example.com")
    count = sql(
        "SELECT count(*) FROM ledger_events WHERE client_id = :c AND action_category = 'settings_changed'",
        c=tenant.client_id,
    ).scalar()
    assert count == 1


def test_test_message_needs_an_enabled_channel(client, tenant):
    problem = assert_problem(
        client.post("/notification-settings/test", headers=tenant.headers), 400, "invalid_request"
    )
    assert "no notification channel" in problem["detail"]


def test_delivery_log_pages_newest_first_and_is_per_tenant(app, client, tenant, other_tenant):
    from datetime import timedelta

    from webapp.extensions import db
    from webapp.models import NotificationDelivery, new_id, utcnow

    now = utcnow()
    with app.app_context():
        for n in range(5):
            db.session.add(
                NotificationDelivery(
                    delivery_id=new_id("ntf"),
                    client_id=tenant.client_id,
                    request_id=f"req_{n}",
                    event="review.pending",
                    channel="email",
                    target="ops@example.com",
                    recipients=["ops@example.com"],
                    status="delivered",
                    attempts=1,
                    max_attempts=3,
                    attempt_log=[],
                    last_error="",
                    created_at=now + timedelta(seconds=n),
                    updated_at=now,
                )
            )
        db.session.commit()
    seen, cursor = [], None
    while True:
        url = "/notifications/deliveries?limit=2" + (f"&cursor={cursor}" if cursor else "")
        page = client.get(url, headers=tenant.headers).get_json()
        seen += [d["request_id"] for d in page["deliveries"]]
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert seen == ["req_4", "req_3", "req_2", "req_1", "req_0"]
    only = client.get(
        "/notifications/deliveries?request_id=req_2", headers=tenant.headers
    ).get_json()["deliveries"]
    assert [d["request_id"] for d in only] == ["req_2"]
    assert set(only[0]) == {
        "delivery_id",
        "request_id",
        "event",
        "channel",
        "target",
        "status",
        "attempts",
        "max_attempts",
        "last_error",
        "attempt_log",
        "created_at",
        "updated_at",
        "delivered_at",
    }
    assert client.get("/notifications/deliveries", headers=other_tenant.headers).get_json() == {
        "deliveries": [],
        "next_cursor": None,
    }
    assert_problem(
        client.get("/notifications/deliveries?limit=0", headers=tenant.headers),
        400,
        "invalid_request",
    )
    assert_problem(
        client.get("/notifications/deliveries?cursor=eyJ4IjoxfQ", headers=tenant.headers),
        400,
        "invalid_request",
    )


def test_other_tenants_cannot_see_deliveries_by_request_id(app, client, tenant):
    other = make_tenant(app, "Nosy")
    assert (
        client.get("/notifications/deliveries?request_id=req_1", headers=other.headers).get_json()[
            "deliveries"
        ]
        == []
    )


# --- message content (pure) ------------------------------------------------------------------


def notice(**overrides):
    from webapp.notify import messages

    values = dict(
        request_id="req_1",
        tool_name="refund_payment",
        tool_args={
            "amount": 900,
            "Card_Number": "4111111111111111",
            "meta": {"token": "tok_abcdef"},
        },
        agent_id="agent-7",
        session_id="",
        policy_id="refunds",
        reason="card 4111111111111111 charged twice",
        reason_code="review_required_by_rule",
        confidence=0.5,
        confidence_bucket="medium",
        threshold=0.8,
        threshold_bucket="high",
        public_url="https://vault.example.test/",
        sensitive_args=["card_number", "TOKEN"],
        citations=["Never echo tok_abcdef"],
    )
    values.update(overrides)
    return messages.build_notice(**values)


def test_sensitive_values_are_hidden_at_any_depth_and_scrubbed_from_free_text():
    from webapp.notify import messages

    built = notice()
    rendered = json.dumps(messages.slack_payload(built)) + messages.email_text(built)
    rendered += messages.email_html(built)
    assert "4111111111111111" not in rendered and "tok_abcdef" not in rendered
    assert dict(built.key_arguments)["Card_Number"] == "[hidden]"
    assert built.reason == "card [hidden] charged twice"
    assert built.citations == ("Never echo [hidden]",)
    assert built.review_url == "https://vault.example.test/dashboard/reviews/req_1"


def test_names_with_line_breaks_cannot_inject_mail_headers():
    from webapp.notify import messages

    built = notice(tool_name="pay\r\nBcc: thief@example.com", agent_id="a\nb")
    message = messages.email_message(
        built, sender="vault@bank.example", recipients=["ops@bank.example"]
    )
    assert message["Bcc"] is None
    assert "\n" not in message["Subject"] and "\r" not in message["Subject"]


def test_html_part_escapes_markup_from_arguments():
    from webapp.notify import messages

    html = messages.email_html(notice(tool_args={"note": "<script>alert(1)</script>"}))
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_long_argument_lists_are_cut_with_a_count():
    from webapp.notify import messages

    built = notice(tool_args={f"arg{n}": "v" * 500 for n in range(20)})
    assert len(built.key_arguments) == messages.MAX_ARGS_SHOWN and built.more_arguments == 8
    assert all(len(value) <= messages.MAX_VALUE_CHARS for _, value in built.key_arguments)
    payload = messages.slack_payload(built)
    assert all(
        len(b["text"]["text"]) <= 3000
        for b in payload["blocks"]
        if b["type"] == "section" and "text" in b
    )
