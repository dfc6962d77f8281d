"""Scheduled reports: the periods each frequency reports on, the periodic job run by a real RQ
worker (once per period), and the report.ready email to a real SMTP server, which links to the
dashboard and never to a public page."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from rq import Queue

from tests.api.test_notifications_delivery import Inbox, free_port, smtp  # noqa: F401
from tests.api.test_reviews import review_app, review_judge, run_worker  # noqa: F401
from tests.conftest import make_tenant
from webapp.services.reports import due_period


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    "frequency, now, start, end",
    [
        ("weekly", "2026-11-23T10:00:00", "2026-11-16", "2026-11-23"),  # a Monday
        ("weekly", "2026-11-22T23:59:00", "2026-11-09", "2026-11-16"),  # a Sunday
        ("monthly", "2026-11-23T10:00:00", "2026-10-01", "2026-11-01"),
        ("monthly", "2026-01-01T00:00:00", "2025-12-01", "2026-01-01"),
        ("quarterly", "2026-11-23T10:00:00", "2026-07-01", "2026-10-01"),
        ("quarterly", "2026-02-10T10:00:00", "2025-10-01", "2026-01-01"),
    ],
)
def test_due_periods(frequency, now, start, end):
    assert due_period(frequency, _at(now)) == (_at(start), _at(end))


def test_the_schedule_makes_one_report_per_period_and_emails_the_dashboard_link(
    review_app,  # noqa: F811
    smtp,  # noqa: F811
):
    inbox, port = smtp
    app = review_app(
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_from="vault@bank.example",
        public_url="https://vault.example.test",
    )
    tenant = make_tenant(app, "Scheduled")
    client = app.test_client()
    quiet = make_tenant(app, "Not Scheduled")
    assert (
        client.put(
            "/report-settings",
            json={"enabled": True, "frequency": "monthly", "recipients": ["audit@bank.example"]},
            headers=tenant.headers,
        ).status_code
        == 200
    )

    from jobs.reports import run_report_schedules

    queue = Queue("default", connection=app.extensions["vault"].redis)
    queue.enqueue(run_report_schedules)
    run_worker(app)  # the tick, then the build it queued, then the email
    [report] = client.get("/reports", headers=tenant.headers).get_json()["reports"]
    assert report["status"] == "ready"
    start, end = due_period("monthly", datetime.now(UTC))
    assert (report["period_start"], report["period_end"]) == (
        start.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        end.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
    )
    assert client.get("/reports", headers=quiet.headers).get_json()["reports"] == []

    [mail] = inbox.messages
    assert mail["rcpt_tos"] == ["audit@bank.example"]
    message = mail["message"]
    assert "SOX 404 report ready" in message["Subject"]
    text = message.get_body(("plain",)).get_content()
    assert f"https://vault.example.test/dashboard/reports/{report['report_id']}" in text
    assert "/reports/shared/" not in mail["raw"].decode()
    html = message.get_body(("html",)).get_content()
    assert "Open it in the dashboard" in html

    # The next tick in the same period makes nothing new.
    queue.enqueue(run_report_schedules)
    run_worker(app)
    assert len(client.get("/reports", headers=tenant.headers).get_json()["reports"]) == 1
    assert len(inbox.messages) == 1


def test_the_cron_module_declares_the_schedule_tick():
    from rq import cron

    import jobs.cron  # noqa: F401 - importing registers the periodic jobs

    names = {data.get("name") for data in cron._job_data_registry}
    assert "report-schedules" in names
