"""POST /mint-token, the clients' decision cache (CONTRACT §5a): what mints, and every condition
that refuses with 409 `conflict` and mints nothing."""

from __future__ import annotations

import uuid
from datetime import timedelta

import jwt as pyjwt
import pytest

from tests.api.test_foundation import assert_problem
from tests.helpers import ask, register_policy
from webapp.extensions import db
from webapp.models import ClearanceRequest

PAYMENT_RULES = ["Payments above $10,000 are not allowed", "Payments must include an invoice_id"]
ARGS = {"amount": 120, "invoice_id": "INV-7"}


def approved(client, tenant, run_jobs, tool="pay_invoice", args=ARGS, agent="agent-7"):
    """An approval by the rules: the original a client's cache remembers."""
    body = ask(client, tenant, tool, args, agent_id=agent).get_json()
    run_jobs()
    body = client.get(f"/clearance-status/{body['request_id']}", headers=tenant.headers).get_json()
    assert body["status"] == "approved" and body["reason_code"] == "approved_by_policy", body
    return body


def mint_body(original, **changes):
    """The body both public clients send, built from their cached envelope."""
    body = {
        "tool_name": "pay_invoice",
        "tool_args": dict(ARGS),
        "agent_id": "agent-7",
        "session_id": "",
        "policy_id": "",
        "policy_version_id": original["policy_version_id"],
        "policy_content_hash": original["policy_content_hash"],
        "original_request_id": original["request_id"],
        "confidence_bucket": original["confidence_bucket"],
        "reason": original["reason"],
        "human_principal": None,
        "destination_uri": "",
        "data_categories": [],
    }
    body.update(changes)
    return body


def mint(client, tenant, body, key=None):
    headers = {**tenant.headers, "Idempotency-Key": key or str(uuid.uuid4())}
    return client.post("/mint-token", json=body, headers=headers)


def counts(sql):
    return (
        sql("SELECT count(*) FROM clearance_requests").scalar(),
        sql("SELECT count(*) FROM ledger_events").scalar(),
    )


@pytest.fixture
def original(client, tenant, run_jobs):
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    return approved(client, tenant, run_jobs)


def test_a_repeat_of_an_approval_by_rules_gets_a_fresh_token_and_its_own_decision(
    client, tenant, original, sql
):
    response = mint(client, tenant, mint_body(original, session_id="s-2"))
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert set(body) == {
        "token",
        "request_id",
        "reason",
        "original_request_id",
        "confidence_bucket",
        "policy_version_id",
        "policy_content_hash",
    }
    assert body["original_request_id"] == original["request_id"]
    assert body["request_id"] != original["request_id"]
    assert body["token"] != original["token"]
    assert body["policy_version_id"] == original["policy_version_id"]
    assert body["policy_content_hash"] == original["policy_content_hash"]
    claims = pyjwt.decode(body["token"], options={"verify_signature": False})
    assert claims["request_id"] == body["request_id"] and claims["session_id"] == "s-2"
    assert claims["tool"] == "pay_invoice" and claims["agent_id"] == "agent-7"

    # The new request is an approval by policy like any other, and its token burns once.
    status = client.get(f"/clearance-status/{body['request_id']}", headers=tenant.headers)
    assert status.get_json()["status"] == "approved"
    assert status.get_json()["reason_code"] == "approved_by_policy"
    consumed = client.post(
        "/consume-token",
        json={"token": body["token"], "tool_name": "pay_invoice", "tool_args": ARGS},
        headers=tenant.headers,
    )
    assert consumed.status_code == 200 and consumed.get_json()["request_id"] == body["request_id"]

    # Every token in circulation has its decision in the ledger.
    event = sql(
        "SELECT action_category, approved FROM ledger_events WHERE request_id = :r",
        r=body["request_id"],
    ).all()
    assert ("clearance_decision", True) in [tuple(row) for row in event]
    entries = client.get("/ledger", headers=tenant.headers).get_json()["entries"]
    decision = next(
        e
        for e in entries
        if e["request_id"] == body["request_id"] and e["action_category"] == "clearance_decision"
    )
    assert decision["action_metadata"]["minted_from"] == original["request_id"]
    assert decision["decision_status"] == "approved"


def test_the_same_idempotency_key_answers_with_the_same_token(client, tenant, original, sql):
    key = str(uuid.uuid4())
    first = mint(client, tenant, mint_body(original), key=key).get_json()
    before = counts(sql)
    again = mint(client, tenant, mint_body(original), key=key)
    assert again.status_code == 200 and again.get_json() == first
    assert counts(sql) == before
    other = mint(client, tenant, mint_body(original, session_id="other"), key=key)
    assert_problem(other, 422, "idempotency_mismatch")


def refused(client, tenant, body, sql, detail: str) -> None:
    before = counts(sql)
    response = mint(client, tenant, body)
    assert_problem(response, 409, "conflict")
    assert detail in response.get_json()["detail"], response.get_json()["detail"]
    assert counts(sql) == before, "a refused mint wrote something"


def test_unknown_and_other_tenants_originals_read_the_same(
    client, tenant, other_tenant, original, sql
):
    refused(client, tenant, mint_body(original, original_request_id="req_nope"), sql, "unknown")
    # The other tenant names our request with its own key: unknown to it.
    register_policy(client, other_tenant, "payments", PAYMENT_RULES, ["pay_*"])
    refused(client, other_tenant, mint_body(original), sql, "unknown")


