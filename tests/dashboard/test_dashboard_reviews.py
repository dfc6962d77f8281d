"""Reviews in the dashboard: quorum, separation of duties, the kept judge's reason, the badge.

Requests reach the queue through the real decision path (the built-in engine with a rule that
asks for manual review above €500), as an agent with the tenant's key would send them.
"""

from __future__ import annotations

import re

from tests.dashboard.conftest import text_of


def ask_on_behalf_of(agent, principal: str, amount: float = 900) -> str:  # noqa: ANN001
    body = {
        "tool_name": "payments.refund",
        "tool_args": {"amount": amount, "currency": "EUR"},
        "agent_id": agent.agent_id,
        "human_principal": principal,
    }
    response = agent.api.post("/request-clearance", json=body, headers=agent.tenant.headers)
    assert response.status_code in (200, 202), response.get_data(as_text=True)
    agent.run_jobs()
    request_id = response.get_json()["request_id"]
    assert agent.poll(request_id)["status"] == "pending_review"
    return request_id


def set_quorum(agent, count: int) -> None:  # noqa: ANN001
    response = agent.api.put(
        "/review-settings", json={"required_approvals": count}, headers=agent.tenant.headers
    )
    assert response.status_code == 200


def test_a_reviewer_cannot_approve_a_request_made_on_their_behalf(agent, signed_in, people):
    agent.register_refund_policy()
    request_id = ask_on_behalf_of(agent, people["reviewer"].upper())
    reviewer = signed_in("reviewer")
    page = text_of(reviewer.get(f"/dashboard/reviews/{request_id}"))
    assert "made by you or on your behalf" in page
    assert 'value="approve"' not in page

    for decision in ("approve", "deny"):
        refused = reviewer.post(
            f"/dashboard/reviews/{request_id}/decision",
            {"decision": decision, "reason": "mine"},
            htmx=True,
        )
        assert refused.status_code == 403
        assert "behalf" in text_of(refused)
    assert agent.poll(request_id)["status"] == "pending_review"

    owner = signed_in("owner")
    approved = owner.post(
        f"/dashboard/reviews/{request_id}/decision", {"decision": "approve", "reason": "ok"}
    )
    assert approved.status_code == 302
    assert agent.poll(request_id)["status"] == "approved"


def test_two_reviewers_are_needed_and_each_counts_once(agent, signed_in):
    agent.register_refund_policy()
    set_quorum(agent, 2)
    request_id = agent.pending_refund()
    reviewer, owner = signed_in("reviewer"), signed_in("owner")
    url = f"/dashboard/reviews/{request_id}/decision"

    first = reviewer.post(url, {"decision": "approve", "reason": "looks fine"}, htmx=True)
    assert first.status_code == 200
    fragment = text_of(first)
    assert "1 more approval is needed" in fragment
    assert "1 of 2" in fragment and "reviewer@acme.test" in fragment
    assert agent.poll(request_id)["status"] == "pending_review"
    page = text_of(reviewer.get(f"/dashboard/reviews/{request_id}"))
    assert "You have approved this request" in page and 'value="approve"' not in page

    again = reviewer.post(url, {"decision": "approve", "reason": "again"}, htmx=True)
    assert again.status_code == 409 and "already approved" in text_of(again)

    final = owner.post(url, {"decision": "approve", "reason": "agreed"}, htmx=True)
    assert final.status_code == 200 and "Approved payments.refund" in text_of(final)
    assert agent.poll(request_id)["status"] == "approved"


def test_the_decision_swaps_the_header_badge_out_of_band(agent, signed_in):
    agent.register_refund_policy()
    request_id = agent.pending_refund()
    reviewer = signed_in("reviewer")
    page = text_of(reviewer.get(f"/dashboard/reviews/{request_id}"))
    assert re.search(
        r'<span id="request-status">\s*<span class="status status-pending-review">', page
    )
    decided = text_of(
        reviewer.post(
            f"/dashboard/reviews/{request_id}/decision",
            {"decision": "approve", "reason": ""},
            htmx=True,
        )
    )
    assert re.search(
        r'<span id="request-status" hx-swap-oob="true">\s*<span class="status status-approved">',
        decided,
    )


def test_why_it_is_here_keeps_the_judges_reason_and_the_reviewers_comment(agent, signed_in):
    agent.register_refund_policy()
    request_id = agent.pending_refund()
    judge_said = agent.poll(request_id)["reason"]
    assert judge_said
    reviewer = signed_in("reviewer")
    reviewer.post(
        f"/dashboard/reviews/{request_id}/decision",
        {"decision": "deny", "reason": "customer already refunded"},
    )
    page = text_of(reviewer.get(f"/dashboard/reviews/{request_id}"))
    why = page[page.index("Why it is here") :]
    assert "The judge&#39;s reason" in why or "The judge's reason" in why
    judge_block = re.search(r'<dd id="judge-reason">(.*?)</dd>', why, re.S).group(1)
    from markupsafe import escape

    assert str(escape(judge_said)) in judge_block
    comment = re.search(r'<dd id="reviewer-comment">(.*?)</dd>', why, re.S).group(1)
    assert comment == "customer already refunded"
    item = agent.api.get("/reviews?status=denied", headers=agent.tenant.headers).get_json()[
        "reviews"
    ][0]
    assert item["judge_reason"] == judge_said and item["reason"] == "customer already refunded"


def test_the_quorum_is_set_on_the_review_settings_page(agent, signed_in):
    owner = signed_in("owner")
    for bad in ("0", "6", "two"):
        response = owner.post(
            "/dashboard/settings/review",
            {
                "minimum_confidence_score": "0.8",
                "judge_failure_mode": "deny",
                "required_approvals": bad,
            },
        )
        assert response.status_code == 422, bad
    saved = owner.post(
        "/dashboard/settings/review",
        {
            "minimum_confidence_score": "0.8",
            "judge_failure_mode": "deny",
            "required_approvals": "3",
        },
    )
    assert saved.status_code == 302
    stored = agent.api.get("/review-settings", headers=agent.tenant.headers).get_json()
    assert stored["required_approvals"] == 3
    assert "approvals needed: <strong>3</strong>" in text_of(
        owner.get("/dashboard/settings/review")
    )
    # A reviewer may not change it.
    reviewer = signed_in("reviewer")
    assert (
        reviewer.post(
            "/dashboard/settings/review",
            {
                "minimum_confidence_score": "0.8",
                "judge_failure_mode": "deny",
                "required_approvals": "1",
            },
        ).status_code
        == 403
    )
