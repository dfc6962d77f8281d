"""The notification settings and delivery log through the API as the dashboard shows them
(issue 15): a warning when email is switched on without an SMTP server, and the log with
repeated failures grouped, paged by a keyset cursor that never splits a run."""

from __future__ import annotations

from tests.api.test_foundation import assert_problem
from tests.api.test_reviews import review_app, review_judge  # noqa: F401 - fixtures used by name
from tests.conftest import make_tenant
from tests.dashboard.test_dashboard_notifications_log import add_deliveries


def put(client, tenant, **body):  # noqa: ANN001, ANN003, ANN201
    return client.put("/notification-settings", json=body, headers=tenant.headers)


def test_email_without_smtp_is_saved_with_a_warning_on_every_read(client, tenant):
    response = put(client, tenant, email_enabled=True, email_recipients="risk@acme.test")
    assert response.status_code == 200
    [warning] = response.get_json()["warnings"]
    assert warning["field"] == "email_enabled"
    assert "no SMTP server is configured" in warning["message"]
    assert client.get("/notification-settings", headers=tenant.headers).get_json()["warnings"] == [
        warning
    ]
    # Switched off again, nothing to warn about.
    assert put(client, tenant, email_enabled=False).get_json()["warnings"] == []


def test_with_an_smtp_server_configured_there_is_no_warning(review_app):  # noqa: F811
    app = review_app(smtp_host="127.0.0.1", smtp_port=2525)
    tenant = make_tenant(app, "Mailer")
    body = put(
        app.test_client(), tenant, email_enabled=True, email_recipients="risk@acme.test"
    ).get_json()
    assert body["email_enabled"] is True and body["warnings"] == []


def groups(client, tenant, query: str = "") -> dict:  # noqa: ANN001
    response = client.get(f"/notifications/delivery-groups{query}", headers=tenant.headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def test_repeated_failures_fold_into_one_entry_and_pages_never_split_a_run(
    app, client, tenant, other_tenant
):
    specs = [("delivered", "")] * 2 + [("failed", "connection refused")] * 7
    specs += [("failed", "timed out")] + [("delivered", "")] * 2
    add_deliveries(app, tenant.client_id, specs)

    first = groups(client, tenant, "?limit=4")
    counts = [
        (g["count"], g["delivery"]["status"], g["delivery"]["last_error"]) for g in first["groups"]
    ]
    assert counts == [
        (1, "delivered", ""),
        (1, "delivered", ""),
        (1, "failed", "timed out"),
        (7, "failed", "connection refused"),  # whole, though the page has room for one row
    ]
    run = first["groups"][3]
    assert run["first_at"] < run["last_at"] == run["delivery"]["created_at"]
    assert first["next_cursor"]
    second = groups(client, tenant, f"?limit=4&cursor={first['next_cursor']}")
    assert [(g["count"], g["delivery"]["status"]) for g in second["groups"]] == [
        (1, "delivered"),
        (1, "delivered"),
    ]
    assert second["next_cursor"] is None
    # Every delivery is accounted for exactly once.
    assert sum(g["count"] for g in first["groups"] + second["groups"]) == len(specs)
    assert groups(client, other_tenant) == {"groups": [], "next_cursor": None}


def test_the_grouped_log_refuses_bad_paging_and_keys_without_manage(
    app, client, tenant, admin_headers
):
    for query in ("?limit=0", "?limit=501", "?limit=x", "?cursor=eyJ4IjoxfQ", "?cursor=%%%"):
        assert_problem(
            client.get(f"/notifications/delivery-groups{query}", headers=tenant.headers),
            400,
            "invalid_request",
        )
    made = client.post(
        f"/admin/tenants/{tenant.client_id}/api-keys",
        json={"label": "reviewers", "scopes": ["review"]},
        headers=admin_headers,
    )
    assert made.status_code == 201
    assert_problem(
        client.get(
            "/notifications/delivery-groups",
            headers={"X-Vault-API-Key": made.get_json()["api_key"]},
        ),
        403,
        "forbidden",
    )
