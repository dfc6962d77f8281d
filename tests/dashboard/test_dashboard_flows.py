"""What people do in the dashboard, end to end through the services (Flask test client)."""

from __future__ import annotations

import json
import re

from tests.conftest import ADMIN_KEY
from tests.dashboard.conftest import text_of
from tests.fixtures.ingest.samples import make_pdf

# --- policies ------------------------------------------------------------------------------


def test_owner_writes_a_policy_sees_what_compiled_then_diffs_and_deactivates_it(agent, signed_in):
    owner = signed_in("owner")
    created = owner.post(
        "/dashboard/policies/new/form",
        {
            "policy_id": "payments",
            "description": "Outgoing payments",
            "rules": "Payments must not exceed $25,000.\nRefunds must be reasonable and in good faith.\nBe kind to vendors.",
            "tools": "payments.*",
        },
    )
    assert created.status_code == 302
    assert created.headers["Location"] == "/dashboard/policies/payments"

    page = text_of(owner.get("/dashboard/policies/payments"))
    assert "Payments must not exceed $25,000." in page
    assert "reading-understood" in page and "Deny when the amount is above 25,000 USD" in page
    assert "reading-informational" in page
    # No language model is configured here, so the rule the engine cannot check goes to review.
    assert re.search(
        r"good faith\.</td>\s*<td>\s*<span class=\"reading reading-text\">not understood: goes to review",
        page,
    )

    owner.post(
        "/dashboard/policies/new/form",
        {
            "policy_id": "payments",
            "description": "Outgoing payments",
            "rules": "Payments must not exceed $10,000.\nBe kind to vendors.",
            "tools": "payments.*",
        },
    )
    diff = text_of(owner.get("/dashboard/policies/payments/diff?from=1&to=2"))
    assert re.search(r'class="diff-removed">.*Payments must not exceed \$25,000\.', diff)
    assert re.search(r'class="diff-added">.*Payments must not exceed \$10,000\.', diff)
    assert re.search(r'class="diff-same">.*Be kind to vendors\.', diff)

    assert owner.post("/dashboard/policies/payments/deactivate").status_code == 302
    listing = agent.api.get("/policies/payments", headers=agent.tenant.headers).get_json()
    assert listing["active"] is False and len(listing["versions"]) == 2


def test_policy_form_errors_come_back_on_the_fields(signed_in):
    owner = signed_in("owner")
    response = owner.post(
        "/dashboard/policies/new/form", {"policy_id": "bad id!", "rules": "Must log."}
    )
    assert response.status_code == 422
    body = text_of(response)
    assert 'id="policy_id-error"' in body and "must match" in body
    assert 'aria-invalid="true"' in body


def test_pasted_text_indexes_and_its_progress_widget_stops_polling_when_done(
    app, agent, signed_in, run_jobs
):
    owner = signed_in("owner")
    text = (
        "# Refunds\n\nRefunds above €500 need manual review.\n\nRefunds must not exceed €5,000.\n"
    )
    submitted = owner.post(
        "/dashboard/policies/new/paste",
        {"policy_id": "refunds", "text": text, "tools": "payments.refund"},
    )
    assert submitted.status_code == 302
    progress_url = submitted.headers["Location"]
    assert progress_url.startswith("/dashboard/policies/refunds/indexing/")

    waiting = owner.get(progress_url, htmx=True)
    assert "<html" not in text_of(waiting)
    assert 'hx-trigger="every 1s"' in text_of(waiting)

    run_jobs()
    done = text_of(owner.get(progress_url, htmx=True))
    assert "hx-trigger" not in done, (
        "a finished widget renders without its trigger, so polling stops"
    )
    assert 'value="100"' in done and "Open the policy" in done
    assert (
        agent.ask("payments.refund", {"amount": 900, "currency": "EUR"})["status"]
        == "pending_review"
    )


