"""CSRF on forms and HTMX requests, escaping of user content, and what each role may do."""

from __future__ import annotations

import pytest

from tests.dashboard.conftest import REFUND_RULES, Agent, text_of


def _key_count(app, tenant) -> int:
    from webapp.services import tenants

    with app.app_context():
        return len(tenants.list_api_keys(tenant.client_id))


def test_a_post_without_the_csrf_token_fails_and_changes_nothing(app, tenant, signed_in):
    dash = signed_in("owner")
    before = _key_count(app, tenant)

    plain = dash.client.post("/dashboard/settings/api-keys", data={"label": "ci"})
    htmx = dash.client.post(
        "/dashboard/settings/api-keys", data={"label": "ci"}, headers={"HX-Request": "true"}
    )
    forged = dash.client.post(
        "/dashboard/settings/api-keys",
        data={"label": "ci"},
        headers={"X-CSRFToken": "forged.token.value"},
    )

    for response in (plain, htmx, forged):
        assert response.status_code == 400
        assert "did not come from this dashboard" in text_of(response)
    assert _key_count(app, tenant) == before


def test_the_csrf_token_works_as_a_form_field_and_as_the_htmx_header(app, tenant, signed_in):
    dash = signed_in("owner")
    before = _key_count(app, tenant)
    assert dash.post("/dashboard/settings/api-keys", {"label": "form"}).status_code == 200
    assert (
        dash.post("/dashboard/settings/api-keys", {"label": "htmx"}, htmx=True).status_code == 200
    )
    assert _key_count(app, tenant) == before + 2


def test_a_token_from_another_session_is_refused(app, tenant, signed_in):
    owner, other = signed_in("owner"), signed_in("viewer")
    response = owner.client.post(
        "/dashboard/settings/api-keys", data={"label": "x", "csrf_token": other.token()}
    )
    assert response.status_code == 400


def test_every_page_sends_a_strict_content_security_policy(signed_in):
    response = signed_in("viewer").get("/dashboard/")
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert response.headers["Cache-Control"] == "no-store"


SCRIPT = "<script>alert('owned')</script>"


def test_user_content_is_escaped_everywhere_it_shows(app, tenant, agent, signed_in):
    """A rule, a tool argument, an agent id and a reason containing markup come out as text."""
    agent.register_refund_policy([*REFUND_RULES, f"Refunds must never mention {SCRIPT} in notes."])
    request_id = agent.pending_refund(note=SCRIPT)
    hostile_agent = f"agent-{SCRIPT}"
    agent.ask("payments.refund", {"amount": 10, "currency": "EUR"}, agent_id=hostile_agent)

    owner = signed_in("owner")
    showing = [  # pages where the hostile text appears: the rule, the tool argument, the agent id
        "/dashboard/policies/refunds",
        f"/dashboard/reviews/{request_id}",
        "/dashboard/agents",
        "/dashboard/ledger",
    ]
    for url in [*showing, "/dashboard/reviews", "/dashboard/"]:
        page = owner.get(url)
        body = text_of(page)
        assert page.status_code == 200, url
        assert "<script>" not in body, url
        if url in showing:
            assert "&lt;script&gt;" in body, url

    owner.post(f"/dashboard/reviews/{request_id}/decision", {"decision": "deny", "reason": SCRIPT})
    denied = text_of(owner.get(f"/dashboard/reviews/{request_id}"))
    assert SCRIPT not in denied and "&lt;script&gt;alert(&#39;owned&#39;)&lt;/script&gt;" in denied


# --- roles ---------------------------------------------------------------------------------

# (method, url, form data) for actions only owners may take.
OWNER_ACTIONS = [
    ("post", "/dashboard/settings/api-keys", {"label": "x"}),
    (
        "post",
        "/dashboard/settings/review",
        {"minimum_confidence_score": "0.9", "judge_failure_mode": "deny"},
    ),
    ("post", "/dashboard/settings/notifications", {"email_recipients": ""}),
    ("post", "/dashboard/settings/notifications/test", {}),
    ("post", "/dashboard/agents/lock", {"agent_id": "agent-7", "reason": "r"}),
    ("post", "/dashboard/agents/release", {"agent_id": "agent-7", "reason": "r"}),
    (
        "post",
        "/dashboard/policies/new/form",
        {"policy_id": "p", "rules": "Payments must be logged."},
    ),
    ("post", "/dashboard/policies/refunds/deactivate", {}),
    ("get", "/dashboard/policies/new", {}),
    ("get", "/dashboard/settings/users", {}),
    (
        "post",
        "/dashboard/settings/users",
        {"email": "x@acme.test", "password": "p" * 12, "role": "owner"},
    ),
]


@pytest.mark.parametrize("role", ["reviewer", "viewer"])
def test_only_owners_manage(agent, signed_in, role):
    agent.register_refund_policy()
    dash = signed_in(role)
    for method, url, data in OWNER_ACTIONS:
        response = dash.post(url, data) if method == "post" else dash.get(url)
        assert response.status_code == 403, (role, url)
        assert "Your role does not allow this action" in text_of(response)


def test_owners_reach_every_management_page(agent, signed_in):
    agent.register_refund_policy()
    owner = signed_in("owner")
    for url in ("/dashboard/policies/new", "/dashboard/settings/users"):
        assert owner.get(url).status_code == 200


def test_a_viewer_cannot_decide_a_review(agent, signed_in):
    agent.register_refund_policy()
    request_id = agent.pending_refund()
    viewer = signed_in("viewer")

    page = text_of(viewer.get(f"/dashboard/reviews/{request_id}"))
    assert "can read reviews but not decide" in page
    assert 'value="approve"' not in page

    response = viewer.post(
        f"/dashboard/reviews/{request_id}/decision", {"decision": "approve", "reason": "ok"}
    )
    assert response.status_code == 403
    assert agent.poll(request_id)["status"] == "pending_review"


def test_a_reviewer_decides_reviews_but_sees_no_management_controls(agent, signed_in):
    agent.register_refund_policy()
    request_id = agent.pending_refund()
    reviewer = signed_in("reviewer")
    assert 'value="approve"' in text_of(reviewer.get(f"/dashboard/reviews/{request_id}"))
    assert "Lock down…" not in text_of(reviewer.get("/dashboard/agents"))
    assert "Create key" not in text_of(reviewer.get("/dashboard/settings/api-keys"))
    response = reviewer.post(
        f"/dashboard/reviews/{request_id}/decision", {"decision": "approve", "reason": "fine"}
    )
    assert response.status_code == 302
    assert agent.poll(request_id)["status"] == "approved"


def test_pages_only_show_the_users_own_tenant(app, agent, signed_in, other_tenant):
    agent.register_refund_policy()
    request_id = agent.pending_refund()
    outsider = Agent(app, other_tenant, agent.run_jobs)
    outsider.register_refund_policy()
    foreign = outsider.pending_refund()

    owner = signed_in("owner")
    assert owner.get(f"/dashboard/reviews/{foreign}").status_code == 404
    assert foreign not in text_of(owner.get("/dashboard/reviews"))
    assert f"/dashboard/reviews/{request_id}" in text_of(owner.get("/dashboard/reviews"))
    response = owner.post(
        f"/dashboard/reviews/{foreign}/decision", {"decision": "approve", "reason": "x"}
    )
    assert response.status_code == 404
    assert outsider.poll(foreign)["status"] == "pending_review"
