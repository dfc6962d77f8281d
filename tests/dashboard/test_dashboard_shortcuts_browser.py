"""Every section's "g then <key>" shortcut, as the shortcut help lists it, goes to that section.

Debian's chromium driven by Playwright against the test app on a real loopback server. The test
reads the pairs from the help panel a user opens with "?", so the help and the behaviour cannot
drift apart; it also checks that no two sections share a key (Reviews and Reports once did).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.dashboard.test_dashboard_browser import (  # noqa: F401 - fixtures
    chromium,
    open_page,
    server,
    sign_in_with_keyboard,
)

pytestmark = pytest.mark.browser

SECTIONS = {
    "Overview": "dashboard.overview.index",
    "Reviews": "dashboard.reviews.queue",
    "Policies": "dashboard.policies.index",
    "Ledger": "dashboard.ledger.search",
    "Agents": "dashboard.agents.index",
    "Drift": "dashboard.drift.index",
    "Reports": "dashboard.reports.index",
    "Settings": "dashboard.settings.index",
}


def test_each_section_shortcut_in_the_help_goes_to_that_section(app, chromium, server, people):  # noqa: F811
    from flask import url_for

    with app.test_request_context():
        paths = {label: url_for(endpoint) for label, endpoint in SECTIONS.items()}

    page = open_page(chromium, server)
    sign_in_with_keyboard(page, people["owner"])
    page.wait_for_load_state()  # the shortcut script is deferred: wait until it has run

    page.keyboard.press("?")
    panel = page.locator("#shortcuts")
    expect(panel).to_be_visible()
    pairs = {}
    for term, meaning in zip(
        panel.locator("dt").all_inner_texts(), panel.locator("dd").all_inner_texts(), strict=True
    ):
        keys = re.fullmatch(r"g then (\w)", term.strip())
        if keys:
            label = re.fullmatch(r"go to (\w+)", meaning.strip()).group(1)
            pairs[label] = keys.group(1)
    assert set(pairs) == set(SECTIONS), pairs
    assert len(set(pairs.values())) == len(pairs), f"two sections share a key: {pairs}"
    page.keyboard.press("?")
    expect(panel).to_be_hidden()

    for label, key in pairs.items():
        # Start from a page that is not the target, so arriving proves the shortcut worked.
        start = paths["Settings"] if label == "Overview" else paths["Overview"]
        page.goto(start)
        page.wait_for_load_state()
        page.keyboard.press("g")
        page.keyboard.press(key)
        current = page.locator('nav[aria-label="Sections"] a[aria-current="page"]')
        expect(current).to_have_text(label)  # waits for the navigation
        expect(current).to_have_attribute("aria-keyshortcuts", f"g {key}")
        # The section's page, or where it sends you (Settings opens its first tab).
        assert page.url.startswith(server + paths[label]), (label, page.url)
