"""The policy page's "Try it" panel in a real browser (Debian chromium through Playwright)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.dashboard.test_dashboard_browser import (  # noqa: F401 - fixtures
    chromium,
    open_page,
    server,
    shoot,
    sign_in_with_keyboard,
)

pytestmark = pytest.mark.browser


def test_try_it_judges_a_call_in_place_and_records_nothing(
    app,
    chromium,  # noqa: F811 - the fixture imported above
    server,  # noqa: F811 - the fixture imported above
    people,
    tenant,
    sql,
):
    body = {
        "policy_id": "datasets",
        "rules": ["The datasets raw-events and audit-trail must never be dropped."],
        "tools": ["drop_dataset"],
    }
    response = app.test_client().post("/register-policy", json=body, headers=tenant.headers)
    assert response.status_code == 201
    tables = ("clearance_requests", "ledger_events")
    before = {
        t: sql(f"SELECT COUNT(*) FROM {t} WHERE client_id = :c", c=tenant.client_id).scalar()
        for t in tables
    }
    page = open_page(chromium, server)
    sign_in_with_keyboard(page, people["viewer"])
    page.goto("/dashboard/policies/datasets")
    expect(page.get_by_role("heading", name="Try it")).to_be_visible()
    url = page.url

    tool = page.get_by_label("Tool name")
    arguments = page.get_by_label("Tool arguments (JSON object)")
    result = page.locator("#try-result")
    expect(tool).to_have_value("drop_dataset")

    arguments.fill('{"dataset": "audit-trail"}')
    page.get_by_role("button", name="Try", exact=True).click()
    expect(result).to_contain_text("Would be denied")
    expect(result).to_contain_text("rule_violated")
    expect(result).to_contain_text("must never be dropped")
    assert page.url == url  # answered in place, the page did not navigate
    shoot(page, "policy-try-denied")

    arguments.fill('{"dataset": "scratch"}')
    page.get_by_role("button", name="Try", exact=True).click()
    expect(result).to_contain_text("Would be approved")

    arguments.fill("[1, 2]")
    page.get_by_role("button", name="Try", exact=True).click()
    expect(result).to_contain_text("Tool arguments must be a JSON object.")

    for table in tables:
        count = sql(f"SELECT COUNT(*) FROM {table} WHERE client_id = :c", c=tenant.client_id)
        assert count.scalar() == before[table], table
