"""Settings → Webhooks: add an endpoint (secret shown once), see its state and delivery log,
delete it, enable a disabled one; CSRF on every form, escaping, and what each role may do."""

from __future__ import annotations

import re

from tests.dashboard.conftest import text_of

PUBLIC_URL = "https://8.8.8.8/hooks/ledgix"
PAGE = "/dashboard/settings/webhooks"


def _endpoints(app, tenant) -> list:
    from webapp.services import webhooks

    with app.app_context():
        return webhooks.list_endpoints(tenant.client_id)


def test_an_owner_adds_an_endpoint_and_sees_the_secret_once(app, tenant, signed_in):
    owner = signed_in("owner")
    page = owner.post(
        PAGE,
        {
            "url": PUBLIC_URL,
            "events": ["clearance.decided", "agent.locked"],
            "description": "<b>ops</b>",
        },
    )
    assert page.status_code == 200, text_of(page)
    html = text_of(page)
    secret = re.search(r'value="(whsec_[^"]+)"', html).group(1)
    assert "will not be shown again" in html
    assert "&lt;b&gt;ops&lt;/b&gt;" in html and "<b>ops</b>" not in html
    [endpoint] = _endpoints(app, tenant)
    assert endpoint.events == ["clearance.decided", "agent.locked"]
    assert secret not in endpoint.secret_sealed
    listing = text_of(owner.get(PAGE))
    assert PUBLIC_URL in listing and secret not in listing
    detail = owner.get(f"{PAGE}/{endpoint.webhook_id}")
    assert detail.status_code == 200 and "Nothing sent yet" in text_of(detail)

    deleted = owner.post(f"{PAGE}/{endpoint.webhook_id}/delete")
    assert deleted.status_code == 302
    assert _endpoints(app, tenant) == []


def test_bad_input_is_shown_on_the_form_and_stores_nothing(app, tenant, signed_in):
    owner = signed_in("owner")
    loopback = owner.post(PAGE, {"url": "https://127.0.0.1/x", "events": ["agent.locked"]})
    assert loopback.status_code == 422 and "is not allowed" in text_of(loopback)
    no_events = owner.post(PAGE, {"url": PUBLIC_URL})
    assert no_events.status_code == 422 and "choose at least one event" in text_of(no_events)
    unknown = owner.post(PAGE, {"url": PUBLIC_URL, "events": ["clearance.made"]})
    assert unknown.status_code == 422
    assert _endpoints(app, tenant) == []


def test_forms_need_the_csrf_token(app, tenant, signed_in):
    owner = signed_in("owner")
    response = owner.client.post(PAGE, data={"url": PUBLIC_URL, "events": ["agent.locked"]})
    assert response.status_code == 400 and "did not come from this dashboard" in text_of(response)
    assert _endpoints(app, tenant) == []


def test_a_disabled_endpoint_shows_why_and_an_owner_enables_it(app, tenant, signed_in):
    from webapp.extensions import db
    from webapp.services import webhooks

    with app.app_context():
        endpoint, _ = webhooks.create_endpoint(
            tenant.client_id, webhooks.NewEndpoint(PUBLIC_URL, ["report.ready"]), actor="test"
        )
        endpoint.enabled = False
        endpoint.consecutive_failures = 20
        endpoint.disabled_reason = "disabled after 20 failed deliveries in a row; last: HTTP 500"
        db.session.commit()
        webhook_id = endpoint.webhook_id
    owner = signed_in("owner")
    assert "20 failed deliveries in a row" in text_of(owner.get(PAGE))
    detail = text_of(owner.get(f"{PAGE}/{webhook_id}"))
    assert "Enable again" in detail
    assert owner.post(f"{PAGE}/{webhook_id}/enable").status_code == 302
    [endpoint] = _endpoints(app, tenant)
    assert endpoint.enabled and endpoint.consecutive_failures == 0


def test_viewers_read_but_change_nothing_and_other_tenants_are_404(
    app, tenant, other_tenant, signed_in
):
    from webapp.services import webhooks

    with app.app_context():
        mine, _ = webhooks.create_endpoint(
            tenant.client_id, webhooks.NewEndpoint(PUBLIC_URL, ["report.ready"]), actor="test"
        )
        theirs, _ = webhooks.create_endpoint(
            other_tenant.client_id, webhooks.NewEndpoint(PUBLIC_URL, ["report.ready"]), actor="test"
        )
    viewer = signed_in("viewer")
    page = text_of(viewer.get(PAGE))
    assert PUBLIC_URL in page and "Add endpoint" not in page and "Delete…" not in page
    assert viewer.post(PAGE, {"url": PUBLIC_URL, "events": ["agent.locked"]}).status_code == 403
    assert viewer.post(f"{PAGE}/{mine.webhook_id}/delete").status_code == 403
    assert len(_endpoints(app, tenant)) == 1
    owner = signed_in("owner")
    assert owner.get(f"{PAGE}/{theirs.webhook_id}").status_code == 404
    assert owner.post(f"{PAGE}/{theirs.webhook_id}/delete").status_code == 404
    assert len(_endpoints(app, other_tenant)) == 1
