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


# --- the queue as a working tool ---------------------------------------------------------------


def queue_ids(page: str) -> list[str]:
    return re.findall(r'<tr data-request="([^"]+)"', page)


def make_queue(agent) -> dict[str, str]:  # noqa: ANN001
    """Four waiting refunds: three by agent-7 (600, 900, 2000 EUR), one by agent-8 (950)."""
    agent.register_refund_policy()
    ids = {
        "small": agent.pending_refund(600),
        "mid": agent.pending_refund(900),
        "large": agent.pending_refund(2000),
    }
    other = agent.ask("payments.refund", {"amount": 950, "currency": "EUR"}, agent_id="agent-8")
    assert other["status"] == "pending_review"
    ids["other"] = other["request_id"]
    return ids


def age(app, request_id: str, minutes: int) -> None:  # noqa: ANN001
    from datetime import timedelta

    from webapp.extensions import db
    from webapp.models import ClearanceRequest

    with app.app_context():
        row = db.session.get(ClearanceRequest, request_id)
        row.review_started_at = row.review_started_at - timedelta(minutes=minutes)
        db.session.commit()


def test_queue_filters_narrow_the_list_and_oldest_comes_first(app, agent, signed_in):
    ids = make_queue(agent)
    age(app, ids["large"], 120)
    reviewer = signed_in("reviewer")

    def shown(query: str = "") -> list[str]:
        response = reviewer.get(f"/dashboard/reviews?{query}")
        assert response.status_code == 200, text_of(response)
        return queue_ids(text_of(response))

    assert shown() == [ids["large"], ids["small"], ids["mid"], ids["other"]]
    assert shown("sort=newest") == [ids["other"], ids["mid"], ids["small"], ids["large"]]
    assert shown("agent_id=agent-8") == [ids["other"]]
    assert shown("tool_name=payments.refund&agent_id=agent-7") == [
        ids["large"],
        ids["small"],
        ids["mid"],
    ]
    assert shown("tool_name=payments.transfer") == []
    assert shown("policy_id=refunds") == shown()
    assert shown("min_amount=800&max_amount=1000") == [ids["mid"], ids["other"]]
    assert shown("min_amount=1000") == [ids["large"]]
    assert shown("min_age_minutes=60") == [ids["large"]]
    assert shown("max_age_minutes=60") == [ids["small"], ids["mid"], ids["other"]]
    assert shown(f"request_id={ids['mid'][:20]}") == [ids["mid"]]
    assert shown("request_id=req_%25") == []  # a LIKE wildcard is only a character
    page = text_of(reviewer.get("/dashboard/reviews"))
    assert '<span id="queue-total">4</span>' in page
    assert re.search(
        r'<td data-label="Time left" class="time-left">(23 h \d+ min|1 d 0 h)</td>', page
    )
    # The polled fragment keeps the filters.
    fragment = text_of(reviewer.get("/dashboard/reviews?agent_id=agent-8", htmx=True))
    assert "<html" not in fragment and queue_ids(fragment) == [ids["other"]]
    assert (
        'hx-get="/dashboard/reviews?status=pending_review&amp;sort=oldest&amp;agent_id=agent-8"'
        in fragment
    )


