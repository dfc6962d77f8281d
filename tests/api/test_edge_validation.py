"""Request bodies are validated once, by the models at the edge (issue #11), with the field
errors and messages the services gave when they parsed the bodies themselves."""

from __future__ import annotations

import json

from tests.api.test_foundation import assert_problem


def errors_of(response) -> list[dict[str, str]]:  # noqa: ANN001
    return assert_problem(response, 400, "invalid_request")["errors"]


def put_in_order(client, path: str, body: dict, tenant):  # noqa: ANN001, ANN201
    # The test client's json= sorts keys; the order sent is part of what is tested here.
    headers = {**tenant.headers, "Content-Type": "application/json"}
    return client.put(path, data=json.dumps(body), headers=headers)


def test_a_blank_tenant_name_is_refused_with_the_services_message(client, admin_headers):
    response = client.post("/admin/tenants", json={"name": "   "}, headers=admin_headers)
    assert errors_of(response) == [{"field": "name", "message": "must be 1 to 200 characters"}]
    made = client.post("/admin/tenants", json={"name": "  Acme  "}, headers=admin_headers)
    assert made.status_code == 201 and made.get_json()["name"] == "Acme"


def test_review_settings_refuse_an_empty_body_and_nulls(client, tenant):
    empty = client.put("/review-settings", json={"other": 1}, headers=tenant.headers)
    assert errors_of(empty) == [{"field": "body", "message": "no settings given"}]
    null = client.put("/review-settings", json={"judge_failure_mode": None}, headers=tenant.headers)
    assert errors_of(null) == [{"field": "judge_failure_mode", "message": "must be deny or review"}]


def test_drift_settings_report_every_bad_field_in_the_bodys_order(client, tenant):
    body = {"window_hours": 0, "enabled": "yes", "baseline_days": 3.0}
    response = put_in_order(client, "/drift/settings", body, tenant)
    assert errors_of(response) == [
        {"field": "window_hours", "message": "must be an integer from 1 to 168"},
        {"field": "enabled", "message": "must be true or false"},
    ]
    ok = client.put("/drift/settings", json={"baseline_days": 3.0}, headers=tenant.headers)
    assert ok.status_code == 200 and ok.get_json()["baseline_days"] == 3


def test_glossary_errors_name_each_bad_term(client, tenant):
    body = {"terms": {"roles": "Owner", "  ": ["x"], "ok": ["a", " a "]}}
    response = put_in_order(client, "/glossary", body, tenant)
    assert [e["field"] for e in errors_of(response)] == ["terms['roles']", "terms['  ']"]
    saved = client.put("/glossary", json={"terms": {" ok ": ["a", " a "]}}, headers=tenant.headers)
    assert saved.get_json()["terms"] == {"ok": ["a"]}


def test_a_webhook_body_reports_the_url_and_the_events_together(client, tenant):
    body = {"url": "ftp://example.com/hook", "events": ["nope"], "description": 5}
    fields = [
        e["field"] for e in errors_of(client.post("/webhooks", json=body, headers=tenant.headers))
    ]
    assert fields == ["url", "events", "description"]


def test_notification_settings_treat_null_as_left_out(client, tenant):
    response = client.put(
        "/notification-settings",
        json={"email_enabled": None, "sensitive_args": None, "slack_enabled": False},
        headers=tenant.headers,
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    bad = client.put(
        "/notification-settings",
        json={"email_recipients": "a@b.test, nope", "sensitive_args": "x"},
        headers=tenant.headers,
    )
    assert errors_of(bad) == [
        {"field": "email_recipients", "message": "'nope' is not a valid email address"},
        {"field": "sensitive_args", "message": "must be a list of argument names"},
    ]


def test_a_report_period_is_checked_before_its_formats(client, tenant):
    body = {
        "period_start": "2026-11-02T00:00:00Z",
        "period_end": "2026-11-01T00:00:00Z",
        "formats": ["docx"],
    }
    response = client.post("/reports", json=body, headers=tenant.headers)
    assert errors_of(response) == [{"field": "period_end", "message": "must be after period_start"}]
    share = client.post(
        "/reports/rpt_unknown/share", json={"expires_in_seconds": True}, headers=tenant.headers
    )
    assert errors_of(share)[0]["field"] == "expires_in_seconds"


def test_register_policy_checks_the_content_then_the_examples(client, tenant):
    body = {"policy_id": "p", "rules": ["Refunds must not exceed 500 EUR."], "examples": [{}]}
    response = client.post("/register-policy", json=body, headers=tenant.headers)
    assert errors_of(response) == [
        {"field": "examples[0]", "message": "tool_name must be a non-empty string"}
    ]
    body["policy_id"] = "bad id"
    response = client.post("/register-policy", json=body, headers=tenant.headers)
    assert errors_of(response)[0]["field"] == "policy_id"
