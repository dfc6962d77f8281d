"""What a report says about manual reviews, governance and access: reviews decided through the
real review path (a loopback judge sends requests to review), self-approval and expiry flags,
review durations, lockdowns, settings changes and API keys, all against the ledger and tables."""

from __future__ import annotations

import json
from datetime import timedelta

from tests.api.test_reviews import (  # noqa: F401 - fixtures reused, not copied
    age_review,
    decide,
    env,
    pending_request,
    review_app,
    review_judge,
    run_worker,
)


def test_reviews_governance_and_access_in_the_report(env, admin_headers):  # noqa: F811
    app, client, tenant = env
    approved = pending_request(app, client, tenant, human_principal="alice@example.com")
    denied = pending_request(app, client, tenant, human_principal="bob@example.com")
    stale = pending_request(app, client, tenant)
    age_review(app, approved, timedelta(minutes=10))
    assert (
        decide(
            client, tenant, approved, reviewer_email="carol@example.com", review_reason="invoice ok"
        ).status_code
        == 200
    )
    assert (
        decide(client, tenant, denied, approved=False, review_reason="no invoice").status_code
        == 200
    )
    age_review(app, stale, timedelta(days=2))
    with app.app_context():
        from webapp.services import clearance

        assert clearance.expire_reviews() == 1
    # A record from before reviewers were kept apart from requesters: the report must flag it.
    self_approved = pending_request(app, client, tenant, human_principal="dave@example.com")
    assert (
        decide(client, tenant, self_approved, reviewer_email="erin@example.com").status_code == 200
    )
    from webapp.extensions import db
    from webapp.models import ClearanceRequest

    with app.app_context():
        db.session.get(ClearanceRequest, self_approved).reviewer_email = "Dave@example.com"
        db.session.commit()

    # Governance and access changes of the period.
    assert (
        client.post(
            "/drift/agents/agent-9/lockdown", json={"reason": "odd"}, headers=tenant.headers
        ).status_code
        == 200
    )
    assert (
        client.delete("/drift/agents/agent-9/lockdown", headers=tenant.headers).status_code == 200
    )
    assert (
        client.put(
            "/review-settings", json={"minimum_confidence_score": 0.7}, headers=tenant.headers
        ).status_code
        == 200
    )
    key = client.post(
        f"/admin/tenants/{tenant.client_id}/api-keys", json={"label": "ci"}, headers=admin_headers
    ).get_json()
    assert (
        client.delete(
            f"/admin/tenants/{tenant.client_id}/api-keys/{key['key_id']}", headers=admin_headers
        ).status_code
        == 204
    )

    report_id = client.post(
        "/reports", json={"formats": ["json"]}, headers=tenant.headers
    ).get_json()["report_id"]
    run_worker(app)
    document = json.loads(
        client.get(f"/reports/{report_id}/artifacts/json", headers=tenant.headers).data
    )

    reviews = document["manual_reviews"]
    assert (reviews["count"], reviews["approved"], reviews["denied"]) == (4, 2, 2)
    assert reviews["expired"] == 1 and reviews["self_approvals"] == 1
    items = {item["request_id"]: item for item in reviews["items"]}
    assert items[approved]["reviewer_email"] == "carol@example.com"
    assert items[approved]["review_reason"] == "invoice ok"
    assert 600 <= items[approved]["duration_seconds"] < 700
    assert items[approved]["self_approval"] is False
    assert items[self_approved]["self_approval"] is True
    assert items[stale]["expired"] is True and items[stale]["reason_code"] == "review_expired"
    assert items[denied]["outcome"] == "denied"
    histogram = {b["bucket"]: b["count"] for b in reviews["duration_histogram"]}
    assert (
        histogram["5-60 min"] == 1 and sum(histogram.values()) == 3
    )  # expiry is not a review time
    assert document["exceptions"]["expired_reviews"] == 1
    assert document["summary"]["self_approvals"] == 1

    lockdowns = document["lockdowns"]["items"]
    assert [(i["action"], i["agent_id"]) for i in lockdowns] == [
        ("lockdown", "agent-9"),
        ("release", "agent-9"),
    ]
    settings = document["settings_changes"]["items"]
    assert any(
        s["settings"] == "review" and s["changes"]["minimum_confidence_score"]["to"] == 0.7
        for s in settings
    )
    kinds = [item["kind"] for item in document["access"]["items"]]
    assert kinds.count("api_key_created") >= 2 and kinds.count("api_key_revoked") == 1
    assert key["api_key"] not in json.dumps(document)
