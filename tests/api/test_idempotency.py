"""One Idempotency-Key wrapper for every POST that takes the header (CONTRACT §1): the key is
recorded in the same transaction as the work, so the two commit or vanish together; a replay
answers the first answer; the same key with another body is 422 ``idempotency_mismatch``."""

from __future__ import annotations

import pytest
from sqlalchemy import event

from tests.helpers import ask, register_policy

PAYMENT_RULES = ["Payments above $10,000 are not allowed", "Payments must include an invoice_id"]
REVIEW_RULES = ["Refunds above $500 require review"]


class KeyWriteFails(RuntimeError):
    """The fault injected below: the database refuses the Idempotency-Key record."""


@pytest.fixture
def key_write_fails(app):
    """While active, any flush that would write an Idempotency-Key record fails (the service
    answers 500 `internal`): the work staged with it must vanish too."""
    from webapp.extensions import db
    from webapp.models import IdempotencyRecord

    def refuse(session, _context, _instances):  # noqa: ANN001
        if any(isinstance(row, IdempotencyRecord) for row in session.new):
            raise KeyWriteFails("the idempotency record could not be written")

    session_class = type(db.session())
    event.listen(session_class, "before_flush", refuse)
    try:
        yield
    finally:
        event.remove(session_class, "before_flush", refuse)


def _count(sql, table: str) -> int:
    return sql(f"SELECT count(*) FROM {table}").scalar()  # noqa: S608 - fixed table names


def _pending_review(client, tenant) -> str:
    register_policy(client, tenant, "refunds", REVIEW_RULES, ["refund_*"])
    answer = ask(client, tenant, "refund_payment", {"amount": 900, "currency": "USD"})
    body = answer.get_json()
    assert (answer.status_code, body["status"]) == (200, "pending_review"), body
    return body["request_id"]


# --- the work and its key commit together ------------------------------------------------------


def test_register_policy_is_not_written_without_its_key(app, client, tenant, sql, key_write_fails):
    headers = {**tenant.headers, "Idempotency-Key": "policy-atomic"}
    body = {"policy_id": "refunds", "rules": REVIEW_RULES}
    assert client.post("/register-policy", json=body, headers=headers).status_code == 500
    assert _count(sql, "policies") == 0
    assert _count(sql, "policy_versions") == 0
    assert _count(sql, "ledger_events") == 0


def test_review_decision_is_not_written_without_its_key(app, client, tenant, sql, request):
    request_id = _pending_review(client, tenant)
    events_before = _count(sql, "ledger_events")
    request.getfixturevalue("key_write_fails")
    headers = {**tenant.headers, "Idempotency-Key": "decision-atomic"}
    answer = client.post(
        f"/reviews/{request_id}/decision",
        json={"approved": True, "reviewer_email": "ann@example.com"},
        headers=headers,
    )
    assert answer.status_code == 500
    assert _count(sql, "review_votes") == 0
    assert _count(sql, "ledger_events") == events_before
    status = client.get(f"/clearance-status/{request_id}", headers=tenant.headers).get_json()
    assert status["status"] == "pending_review"


def test_clearance_is_not_written_without_its_key(app, client, tenant, sql, request):
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    before = _count(sql, "clearance_requests"), _count(sql, "ledger_events")
    request.getfixturevalue("key_write_fails")
    answer = ask(
        client,
        tenant,
        "pay_invoice",
        {"amount": 120, "invoice_id": "INV-1"},
        headers={"Idempotency-Key": "clearance-atomic"},
    )
    assert answer.status_code == 500
    assert (_count(sql, "clearance_requests"), _count(sql, "ledger_events")) == before


def test_report_is_not_written_without_its_key(app, client, tenant, sql, key_write_fails):
    headers = {**tenant.headers, "Idempotency-Key": "report-atomic"}
    assert client.post("/reports", json={}, headers=headers).status_code == 500
    assert _count(sql, "reports") == 0


# --- replay and conflict, endpoint by endpoint -------------------------------------------------


def test_review_decision_replay_answers_the_first_answer_after_the_request_moved_on(
    client, tenant, sql
):
    """A replay repeats the first answer (it is stored), not the request's later state, and
    does no new work: one vote, one decision event."""
    request_id = _pending_review(client, tenant)
    headers = {**tenant.headers, "Idempotency-Key": "decide-1"}
    vote = {"approved": False, "review_reason": "not this one", "reviewer_email": "ann@example.com"}
    first = client.post(f"/reviews/{request_id}/decision", json=vote, headers=headers)
    assert first.status_code == 200 and first.get_json()["status"] == "denied"
    votes = _count(sql, "review_votes")
    again = client.post(f"/reviews/{request_id}/decision", json=vote, headers=headers)
    assert (again.status_code, again.get_json()) == (200, first.get_json())
    assert _count(sql, "review_votes") == votes
    other = client.post(
        f"/reviews/{request_id}/decision", json={**vote, "approved": True}, headers=headers
    )
    assert other.status_code == 422 and other.get_json()["code"] == "idempotency_mismatch"
    # Without the key the same vote is new work, refused because the request is decided.
    fresh = client.post(f"/reviews/{request_id}/decision", json=vote, headers=tenant.headers)
    assert fresh.status_code == 409


def test_register_policy_replay_keeps_the_first_status_after_a_new_version(client, tenant, sql):
    headers = {**tenant.headers, "Idempotency-Key": "policy-2"}
    body = {"policy_id": "refunds", "rules": REVIEW_RULES}
    first = client.post("/register-policy", json=body, headers=headers)
    assert first.status_code == 201
    register_policy(client, tenant, "refunds", ["Refunds are not allowed"], ["refund_*"])
    again = client.post("/register-policy", json=body, headers=headers)
    assert (again.status_code, again.get_json()) == (201, first.get_json())
    assert _count(sql, "policy_versions") == 2
    # The key belongs to this tenant only: another tenant's same key is new work.
    from tests.conftest import make_tenant

    other = make_tenant(client.application, "Other Tenant")
    theirs = client.post(
        "/register-policy", json=body, headers={**other.headers, "Idempotency-Key": "policy-2"}
    )
    assert theirs.status_code == 201
    assert theirs.get_json()["policy_version_id"] != first.get_json()["policy_version_id"]


def test_report_replay_answers_the_same_report_and_refuses_another_body(client, tenant, sql):
    headers = {**tenant.headers, "Idempotency-Key": "report-1"}
    first = client.post("/reports", json={}, headers=headers)
    again = client.post("/reports", json={}, headers=headers)
    assert first.status_code == again.status_code == 202
    assert again.get_json()["report_id"] == first.get_json()["report_id"]
    assert _count(sql, "reports") == 1
    other = client.post("/reports", json={"formats": ["json"]}, headers=headers)
    assert other.status_code == 422 and other.get_json()["code"] == "idempotency_mismatch"
