"""API key scopes (CONTRACT §12): agent, review, manage, chosen by URL path in one table.

A key made without scopes, and every key made before scopes existed, keeps all three; a key
without the scope an endpoint needs gets 403 ``forbidden`` and nothing happens.
"""

from __future__ import annotations

import pytest

from tests.api.test_foundation import assert_problem
from tests.helpers import ask


def new_key(client, admin_headers, client_id: str, **body) -> dict:
    response = client.post(f"/admin/tenants/{client_id}/api-keys", json=body, headers=admin_headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()


def with_key(raw: str) -> dict[str, str]:
    return {"X-Vault-API-Key": raw}


@pytest.mark.parametrize(
    "path, scope",
    [
        ("/request-clearance", "agent"),
        ("/clearance-status/req_1", "agent"),
        ("/consume-token", "agent"),
        ("/mint-token", "agent"),
        ("/reviews", "review"),
        ("/reviews/req_1/decision", "review"),
        ("/reviews-settings", "manage"),  # a path that merely starts with the same letters
        ("/review-settings", "manage"),
        ("/register-policy", "manage"),
        ("/policies/p", "manage"),
        ("/ledger/proof/bundle", "manage"),
        ("/notification-settings", "manage"),
        ("/webhooks", "manage"),  # not listed anywhere: closed to narrower keys by default
        ("/request-clearance-bulk", "manage"),
    ],
)
def test_the_scope_table_maps_paths_and_defaults_to_manage(path, scope):
    from webapp.api.auth import required_scope

    assert required_scope(path) == scope


def test_a_key_made_without_scopes_has_all_three(client, tenant, admin_headers):
    body = new_key(client, admin_headers, tenant.client_id, label="everything")
    assert body["scopes"] == ["agent", "review", "manage"]
    headers = with_key(body["api_key"])
    assert ask(client, tenant, "t", {}, headers=headers).status_code in (200, 202)
    assert client.get("/reviews", headers=headers).status_code == 200
    assert client.get("/review-settings", headers=headers).status_code == 200
    # The tenant's first key (made by create_tenant) has all three too.
    listed = client.get(f"/admin/tenants/{tenant.client_id}/api-keys", headers=admin_headers)
    assert [k["scopes"] for k in listed.get_json()["api_keys"]] == [
        ["agent", "review", "manage"],
        ["agent", "review", "manage"],
    ]


def test_an_agent_key_asks_and_polls_but_cannot_review_or_manage(client, tenant, admin_headers):
    body = new_key(client, admin_headers, tenant.client_id, label="bot", scopes=["agent"])
    assert body["scopes"] == ["agent"]
    headers = with_key(body["api_key"])
    asked = client.post(
        "/request-clearance",
        json={"tool_name": "t", "tool_args": {}, "agent_id": "a"},
        headers=headers,
    )
    assert asked.status_code in (200, 202)
    rid = asked.get_json()["request_id"]
    assert client.get(f"/clearance-status/{rid}", headers=headers).status_code == 200
    denied = assert_problem(
        client.post(f"/reviews/{rid}/decision", json={"approved": True}, headers=headers),
        403,
        "forbidden",
    )
    assert "review" in denied["detail"]
    assert_problem(client.get("/reviews", headers=headers), 403, "forbidden")
    assert_problem(client.get("/review-settings", headers=headers), 403, "forbidden")
    assert_problem(
        client.put("/review-settings", json={"minimum_confidence_score": 0}, headers=headers),
        403,
        "forbidden",
    )
    assert_problem(client.get("/policies", headers=headers), 403, "forbidden")
    assert_problem(client.get("/ledger", headers=headers), 403, "forbidden")
    # Nothing was changed by the refused PUT.
    assert client.get("/review-settings", headers=tenant.headers).get_json()[
        "minimum_confidence_score"
    ] == pytest.approx(0.8)


def test_review_and_manage_keys_reach_only_their_endpoints(client, tenant, admin_headers):
    reviewer = with_key(
        new_key(client, admin_headers, tenant.client_id, scopes=["review"])["api_key"]
    )
    manager = with_key(
        new_key(client, admin_headers, tenant.client_id, scopes=["manage", "manage"])["api_key"]
    )
    assert client.get("/reviews", headers=reviewer).status_code == 200
    assert_problem(ask(client, tenant, "t", {}, headers=reviewer), 403, "forbidden")
    assert_problem(client.get("/policies", headers=reviewer), 403, "forbidden")
    assert client.get("/policies", headers=manager).status_code == 200
    assert_problem(client.get("/reviews", headers=manager), 403, "forbidden")
    assert_problem(client.get("/clearance-status/req_x", headers=manager), 403, "forbidden")


def test_scopes_come_back_in_canonical_order(client, tenant, admin_headers):
    body = new_key(client, admin_headers, tenant.client_id, scopes=["manage", "agent"])
    assert body["scopes"] == ["agent", "manage"]


@pytest.mark.parametrize(
    "scopes", [[], ["admin"], ["agent", "root"], "agent", [1], {"agent": True}, ["AGENT"]]
)
def test_bad_scopes_are_400_and_create_no_key(client, tenant, admin_headers, scopes):
    response = client.post(
        f"/admin/tenants/{tenant.client_id}/api-keys",
        json={"label": "x", "scopes": scopes},
        headers=admin_headers,
    )
    problem = assert_problem(response, 400, "invalid_request")
    assert problem["errors"][0]["field"].startswith("scopes")
    listed = client.get(f"/admin/tenants/{tenant.client_id}/api-keys", headers=admin_headers)
    assert len(listed.get_json()["api_keys"]) == 1


def test_a_key_row_from_before_scopes_has_all_three(app, tenant, sql):
    """The column's server default is what the migration gives every existing row."""
    sql(
        "INSERT INTO api_keys (key_id, client_id, prefix, key_hash, label, created_at) "
        "VALUES ('key_old', :c, 'vk_old', :h, 'old', CURRENT_TIMESTAMP)",
        c=tenant.client_id,
        h="0" * 64,
    )
    assert sql("SELECT scopes FROM api_keys WHERE key_id = 'key_old'").scalar() == (
        "agent review manage"
    )


def test_unknown_words_in_the_stored_scopes_grant_nothing(client, tenant, sql):
    sql(
        "UPDATE api_keys SET scopes = 'superuser' WHERE client_id = :c",
        c=tenant.client_id,
    )
    assert_problem(client.get("/reviews", headers=tenant.headers), 403, "forbidden")
    assert_problem(ask(client, tenant, "t", {}), 403, "forbidden")