@pytest.mark.parametrize(
    ("changes", "detail"),
    [
        ({"tool_args": {"amount": 121, "invoice_id": "INV-7"}}, "other tool_args"),
        ({"agent_id": "agent-8"}, "another agent_id"),
        ({"tool_name": "pay_invoices"}, "another tool_name"),
        ({"policy_version_id": "pv_other"}, "not those the original was judged against"),
        ({"policy_content_hash": "0" * 64}, "not those the original was judged against"),
        ({"policy_id": "refunds"}, "another policy_id"),
    ],
    ids=["args", "agent", "tool", "version", "hash", "policy"],
)
def test_a_binding_other_than_the_originals_is_refused(
    client, tenant, original, sql, changes, detail
):
    refused(client, tenant, mint_body(original, **changes), sql, detail)


def test_the_same_args_in_another_key_order_are_the_same_intent(client, tenant, original):
    body = mint_body(original, tool_args={"invoice_id": "INV-7", "amount": 120.0})
    assert mint(client, tenant, body).status_code == 200


def test_a_denied_original_is_refused(client, tenant, run_jobs, sql):
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    denied = ask(client, tenant, "pay_invoice", {"amount": 50_000, "invoice_id": "I"}).get_json()
    run_jobs()
    original = client.get(
        f"/clearance-status/{denied['request_id']}", headers=tenant.headers
    ).get_json()
    assert original["status"] == "denied"
    body = mint_body(original, tool_args={"amount": 50_000, "invoice_id": "I"})
    refused(client, tenant, body, sql, "was not approved (it is denied)")


def test_a_reviewers_approval_is_never_re_minted(client, tenant, run_jobs, sql):
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    client.put("/review-settings", json={"minimum_confidence_score": 1.0}, headers=tenant.headers)
    pending = ask(client, tenant, "pay_invoice", ARGS).get_json()
    run_jobs()
    decided = client.post(
        f"/reviews/{pending['request_id']}/decision",
        json={"approved": True, "reviewer_email": "r@example.com", "reason": "ok"},
        headers=tenant.headers,
    )
    assert decided.status_code == 200, decided.get_json()
    original = client.get(
        f"/clearance-status/{pending['request_id']}", headers=tenant.headers
    ).get_json()
    assert original["reason_code"] == "approved_by_reviewer"
    refused(client, tenant, mint_body(original), sql, "approved by a reviewer")


def test_an_original_older_than_the_cache_lifetime_is_refused(client, tenant, original, sql):
    with client.application.app_context():
        row = db.session.get(ClearanceRequest, original["request_id"])
        row.decided_at = row.decided_at - timedelta(seconds=301)
        db.session.commit()
    refused(client, tenant, mint_body(original), sql, "older than VAULT_DECISION_CACHE_TTL")


def test_an_original_judged_against_a_replaced_policy_version_is_refused(
    client, tenant, original, sql
):
    register_policy(client, tenant, "payments", [*PAYMENT_RULES, "Payments need a memo"], ["pay_*"])
    refused(client, tenant, mint_body(original), sql, "is no longer active")


def test_a_minted_approval_cannot_be_the_original_of_another(client, tenant, original, sql):
    minted = mint(client, tenant, mint_body(original)).get_json()
    status = client.get(f"/clearance-status/{minted['request_id']}", headers=tenant.headers)
    body = mint_body(status.get_json())
    refused(client, tenant, body, sql, "itself minted")


def test_a_locked_down_agent_gets_nothing(client, tenant, original, sql):
    locked = client.post("/drift/agents/agent-7/lockdown", json={}, headers=tenant.headers)
    assert locked.status_code == 200, locked.get_json()
    refused(client, tenant, mint_body(original), sql, "locked down")


def test_a_limit_reached_since_the_original_is_enforced_by_the_rules(client, tenant, run_jobs, sql):
    # The original approval is itself the one payment the hour allows.
    rules = ["An agent may make at most 1 payment per hour.", *PAYMENT_RULES]
    register_policy(client, tenant, "payments", rules, ["pay_*"])
    original = approved(client, tenant, run_jobs)
    refused(client, tenant, mint_body(original), sql, "rules would no longer approve")


def test_a_stricter_threshold_since_the_original_is_enforced(client, tenant, original, sql):
    client.put("/review-settings", json={"minimum_confidence_score": 1.0}, headers=tenant.headers)
    refused(client, tenant, mint_body(original), sql, "below the tenant's threshold")


@pytest.mark.parametrize(
    "bad",
    [
        {},
        {"original_request_id": ""},
        {"original_request_id": 7},
        {"tool_args": "x"},
        {"agent_id": ""},
        {"tool_name": None},
        {"policy_version_id": 3},
    ],
    ids=repr,
)
def test_malformed_bodies_are_400_and_mint_nothing(client, tenant, original, sql, bad):
    body = {} if bad == {} else mint_body(original, **bad)
    before = counts(sql)
    assert_problem(mint(client, tenant, body), 400, "invalid_request")
    assert counts(sql) == before


def test_mint_token_needs_the_tenant_key(client, original):
    response = client.post("/mint-token", json=mint_body(original))
    assert_problem(response, 401, "unauthorized")