def test_an_uploaded_pdf_indexes_and_a_bad_file_is_refused_on_its_field(agent, signed_in, run_jobs):
    from io import BytesIO

    owner = signed_in("owner")
    pdf = make_pdf(
        [
            ("h1", "Refund policy"),
            ("p", "Refunds above €500 need manual review."),
            ("p", "Refunds must not exceed €5,000."),
        ]
    )
    submitted = owner.post(
        "/dashboard/policies/new/upload",
        {
            "policy_id": "refunds",
            "tools": "payments.refund",
            "document": (BytesIO(pdf), "refunds.pdf", "application/pdf"),
        },
        content_type="multipart/form-data",
    )
    assert submitted.status_code == 302, text_of(submitted)
    run_jobs()
    assert "Indexed" in text_of(owner.get(submitted.headers["Location"]))
    detail = text_of(owner.get("/dashboard/policies/refunds"))
    assert "refunds.pdf" in detail and "Refunds above €500 need manual review." in detail

    refused = owner.post(
        "/dashboard/policies/new/upload",
        {
            "policy_id": "other",
            "document": (BytesIO(b"%PDF-1.7\n" + b"\x00junk" * 50), "x.pdf", "application/pdf"),
        },
        content_type="multipart/form-data",
    )
    assert refused.status_code == 422
    assert 'id="document-error"' in text_of(refused)


def test_a_wiki_import_of_an_internal_address_is_refused(signed_in):
    owner = signed_in("owner")
    response = owner.post(
        "/dashboard/policies/new/wiki", {"policy_id": "wiki", "url": "http://127.0.0.1:9/policies"}
    )
    assert response.status_code == 422
    assert 'id="url-error">the URL is not allowed: 127.0.0.0/8 is Loopback' in text_of(response)


def test_a_wiki_page_is_imported_through_the_guarded_fetch(
    workdir, database_url, redis_url, people, run_jobs, agent
):
    """With private addresses allowed (tests only), a loopback wiki server stands in for the wiki."""
    from pathlib import Path

    from tests.conftest import make_config
    from tests.dashboard.conftest import Dashboard
    from tests.helpers import LoopbackServer
    from webapp import create_app

    html = (
        Path(__file__).parents[1] / "fixtures" / "ingest" / "wiki_vendor_payments.html"
    ).read_bytes()
    wiki_app = create_app(make_config(workdir, database_url, redis_url, webhook_allow_private=True))
    owner = Dashboard(wiki_app.test_client())
    assert owner.sign_in(people["owner"]).status_code == 302
    with LoopbackServer(
        lambda *_: (200, {"Content-Type": "text/html; charset=utf-8"}, html)
    ) as wiki:
        submitted = owner.post(
            "/dashboard/policies/new/wiki",
            {"policy_id": "vendors", "url": f"{wiki.url}/wiki/vendors"},
        )
        assert submitted.status_code == 302, text_of(submitted)
        assert wiki.requests[0]["path"] == "/wiki/vendors"
    run_jobs()
    detail = text_of(owner.get("/dashboard/policies/vendors"))
    assert f"{wiki.url}/wiki/vendors" in detail and "reading-" in detail


# --- reviews -------------------------------------------------------------------------------


def test_approving_in_the_dashboard_lets_the_agents_next_poll_see_approved(agent, signed_in):
    agent.register_refund_policy()
    request_id = agent.pending_refund()
    reviewer = signed_in("reviewer")

    queue = text_of(reviewer.get("/dashboard/reviews", htmx=True))
    assert "<html" not in queue and f"/dashboard/reviews/{request_id}" in queue

    detail = text_of(reviewer.get(f"/dashboard/reviews/{request_id}"))
    assert "&#34;amount&#34;: 900" in detail  # readable JSON, escaped
    assert "<mark>Refunds above €500 need manual review.</mark>" in detail
    assert "threshold 80%" in detail

    response = reviewer.post(
        f"/dashboard/reviews/{request_id}/decision",
        {"decision": "approve", "reason": "customer is known"},
        htmx=True,
    )
    assert response.status_code == 200
    assert response.headers["HX-Trigger"] == "review-decided"
    assert "Approved payments.refund for agent-7." in text_of(response)

    polled = agent.poll(request_id)
    assert polled["status"] == "approved" and polled["token"]
    assert polled["reason_code"] == "approved_by_reviewer"
    assert f"/dashboard/reviews/{request_id}" not in text_of(
        reviewer.get("/dashboard/reviews", htmx=True)
    )