def test_filters_with_bad_values_rerender_with_the_message(agent, signed_in):
    agent.register_refund_policy()
    agent.pending_refund(700)
    reviewer = signed_in("reviewer")
    cases = {
        "min_amount=abc": "Amount from: must be a number.",
        "max_amount=1e999": "Amount to: must be a number.",
        "min_amount=9&max_amount=1": "Amount to: must not be below min_amount.",
        "min_age_minutes=-5": "Waiting at least: must be a whole number",
        "max_age_minutes=1.5": "Waiting at most: must be a whole number",
        "sort=sideways": "Order: choose oldest or newest first.",
        "status=bogus": "Status: choose one of the tabs.",
        "request_id=" + "x" * 300: "Request id: must be at most 256 characters",
        "agent_id=%00": "",  # NUL: refused (by the edge or the filter), never a 500
        # A page position that is not one: no timestamp, no id, too long, not a time.
        "after=nonsense": "Page: that page of the queue does not exist",
        "after=2026-01-01T00:00:00.000000Z%7C": "Page: that page of the queue does not exist",
        "after=yesterday%7Creq_1": "Page: that page of the queue does not exist",
        "after=" + "9" * 300: "Page: that page of the queue does not exist",
    }
    for query, message in cases.items():
        for htmx in (False, True):
            response = reviewer.get(f"/dashboard/reviews?{query}", htmx=htmx)
            assert response.status_code == 400, query
            page = text_of(response)
            assert queue_ids(page) == []
            if not htmx and message:
                assert message in page, (query, page[page.find("error-box") :][:400])
                assert '<form method="get"' in page
            elif message:
                assert "The filters need fixing" in page


def test_the_live_count_in_the_header(agent, signed_in):
    agent.register_refund_policy()
    reviewer = signed_in("reviewer")
    assert '<span id="pending-count" class="count zero"' in text_of(reviewer.get("/dashboard/"))
    request_id = agent.pending_refund(800)
    counted = text_of(reviewer.get("/dashboard/reviews/count", htmx=True))
    assert re.search(r'<span id="pending-count" class="count"[^>]*>1</span>', counted)
    reviewer.post(f"/dashboard/reviews/{request_id}/decision", {"decision": "approve"})
    counted = text_of(reviewer.get("/dashboard/reviews/count", htmx=True))
    assert re.search(r'<span id="pending-count" class="count zero"[^>]*>0</span>', counted)


def test_bulk_approval_shows_what_will_be_decided_then_decides_it(agent, signed_in):
    ids = make_queue(agent)
    reviewer = signed_in("reviewer")
    chosen = [ids["small"], ids["other"]]
    preview = reviewer.post(
        "/dashboard/reviews/bulk",
        {"ids": chosen, "decision": "approve", "reason": "month-end batch"},
    )
    assert preview.status_code == 200
    page = text_of(preview)
    assert "Approve 2 requests?" in page and "month-end batch" in page
    listed = re.findall(r'<input type="hidden" name="ids" value="([^"]+)">', page)
    assert listed == chosen
    assert "agent-8" in page and "600 EUR" in page and "950 EUR" in page
    assert all(agent.poll(rid)["status"] == "pending_review" for rid in ids.values())

    done = reviewer.post(
        "/dashboard/reviews/bulk",
        {"ids": chosen, "decision": "approve", "reason": "month-end batch", "confirmed": "yes"},
    )
    assert done.status_code == 200 and "2 decided" in text_of(done)
    assert [agent.poll(rid)["status"] for rid in chosen] == ["approved", "approved"]
    assert agent.poll(ids["mid"])["status"] == "pending_review"
    [item] = agent.api.get(
        f"/reviews?status=approved&request_id={ids['small']}", headers=agent.tenant.headers
    ).get_json()["reviews"]
    assert (item["reviewer_email"], item["review_reason"]) == (
        "reviewer@acme.test",
        "month-end batch",
    )


def test_bulk_decisions_keep_quorum_and_separation_of_duties(agent, signed_in, people):
    agent.register_refund_policy()
    set_quorum(agent, 2)
    plain = agent.pending_refund(700)
    mine = ask_on_behalf_of(agent, people["reviewer"], amount=800)
    reviewer = signed_in("reviewer")
    done = reviewer.post(
        "/dashboard/reviews/bulk",
        {"ids": [plain, mine], "decision": "approve", "reason": "ok", "confirmed": "yes"},
    )
    page = text_of(done)
    assert "0 decided, 1 approval recorded" in page and "1 refused" in page
    assert "behalf" in page
    assert agent.poll(plain)["status"] == "pending_review"
    assert agent.poll(mine)["status"] == "pending_review"
    # A deny from another reviewer denies at once, even under the quorum.
    owner = signed_in("owner")
    owner.post(
        "/dashboard/reviews/bulk",
        {"ids": [plain, mine], "decision": "deny", "reason": "stop", "confirmed": "yes"},
    )
    assert agent.poll(plain)["status"] == agent.poll(mine)["status"] == "denied"


