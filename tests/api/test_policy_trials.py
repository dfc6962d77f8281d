"""Register-policy readings and examples, POST /policies/dry-run and the glossary (CONTRACT §6, §6a)."""

from __future__ import annotations

from tests.api.test_foundation import assert_problem

POLICY = {
    "policy_id": "wires",
    "rules": [
        "Wire transfers to IR or KP are forbidden",
        "Accounts may not be closed unless the branch manager has waived it",
    ],
    "tools": ["wire_*", "close_account"],
}


def _counts(sql, client_id):
    return tuple(
        sql(f"SELECT COUNT(*) FROM {table} WHERE client_id = :c", c=client_id).scalar()
        for table in ("clearance_requests", "ledger_events")
    )


def test_registration_answers_per_rule_readings_and_runs_examples(client, tenant):
    body = dict(POLICY)
    body["examples"] = [
        {
            "tool_name": "wire_transfer",
            "tool_args": {"amount": 5, "country": "KP"},
            "expected": "denied",
        },
        {
            "tool_name": "wire_transfer",
            "tool_args": {"amount": 5, "country": "KP"},
            "expected": "approved",
        },
    ]
    response = client.post("/register-policy", json=body, headers=tenant.headers)
    assert response.status_code == 201, response.get_json()
    out = response.get_json()
    first, second = out["rules"]
    assert first["understanding"] == "understood"
    assert first["readings"] == [
        "Deny when country or region is IR or KP (about: wire transfers) (tools: wire_*, close_account)"
    ]
    assert second["understanding"] == "partly_understood" and "unless" in second["unaccounted"]
    assert out["examples"] == [
        {"index": 0, "expected": "denied", "got": "denied", "passed": True},
        {"index": 1, "expected": "approved", "got": "denied", "passed": False},
    ]


def test_bad_examples_are_a_400_and_store_nothing(client, tenant, sql):
    body = dict(POLICY, examples=[{"tool_name": "x", "expected": "maybe"}])
    assert_problem(
        client.post("/register-policy", json=body, headers=tenant.headers), 400, "invalid_request"
    )
    assert (
        sql("SELECT COUNT(*) FROM policies WHERE client_id = :c", c=tenant.client_id).scalar() == 0
    )


def test_a_dry_run_gives_the_verdict_and_records_nothing(client, tenant, sql):
    before = _counts(sql, tenant.client_id)
    response = client.post(
        "/policies/dry-run",
        json={
            "policy": POLICY,
            "request": {"tool_name": "wire_transfer", "tool_args": {"amount": 5, "country": "IR"}},
        },
        headers=tenant.headers,
    )
    assert response.status_code == 200, response.get_json()
    out = response.get_json()
    assert out["status"] == "denied" and out["reason_code"] == "rule_violated"
    assert out["citations"][0]["text"] == POLICY["rules"][0]
    assert [r["understanding"] for r in out["rules"]] == ["understood", "partly_understood"]
    assert _counts(sql, tenant.client_id) == before
    assert (
        sql("SELECT COUNT(*) FROM policies WHERE client_id = :c", c=tenant.client_id).scalar() == 0
    )


def test_a_dry_run_of_an_active_policy_is_tenant_scoped(client, tenant, other_tenant):
    assert client.post("/register-policy", json=POLICY, headers=tenant.headers).status_code == 201
    request = {"tool_name": "close_account", "tool_args": {"balance": 3}}
    mine = client.post(
        "/policies/dry-run", json={"policy_id": "wires", "request": request}, headers=tenant.headers
    )
    assert mine.status_code == 200 and mine.get_json()["status"] == "pending_review"
    theirs = client.post(
        "/policies/dry-run",
        json={"policy_id": "wires", "request": request},
        headers=other_tenant.headers,
    )
    assert_problem(theirs, 404, "not_found")