def test_denying_needs_a_reason(agent, signed_in):
    agent.register_refund_policy()
    request_id = agent.pending_refund()
    reviewer = signed_in("reviewer")
    missing = reviewer.post(
        f"/dashboard/reviews/{request_id}/decision", {"decision": "deny", "reason": " "}, htmx=True
    )
    assert missing.status_code == 422
    assert "say why the request is denied" in text_of(missing)
    assert agent.poll(request_id)["status"] == "pending_review"

    denied = reviewer.post(
        f"/dashboard/reviews/{request_id}/decision",
        {"decision": "deny", "reason": "unknown customer"},
    )
    assert denied.status_code == 302
    polled = agent.poll(request_id)
    assert polled["status"] == "denied" and polled["reason_code"] == "reviewer_denied"
    assert polled["reason"] == "unknown customer"


def test_losing_a_race_to_another_reviewer_is_said_politely(agent, signed_in, people):
    agent.register_refund_policy()
    request_id = agent.pending_refund()
    first, second = signed_in("owner"), signed_in("reviewer")
    second.get(f"/dashboard/reviews/{request_id}")  # both have the page open
    assert (
        first.post(f"/dashboard/reviews/{request_id}/decision", {"decision": "approve"}).status_code
        == 302
    )

    late = second.post(
        f"/dashboard/reviews/{request_id}/decision", {"decision": "deny", "reason": "no"}, htmx=True
    )
    assert late.status_code == 409
    assert f"Already approved by {people['owner']}; your decision was not applied." in text_of(late)
    assert agent.poll(request_id)["status"] == "approved"

    plain = second.post(
        f"/dashboard/reviews/{request_id}/decision", {"decision": "deny", "reason": "no"}
    )
    assert plain.status_code == 302
    assert "your decision was not applied" in text_of(second.get(plain.headers["Location"]))


# --- agents --------------------------------------------------------------------------------


def test_locking_an_agent_denies_its_next_request_and_releasing_restores_it(agent, signed_in):
    agent.register_refund_policy()
    agent.ask("payments.refund", {"amount": 10, "currency": "EUR"})
    owner = signed_in("owner")

    refused = owner.post("/dashboard/agents/lock", {"agent_id": "agent-7", "reason": ""})
    assert refused.status_code == 302
    assert agent.ask("payments.refund", {"amount": 10, "currency": "EUR"})["status"] == "approved"

    owner.post("/dashboard/agents/lock", {"agent_id": "agent-7", "reason": "odd refunds at night"})
    page = text_of(owner.get("/dashboard/agents"))
    assert "locked down" in page and "odd refunds at night" in page
    denied = agent.ask("payments.refund", {"amount": 10, "currency": "EUR"})
    assert denied["status"] == "denied" and denied["reason_code"] == "agent_locked_down"

    owner.post(
        "/dashboard/agents/release", {"agent_id": "agent-7", "reason": "checked with the team"}
    )
    assert agent.ask("payments.refund", {"amount": 10, "currency": "EUR"})["status"] == "approved"


# --- settings ------------------------------------------------------------------------------


def test_the_review_threshold_is_saved_and_checked(agent, signed_in):
    owner = signed_in("owner")
    page = text_of(owner.get("/dashboard/settings/review"))
    assert "0.80 — balanced" in page and "0.95 — strict" in page

    bad = owner.post(
        "/dashboard/settings/review",
        {"minimum_confidence_score": "1.5", "judge_failure_mode": "deny"},
    )
    assert bad.status_code == 422
    assert (
        owner.post(
            "/dashboard/settings/review",
            {"minimum_confidence_score": "0.95", "judge_failure_mode": "review"},
        ).status_code
        == 302
    )
    stored = agent.api.get("/review-settings", headers=agent.tenant.headers).get_json()
    assert stored["minimum_confidence_score"] == 0.95 and stored["judge_failure_mode"] == "review"