def test_bulk_refuses_bad_requests_and_decides_nothing(agent, signed_in):
    agent.register_refund_policy()
    rid = agent.pending_refund(700)
    reviewer = signed_in("reviewer")
    too_many = [rid] + [f"req_{n:032x}" for n in range(200)]
    cases = [
        (
            {"ids": too_many, "decision": "approve", "reason": "r", "confirmed": "yes"},
            "at most 200",
        ),
        ({"ids": [rid], "decision": "approve", "reason": "", "confirmed": "yes"}, "say why"),
        ({"ids": [rid], "decision": "maybe", "reason": "r", "confirmed": "yes"}, "Decision"),
        ({"ids": [], "decision": "deny", "reason": "r", "confirmed": "yes"}, "Select at least one"),
    ]
    for data, message in cases:
        response = reviewer.post("/dashboard/reviews/bulk", data)
        assert response.status_code == 400, data
        assert message in text_of(response)
    assert agent.poll(rid)["status"] == "pending_review"
    # Roles and CSRF.
    viewer = signed_in("viewer")
    assert (
        viewer.post(
            "/dashboard/reviews/bulk",
            {"ids": [rid], "decision": "approve", "reason": "r", "confirmed": "yes"},
        ).status_code
        == 403
    )
    no_token = reviewer.client.post(
        "/dashboard/reviews/bulk",
        data={"ids": [rid], "decision": "approve", "reason": "r", "confirmed": "yes"},
    )
    assert no_token.status_code == 400
    assert agent.poll(rid)["status"] == "pending_review"


# --- signed links from notifications -------------------------------------------------------------


def test_a_signed_review_link_needs_a_sign_in_and_decides_nothing(app, agent, signed_in, tenant):
    from webapp.services import review_links

    agent.register_refund_policy()
    request_id = agent.pending_refund(800)
    with app.app_context():
        url = review_links.link("http://localhost", tenant.client_id, request_id)
    path = url.removeprefix("http://localhost")
    assert path.startswith("/dashboard/reviews/link/") and request_id not in path

    anonymous = app.test_client().get(path)
    assert anonymous.status_code in (302, 303)
    assert "/dashboard/sign-in" in anonymous.headers["Location"]
    assert "link" in anonymous.headers["Location"]  # and back to the link after signing in

    reviewer = signed_in("reviewer")
    opened = reviewer.get(path)
    assert opened.status_code == 302
    assert opened.headers["Location"] == f"/dashboard/reviews/{request_id}"
    assert agent.poll(request_id)["status"] == "pending_review"  # a GET decides nothing
    assert reviewer.client.post(path).status_code == 405


def test_forged_expired_and_foreign_links_are_404(app, agent, signed_in, tenant, other_tenant):
    import time

    from itsdangerous import TimestampSigner, URLSafeTimedSerializer

    from webapp.runtime import vault
    from webapp.secrets import derived_key
    from webapp.services import review_links

    agent.register_refund_policy()
    request_id = agent.pending_refund(800)

    class SignedLongAgo(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - 10 * 86400

    with app.app_context():
        good = review_links.sign(tenant.client_id, request_id)
        foreign = review_links.sign(other_tenant.client_id, request_id)
        old = URLSafeTimedSerializer(
            derived_key(vault().config, "review-links"),
            salt=review_links.SALT,
            signer=SignedLongAgo,
        ).dumps({"c": tenant.client_id, "r": request_id})
    reviewer = signed_in("reviewer")
    for token in (good[:-2] + "xx", foreign, old, "not-a-token", "a" * 600):
        response = reviewer.get(f"/dashboard/reviews/link/{token}")
        assert response.status_code == 404, token
        assert request_id not in text_of(response)
    assert reviewer.get(f"/dashboard/reviews/link/{good}").status_code == 302
