"""A rule that asks for several approvers raises the request's quorum (issues 10 and 15).

"Payments over 50,000 EUR require approval from two reviewers", judged by the built-in engine
through POST /request-clearance: the request waits for review and carries required_approvals=2;
a payment under the threshold is approved; the tenant's own count is never lowered.
"""

from __future__ import annotations

from tests.helpers import ask, register_policy

RULES = ["Payments over 50,000 EUR require approval from two reviewers"]


def _stored_quorum(sql, request_id: str) -> int:
    row = sql(
        "SELECT required_approvals FROM clearance_requests WHERE request_id = :rid",
        rid=request_id,
    ).one()
    return int(row[0])


def test_a_rule_naming_two_reviewers_sets_the_pending_requests_quorum(client, tenant, sql):
    register_policy(client, tenant, "payments", RULES, ["send_payment"])
    big = ask(client, tenant, "send_payment", {"amount": 60_000, "currency": "EUR", "to": "DE89"})
    assert big.status_code in (200, 202), big.get_data(as_text=True)
    body = big.get_json()
    assert body["status"] == "pending_review"
    assert _stored_quorum(sql, body["request_id"]) == 2
    status = client.get(f"/clearance-status/{body['request_id']}", headers=tenant.headers)
    assert status.get_json()["reason_code"] == "review_required_by_rule"

    small = ask(client, tenant, "send_payment", {"amount": 40_000, "currency": "EUR", "to": "DE89"})
    assert small.get_json()["status"] == "approved"


def test_the_tenants_larger_quorum_is_kept(client, tenant, sql):
    register_policy(client, tenant, "payments", RULES, ["send_payment"])
    put = client.put("/review-settings", json={"required_approvals": 3}, headers=tenant.headers)
    assert put.status_code == 200
    big = ask(client, tenant, "send_payment", {"amount": 60_000, "currency": "EUR", "to": "DE89"})
    assert big.get_json()["status"] == "pending_review"
    assert _stored_quorum(sql, big.get_json()["request_id"]) == 3