def test_dry_run_bad_input_is_a_clear_400(client, tenant):
    for body in (
        {},
        {"policy": "x", "request": {"tool_name": "t"}},
        {"policy": POLICY, "request": {"tool_args": {}}},
        {"policy": POLICY, "request": {"tool_name": "t", "tool_args": []}},
        {"policy": dict(POLICY, rules=[]), "request": {"tool_name": "t"}},
    ):
        assert_problem(
            client.post("/policies/dry-run", json=body, headers=tenant.headers),
            400,
            "invalid_request",
        )


def test_the_glossary_decides_categories_and_its_changes_are_ledgered(client, tenant, sql):
    assert client.get("/glossary", headers=tenant.headers).get_json()["terms"] == {}
    policy = {
        "policy_id": "iam",
        "rules": ["Privileged roles must never be granted by the agent."],
        "tools": ["grant_role"],
    }
    request = {"tool_name": "grant_role", "tool_args": {"user": "bob", "role": "Org Owner"}}
    run = lambda: client.post(  # noqa: E731
        "/policies/dry-run", json={"policy": policy, "request": request}, headers=tenant.headers
    ).get_json()
    assert run()["status"] == "pending_review"  # no vocabulary: a human decides
    events = sql(
        "SELECT COUNT(*) FROM ledger_events WHERE client_id = :c", c=tenant.client_id
    ).scalar()
    put = client.put(
        "/glossary",
        json={"terms": {"Privileged roles": ["Org Owner", "Billing Admin"]}},
        headers=tenant.headers,
    )
    assert put.status_code == 200
    assert put.get_json()["terms"] == {"Privileged roles": ["Org Owner", "Billing Admin"]}
    assert "countries" in put.get_json()["builtin"]
    assert (
        sql("SELECT COUNT(*) FROM ledger_events WHERE client_id = :c", c=tenant.client_id).scalar()
        == events + 1
    )
    assert run()["status"] == "denied"
    request["tool_args"]["role"] = "Viewer"
    assert run()["status"] == "approved"


def test_glossary_bad_input_is_a_clear_400(client, tenant, other_tenant):
    for body in (
        {"terms": {"big": [f"v{i}" for i in range(1001)]}},
        {"terms": {"long": ["x" * 201]}},
        {"terms": {"t": "not a list"}},
        {"terms": []},
        {"terms": {"t": [3]}},
    ):
        assert_problem(
            client.put("/glossary", json=body, headers=tenant.headers), 400, "invalid_request"
        )
    assert (
        client.put("/glossary", json={"terms": {"a": ["b"]}}, headers=tenant.headers).status_code
        == 200
    )
    assert client.get("/glossary", headers=other_tenant.headers).get_json()["terms"] == {}


def test_the_decision_path_uses_the_tenant_glossary(client, tenant, run_jobs):
    from tests.helpers import ask, register_policy

    register_policy(
        client,
        tenant,
        "iam",
        ["Privileged roles must never be granted by the agent."],
        ["grant_role"],
    )
    client.put(
        "/glossary", json={"terms": {"privileged roles": ["Org Owner"]}}, headers=tenant.headers
    )
    asked = [
        ask(client, tenant, "grant_role", {"user": "bob", "role": role}).get_json()
        for role in ("Org Owner", "Viewer")
    ]
    run_jobs()
    owner, viewer = (
        client.get(f"/clearance-status/{a['request_id']}", headers=tenant.headers).get_json()
        for a in asked
    )
    assert (owner["status"], owner["reason_code"]) == ("denied", "rule_violated")
    assert viewer["status"] == "approved"


def test_dry_runs_are_rate_limited_like_every_other_call(client, tenant):
    response = client.post(
        "/policies/dry-run",
        json={"policy": POLICY, "request": {"tool_name": "wire_transfer", "tool_args": {}}},
        headers=tenant.headers,
    )
    assert response.status_code == 200
    names = {name.lower() for name in response.headers.keys()}
    assert any("ratelimit" in name for name in names), names
