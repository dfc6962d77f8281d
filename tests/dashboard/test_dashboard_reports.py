"""The Reports page without a browser: roles, CSRF, the self-polling list, the settings form,
share and revoke, and another tenant's report."""

from __future__ import annotations

from tests.conftest import make_tenant
from tests.dashboard.conftest import text_of


def _ready_report(dash, run_jobs) -> str:
    response = dash.post(
        "/dashboard/reports",
        {"period_start": "2026-01-01", "period_end": "2026-01-31", "formats": "json"},
    )
    assert response.status_code == 302
    listed = dash.get("/dashboard/reports", htmx=True)
    body = text_of(listed)
    assert 'hx-trigger="every 2s"' in body and 'data-status="queued"' in body
    run_jobs()
    body = text_of(dash.get("/dashboard/reports", htmx=True))
    assert 'data-status="ready"' in body and "hx-trigger" not in body
    return body.split('data-report="')[1].split('"')[0]


def test_owner_generates_shares_and_revokes(signed_in, run_jobs, tenant, app):
    owner = signed_in("owner")
    report_id = _ready_report(owner, run_jobs)
    download = owner.get(f"/dashboard/reports/{report_id}/artifacts/json")
    assert download.status_code == 200 and download.mimetype == "application/json"
    assert owner.get(f"/dashboard/reports/{report_id}/artifacts/pdf").status_code == 404

    shared = owner.post(f"/dashboard/reports/{report_id}/share", {"expires_in_seconds": "86400"})
    assert shared.status_code == 200
    page = text_of(shared)
    url = page.split('id="share-url" type="text" readonly value="')[1].split('"')[0]
    token = url.rsplit("/", 1)[1]
    assert app.test_client().get(f"/reports/shared/{token}").status_code == 200
    token_id = page.split('data-token-id="')[1].split('"')[0]
    assert token not in text_of(owner.get(f"/dashboard/reports/{report_id}"))

    bad = owner.post(f"/dashboard/reports/{report_id}/share", {"expires_in_seconds": "5"})
    assert bad.status_code == 422

    revoked = owner.post(f"/dashboard/reports/{report_id}/share/{token_id}/revoke")
    assert revoked.status_code == 302
    assert app.test_client().get(f"/reports/shared/{token}").status_code == 404
    assert "No active link." in text_of(owner.get(f"/dashboard/reports/{report_id}"))


def test_bad_period_and_settings_form(signed_in):
    owner = signed_in("owner")
    response = owner.post(
        "/dashboard/reports",
        {"period_start": "2026-02-10", "period_end": "2026-01-01", "formats": "pdf+json"},
        follow_redirects=True,
    )
    assert "No report was generated" in text_of(response)
    saved = owner.post(
        "/dashboard/reports/settings",
        {
            "enabled": "y",
            "frequency": "quarterly",
            "formats": "pdf",
            "recipients": "a@example.com, b@example.com",
        },
    )
    assert saved.status_code == 302
    assert "A quarterly report (PDF)" in text_of(owner.get("/dashboard/reports"))
    refused = owner.post(
        "/dashboard/reports/settings",
        {"frequency": "weekly", "formats": "pdf", "recipients": "not-an-address"},
    )
    assert refused.status_code == 422 and "not a valid email address" in text_of(refused)


def test_viewers_read_but_do_not_generate_or_share(signed_in, run_jobs):
    owner = signed_in("owner")
    report_id = _ready_report(owner, run_jobs)
    viewer = signed_in("viewer")
    assert viewer.get("/dashboard/reports").status_code == 200
    assert viewer.get(f"/dashboard/reports/{report_id}/artifacts/json").status_code == 200
    assert (
        viewer.post(
            "/dashboard/reports", {"period_start": "2026-01-01", "period_end": "2026-01-02"}
        ).status_code
        == 403
    )
    assert (
        viewer.post(
            f"/dashboard/reports/{report_id}/share", {"expires_in_seconds": "86400"}
        ).status_code
        == 403
    )
    assert viewer.post("/dashboard/reports/settings", {"frequency": "weekly"}).status_code == 403


def test_csrf_and_other_tenants(signed_in, run_jobs, app):
    owner = signed_in("owner")
    report_id = _ready_report(owner, run_jobs)
    no_token = owner.client.post(
        f"/dashboard/reports/{report_id}/share", data={"expires_in_seconds": "86400"}
    )
    assert no_token.status_code in (400, 403)

    from webapp.services import tenants

    other = make_tenant(app, "Other Bank")
    with app.app_context():
        tenants.create_user(
            other.client_id, "owner@other.test", "correct horse battery staple", "owner"
        )
    from tests.dashboard.conftest import Dashboard

    stranger = Dashboard(app.test_client())
    assert stranger.sign_in("owner@other.test").status_code == 302
    assert stranger.get(f"/dashboard/reports/{report_id}").status_code == 404
    assert stranger.get(f"/dashboard/reports/{report_id}/artifacts/json").status_code == 404
    assert (
        stranger.post(
            f"/dashboard/reports/{report_id}/share", {"expires_in_seconds": "86400"}
        ).status_code
        == 404
    )
