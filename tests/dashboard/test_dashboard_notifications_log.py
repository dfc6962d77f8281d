"""Notification settings in the dashboard: the SMTP warning, grouped failures, a paged log."""

from __future__ import annotations

import re
from datetime import timedelta

from tests.dashboard.conftest import text_of


def add_deliveries(app, client_id: str, specs: list[tuple[str, str]]) -> None:  # noqa: ANN001
    """Delivery rows, oldest first, one second apart: (status, last_error) each."""
    from webapp.extensions import db
    from webapp.models import NotificationDelivery, new_id, utcnow

    start = utcnow() - timedelta(hours=1)
    with app.app_context():
        for n, (status, error) in enumerate(specs):
            at = start + timedelta(seconds=n)
            db.session.add(
                NotificationDelivery(
                    delivery_id=new_id("dlv"),
                    client_id=client_id,
                    request_id="",
                    event="test",
                    channel="email",
                    target="risk@acme.test",
                    recipients=["risk@acme.test"],
                    status=status,
                    attempts=1,
                    max_attempts=1,
                    attempt_log=[],
                    last_error=error,
                    created_at=at,
                    updated_at=at,
                )
            )
        db.session.commit()


def test_switching_email_on_without_smtp_warns_at_save_and_on_the_page(signed_in):
    owner = signed_in("owner")
    saved = owner.post(
        "/dashboard/settings/notifications",
        {"email_enabled": "y", "email_recipients": "risk@acme.test"},
    )
    assert saved.status_code == 302
    page = text_of(owner.get(saved.headers["Location"]))
    assert "Warning: email is on but no SMTP server is configured" in page
    assert 'id="smtp-warning"' in page and "every message will fail" in page
    sent = owner.post("/dashboard/settings/notifications/test")
    assert "The email test will fail" in text_of(owner.get(sent.headers["Location"]))


def test_repeated_failures_are_grouped_and_the_log_is_paged(app, tenant, signed_in):
    specs = [("delivered", "")] * 5 + [("failed", "connection refused")] * 12
    specs += [("failed", "timed out")] + [("delivered", "")] * 23
    add_deliveries(app, tenant.client_id, specs)
    owner = signed_in("owner")
    page = text_of(owner.get("/dashboard/settings/notifications"))
    log = page[page.index('id="delivery-log"') :]
    rows = re.findall(r"<tr(?: class=\"grouped\")?>\s*<td data-label=\"When\">", log)
    # A page is 25 entries, newest first: 23 delivered, 1 timed out, and the 12 refused as one
    # entry, whole, although paging by rows would have cut it after its first row.
    assert len(rows) == 25
    assert "12 × test" in log and "12 in a row" in log and "connection refused" in log
    assert log.count("timed out") == 1  # another error is its own entry
    older = re.search(r'<a href="([^"]+)#delivery-log" rel="next">Older deliveries</a>', log)
    assert older
    second = text_of(owner.get(older.group(1).replace("&amp;", "&")))
    second_log = second[second.index('id="delivery-log"') :]
    assert len(re.findall(r'<td data-label="When">', second_log)) == 5  # the oldest delivered
    assert "connection refused" not in second_log
    assert "Older deliveries" not in second_log and ">Newest</a>" in second_log


def test_a_bad_log_cursor_shows_the_newest_with_a_message(app, tenant, signed_in):
    add_deliveries(app, tenant.client_id, [("delivered", "")] * 3)
    owner = signed_in("owner")
    for bad in ("nonsense", "2026-01-01T00:00:00.000000Z|", "x|y", "x" * 300):
        response = owner.get(f"/dashboard/settings/notifications?before={bad}")
        assert response.status_code == 200
        page = text_of(response)
        assert "That page of the delivery log does not exist" in page
        assert len(re.findall(r'<td data-label="When">', page)) == 3