def test_notification_settings_are_saved_and_a_test_is_sent(app, signed_in, run_jobs):
    owner = signed_in("owner")
    nothing = owner.post("/dashboard/settings/notifications/test")
    assert "No test sent" in text_of(owner.get(nothing.headers["Location"]))

    bad = owner.post(
        "/dashboard/settings/notifications",
        {"email_enabled": "y", "email_recipients": "not-an-address"},
    )
    assert bad.status_code == 422 and "not a valid email address" in text_of(bad)
    saved = owner.post(
        "/dashboard/settings/notifications",
        {
            "email_enabled": "y",
            "email_recipients": "risk@acme.test, ops@acme.test",
            "sensitive_args": "iban",
        },
    )
    assert saved.status_code == 302
    page = text_of(owner.get("/dashboard/settings/notifications"))
    assert "risk@acme.test, ops@acme.test" in page and "iban</textarea>" in page

    sent = owner.post("/dashboard/settings/notifications/test")
    assert "A test message is on its way (email)" in text_of(owner.get(sent.headers["Location"]))
    assert '<td data-label="Event">test</td>' in text_of(
        owner.get("/dashboard/settings/notifications")
    )


def test_a_new_api_key_is_shown_once_works_and_revoking_it_refuses_it(agent, signed_in):
    owner = signed_in("owner")
    created = text_of(
        owner.post(
            "/dashboard/settings/api-keys", {"label": "ci runner", "scopes": ["manage"]}, htmx=True
        )
    )
    assert "<html" not in created
    raw = re.search(r'id="new-key-value"[^>]* value="(vk_[^"]+)"', created).group(1)
    assert agent.api.get("/review-settings", headers={"X-Vault-API-Key": raw}).status_code == 200

    listing = text_of(owner.get("/dashboard/settings/api-keys"))
    assert raw not in listing and raw[:11] in listing and "ci runner" in listing

    ci_row = next(row for row in listing.split("<tr>") if "ci runner" in row)
    key_id = re.search(r"/dashboard/settings/api-keys/(key_[0-9a-f]+)/revoke", ci_row).group(1)
    revoked = owner.post(f"/dashboard/settings/api-keys/{key_id}/revoke")
    assert revoked.status_code == 302
    assert agent.api.get("/review-settings", headers={"X-Vault-API-Key": raw}).status_code == 401
    assert "revoked" in text_of(owner.get("/dashboard/settings/api-keys"))


def test_owners_add_users_change_roles_and_disable_them(app, dashboard, signed_in, people):
    from webapp.extensions import db
    from webapp.models import User

    owner = signed_in("owner")
    weak = owner.post(
        "/dashboard/settings/users",
        {"email": "new@acme.test", "password": "short", "role": "viewer"},
    )
    assert weak.status_code == 422
    added = owner.post(
        "/dashboard/settings/users",
        {"email": "new@acme.test", "password": "a long enough password", "role": "viewer"},
    )
    assert added.status_code == 302
    assert dashboard.sign_in("new@acme.test", "a long enough password").status_code == 302

    with app.app_context():
        user_id = db.session.query(User).filter_by(email="new@acme.test").one().user_id
        owner_id = db.session.query(User).filter_by(email=people["owner"]).one().user_id
    owner.post(f"/dashboard/settings/users/{user_id}/role", {f"u-{user_id}-role": "reviewer"})
    assert "reviewer" in text_of(dashboard.get("/dashboard/"))

    demote_self = owner.post(
        f"/dashboard/settings/users/{owner_id}/role", {f"u-{owner_id}-role": "viewer"}
    )
    assert "You cannot change your own role" in text_of(owner.get(demote_self.headers["Location"]))

    owner.post(f"/dashboard/settings/users/{user_id}/disable")
    assert dashboard.get("/dashboard/").status_code == 303


# --- ledger and overview -------------------------------------------------------------------


