"""POST /register-policy and the policy list (CONTRACT §6)."""

from __future__ import annotations

import hashlib

import pytest
import rfc8785

from tests.api.test_foundation import assert_problem
from tests.helpers import register_policy

RULES = ["Payments above $10,000 are not allowed", "Payments must include an invoice_id"]


def expected_hash(policy_id, description, rules, tools):
    canonical = rfc8785.dumps(
        {"policy_id": policy_id, "description": description, "rules": rules, "tools": tools}
    )
    return hashlib.sha256(canonical).hexdigest()


def test_register_creates_versions_and_recognises_unchanged_content(client, tenant, sql):
    first = client.post(
        "/register-policy",
        json={
            "policy_id": "payments",
            "description": "Outgoing payments",
            "rules": RULES,
            "tools": ["pay_*"],
        },
        headers=tenant.headers,
    )
    assert first.status_code == 201
    body = first.get_json()
    assert body["status"] == "registered" and body["version"] == 1
    assert body["policy_content_hash"] == expected_hash(
        "payments", "Outgoing payments", RULES, ["pay_*"]
    )
    assert body["chunks"] == 3
    assert set(body) == {
        "policy_id",
        "status",
        "message",
        "policy_version_id",
        "policy_content_hash",
        "version",
        "chunks",
        "rules",
        "examples",
    }

    again = client.post(
        "/register-policy",
        json={
            "policy_id": "payments",
            "description": "Outgoing payments",
            "rules": RULES,
            "tools": ["pay_*"],
        },
        headers=tenant.headers,
    )
    assert again.status_code == 200
    assert again.get_json()["status"] == "unchanged"
    assert again.get_json()["policy_version_id"] == body["policy_version_id"]

    changed = register_policy(
        client, tenant, "payments", RULES + ["Never pay to sanctioned countries"], ["pay_*"]
    )
    assert changed["version"] == 2 and changed["policy_version_id"] != body["policy_version_id"]

    detail = client.get("/policies/payments", headers=tenant.headers).get_json()
    assert [v["version"] for v in detail["versions"]] == [2, 1]
    assert detail["current_version"]["policy_version_id"] == changed["policy_version_id"]
    listed = client.get("/policies", headers=tenant.headers).get_json()
    assert [p["policy_id"] for p in listed["policies"]] == ["payments"]
    events = sql(
        "SELECT count(*) FROM ledger_events WHERE client_id = :c AND action_category = 'policy_registered'",
        c=tenant.client_id,
    ).scalar()
    assert events == 2


def test_deactivate_keeps_history_and_is_tenant_scoped(client, tenant, other_tenant):
    register_policy(client, tenant, "hr", ["Salary changes require manual review"])
    assert client.get("/policies/hr", headers=other_tenant.headers).status_code == 404
    assert client.delete("/policies/hr", headers=other_tenant.headers).status_code == 404
    response = client.delete("/policies/hr", headers=tenant.headers)
    assert response.status_code == 200 and response.get_json()["active"] is False
    detail = client.get("/policies/hr", headers=tenant.headers).get_json()
    assert detail["active"] is False and len(detail["versions"]) == 1
    # Registering the same content again reactivates without a new version.
    again = register_policy(client, tenant, "hr", ["Salary changes require manual review"])
    assert again["version"] == 1
    assert client.get("/policies/hr", headers=tenant.headers).get_json()["active"] is True


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"rules": ["x"]}, "policy_id"),
        ({"policy_id": "bad id!", "rules": ["x"]}, "policy_id"),
        ({"policy_id": "p" * 129, "rules": ["x"]}, "policy_id"),
        ({"policy_id": "p"}, "rules"),
        ({"policy_id": "p", "rules": []}, "rules"),
        ({"policy_id": "p", "rules": ["   "]}, "rules[0]"),
        ({"policy_id": "p", "rules": [5]}, "rules[0]"),
        ({"policy_id": "p", "rules": ["x" * 2001]}, "rules[0]"),
        ({"policy_id": "p", "rules": ["x"] * 501}, "rules"),
        ({"policy_id": "p", "rules": ["x"], "tools": "pay_*"}, "tools"),
        ({"policy_id": "p", "rules": ["x"], "tools": [""]}, "tools[0]"),
        ({"policy_id": "p", "rules": ["x"], "description": "d" * 2001}, "description"),
    ],
)
def test_bad_policies_are_400_with_field_errors_and_store_nothing(client, tenant, body, field, sql):
    body = assert_problem(
        client.post("/register-policy", json=body, headers=tenant.headers), 400, "invalid_request"
    )
    assert field in {e["field"] for e in body["errors"]}
    assert sql("SELECT count(*) FROM policies").scalar() == 0
    assert sql("SELECT count(*) FROM ledger_events").scalar() == 0


def test_idempotency_key_replays_and_refuses_a_different_body(client, tenant, sql):
    headers = {**tenant.headers, "Idempotency-Key": "policy-1"}
    body = {"policy_id": "refunds", "rules": ["Refunds above 500 EUR need approval"]}
    first = client.post("/register-policy", json=body, headers=headers)
    second = client.post("/register-policy", json=body, headers=headers)
    assert first.status_code == second.status_code == 201
    assert first.get_json() == second.get_json()
    mismatch = client.post("/register-policy", json={**body, "rules": ["other"]}, headers=headers)
    assert_problem(mismatch, 422, "idempotency_mismatch")
    assert sql("SELECT count(*) FROM policy_versions").scalar() == 1
