"""The Drift page in Debian's chromium: a drifting agent is locked down and released, each with
a reason, from the page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.dashboard.test_dashboard_browser import (  # noqa: F401 - fixtures
    chromium,
    open_page,
    server,
    shoot,
    sign_in_with_keyboard,
)
from tests.dashboard.test_dashboard_drift import drifting_agent

pytestmark = pytest.mark.browser


def test_lock_and_release_a_drifting_agent_with_a_reason(
    chromium,  # noqa: F811
    server,  # noqa: F811
    app,
    tenant,
    agent,
    run_jobs,
    people,
):
    drifting_agent(app, tenant, agent, run_jobs)
    page = open_page(chromium, server)
    sign_in_with_keyboard(page, people["owner"])
    expect(page.locator("section", has_text="Drifting agents")).to_contain_text("agent-7")
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Drift").click()
    row = page.locator('tr[data-agent="agent-7"]')
    expect(row).to_contain_text("high")
    expect(row.locator("svg.sparkline polyline")).to_have_count(1)
    row.locator("details.signals summary").click()
    expect(row.locator("details.signals")).to_contain_text("payments.export")
    shoot(page, "drift")

    row.locator("summary", has_text="Lock down…").click()
    row.get_by_label("Reason").fill("exports at an unusual volume")
    row.get_by_role("button", name="Confirm lockdown of agent-7").click()
    expect(page.locator(".flash-success")).to_contain_text("agent-7 is locked down")
    expect(row).to_contain_text("exports at an unusual volume")
    denied = agent.ask("payments.refund", {"amount": 10, "currency": "EUR"})
    assert denied["reason_code"] == "agent_locked_down"

    row.locator("summary", has_text="Release…").click()
    release = row.get_by_role("button", name="Confirm release of agent-7")
    release.click()  # no reason yet: the browser refuses the empty required field
    expect(page.locator(".flash-success")).to_have_count(1)
    row.get_by_label("Reason").fill("owner confirmed the export job")
    release.click()
    expect(page.locator(".flash-success")).to_contain_text("agent-7 is released")
    expect(row).to_contain_text(re.compile(r"released .* by owner@acme\.test: owner confirmed"))
    page.context.close()