def _seal(agent) -> list:  # noqa: ANN001
    response = agent.api.post(
        "/admin/ledger/seal",
        json={"client_id": agent.tenant.client_id},
        headers={"X-Admin-API-Key": ADMIN_KEY},
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()["checkpoints"]


def test_ledger_search_event_proof_and_verification(agent, signed_in):
    agent.register_refund_policy()
    approved = agent.ask("payments.refund", {"amount": 100, "currency": "EUR"})
    denied = agent.ask("payments.refund", {"amount": 9000, "currency": "EUR"}, agent_id="agent-9")
    viewer = signed_in("viewer")

    only_denied = text_of(viewer.get("/dashboard/ledger?outcome=denied"))
    assert "agent-9" in only_denied and "agent-7" not in only_denied
    by_request = text_of(viewer.get(f"/dashboard/ledger?request_id={approved['request_id']}"))
    assert "agent-7" in by_request and "agent-9" not in by_request
    by_date = text_of(viewer.get("/dashboard/ledger?since=2000-01-01&until=2000-01-02"))
    assert "No events match." in by_date

    event_uuid = re.search(r"/dashboard/ledger/events/([0-9a-f-]{36})", by_request).group(1)
    unsealed = text_of(viewer.get(f"/dashboard/ledger/events/{event_uuid}"))
    assert "Not sealed yet" in unsealed

    assert _seal(agent)
    sealed = text_of(viewer.get(f"/dashboard/ledger/events/{event_uuid}"))
    assert "Verified on the server: all" in sealed and "checks pass" in sealed
    bundle = viewer.get(f"/dashboard/ledger/events/{event_uuid}/proof-bundle.json")
    assert bundle.headers["Content-Disposition"].startswith("attachment;")
    assert json.loads(bundle.data)["event"]["request_id"] == approved["request_id"]

    checkpoints = text_of(viewer.get("/dashboard/ledger/checkpoints"))
    assert '<td data-label="#">1</td>' in checkpoints
    verified = viewer.post("/dashboard/ledger/verification")
    assert verified.status_code == 200 and "Intact:" in text_of(verified)
    assert denied["status"] == "denied"


def test_the_overview_counts_reviews_decisions_lockdowns_and_the_ledger(agent, signed_in):
    agent.register_refund_policy()
    agent.pending_refund()
    agent.ask("payments.refund", {"amount": 100, "currency": "EUR"})
    agent.ask("payments.refund", {"amount": 9000, "currency": "EUR"})
    owner = signed_in("owner")
    owner.post("/dashboard/agents/lock", {"agent_id": "agent-13", "reason": "stolen key"})
    _seal(agent)

    panels = text_of(owner.get("/dashboard/", htmx=True))
    assert "<html" not in panels
    assert re.search(r'class="big"><a [^>]*>1</a>', panels)
    counts = dict(
        re.findall(
            r"<span>([^<]+)</span>\s*<svg.*?</svg>\s*<span class=\"count\">(\d+)</span>",
            panels,
            re.S,
        )
    )
    assert counts == {
        "Approved by policy": "1",
        "Approved by a reviewer": "0",
        "Denied by policy": "1",
        "Denied by a reviewer": "0",
        "Denied by the system": "0",
    }
    assert "agent-13" in panels and "stolen key" in panels
    assert "#1 ·" in panels


def test_a_new_users_address_is_checked_by_the_form_and_stored_in_lower_case(
    app, dashboard, signed_in, people
):
    from webapp.extensions import db
    from webapp.models import User

    owner = signed_in("owner")
    bad = owner.post(
        "/dashboard/settings/users",
        {"email": "not-an-address", "password": "a long enough password", "role": "viewer"},
    )
    assert bad.status_code == 422 and "must be an email address" in bad.get_data(as_text=True)
    added = owner.post(
        "/dashboard/settings/users",
        {
            "email": "  New.Person@Acme.test ",
            "password": "a long enough password",
            "role": "viewer",
        },
    )
    assert added.status_code == 302
    with app.app_context():
        assert db.session.query(User).filter_by(email="new.person@acme.test").count() == 1
