"""The review queue in a real browser (Debian chromium + Playwright): filters, bulk decisions
with their confirmation, the keyboard, and the status badge that follows a decision."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.dashboard.test_dashboard_browser import (  # noqa: F401 - fixtures used by name
    chromium,
    open_page,
    server,
    shoot,
    sign_in_with_keyboard,
)

pytestmark = pytest.mark.browser


def test_filters_narrow_the_queue_and_bad_values_show_a_message(chromium, server, agent, people):  # noqa: F811
    agent.register_refund_policy()
    small = agent.pending_refund(amount=600)
    large = agent.pending_refund(amount=2500)
    other = agent.ask(
        "payments.refund",
        {"amount": 950, "currency": "EUR"},
        agent_id="treasury-reconciliation_pay_invoice-bot",
    )
    assert other["status"] == "pending_review"
    page = open_page(chromium, server)
    sign_in_with_keyboard(page, people["reviewer"])
    page.goto("/dashboard/reviews")
    rows = page.locator("#queue tr[data-request]")
    expect(rows).to_have_count(3)
    expect(rows.first).to_have_attribute("data-request", small)  # oldest first

    page.get_by_label("Amount from").fill("1000")
    page.get_by_role("button", name="Filter").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-request", large)

    page.get_by_label("Amount from").fill("")
    page.get_by_label("Agent").fill("treasury-reconciliation_pay_invoice-bot")
    page.get_by_role("button", name="Filter").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-request", other["request_id"])
    # The agent's name reads whole: one line, not broken inside the word.
    cell = rows.first.locator('td[data-label="Agent"]')
    lines = cell.evaluate(
        "el => { const r = document.createRange(); r.selectNodeContents(el); "
        "return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; }"
    )
    assert lines == 1
    shoot(page, "reviews-filtered")

    page.get_by_label("Agent").fill("")
    page.get_by_label("Waiting at least (min)").fill("soon")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("#filter-problems")).to_contain_text(
        "Waiting at least: must be a whole number of minutes"
    )
    expect(page.get_by_label("Waiting at least (min)")).to_have_value("soon")
    expect(rows).to_have_count(0)
    shoot(page, "reviews-bad-filter")
    page.context.close()


def test_bulk_approval_with_the_keyboard_and_a_confirmation(chromium, server, agent, people):  # noqa: F811
    agent.register_refund_policy()
    first = agent.pending_refund(amount=700)
    second = agent.pending_refund(amount=800)
    third = agent.pending_refund(amount=900)
    page = open_page(chromium, server)
    sign_in_with_keyboard(page, people["reviewer"])
    page.goto("/dashboard/reviews")
    page.wait_for_load_state()  # the shortcut script is deferred
    expect(page.locator("#queue-total")).to_have_text("3")

    page.keyboard.press("j")  # the first (oldest) request
    expect(page.locator(f'tr[data-request="{first}"]')).to_have_class(re.compile("current"))
    page.keyboard.press("x")
    page.keyboard.press("j")
    page.keyboard.press("j")
    expect(page.locator(f'tr[data-request="{third}"]')).to_have_class(re.compile("current"))
    page.keyboard.press("x")
    page.keyboard.press("a")  # approve the selection: the reason field takes the cursor
    expect(page.locator("#bulk-reason")).to_be_focused()
    expect(page.locator("#bulk-decision")).to_have_value("approve")
    page.keyboard.type("quarter-end refunds, checked")
    page.keyboard.press("Enter")

    expect(page.get_by_role("heading", name="Approve 2 requests?")).to_be_visible()
    listed = page.locator("#bulk-list tbody tr")
    expect(listed).to_have_count(2)
    expect(page.locator("#bulk-list")).to_contain_text("700 EUR")
    expect(page.locator("#bulk-list")).to_contain_text("900 EUR")
    expect(page.locator("#bulk-list")).not_to_contain_text("800 EUR")
    shoot(page, "reviews-bulk-confirm")
    assert agent.poll(first)["status"] == "pending_review"  # nothing decided before confirming
    expect(page.locator("#bulk-confirm")).to_be_focused()
    page.keyboard.press("Enter")

    expect(page.locator("#bulk-summary")).to_contain_text("2 decided")
    shoot(page, "reviews-bulk-done")
    assert [agent.poll(r)["status"] for r in (first, second, third)] == [
        "approved",
        "pending_review",
        "approved",
    ]
    expect(page.locator("#pending-count")).to_have_text("1")
    page.context.close()


def test_bulk_without_a_reason_is_refused_in_the_page(chromium, server, agent, people):  # noqa: F811
    agent.register_refund_policy()
    rid = agent.pending_refund(amount=700)
    page = open_page(chromium, server)
    sign_in_with_keyboard(page, people["reviewer"])
    page.goto("/dashboard/reviews")
    page.locator(f"#sel-{rid}").check()
    page.locator("#bulk-decision").select_option("deny")
    page.locator("#bulk-review").click()
    expect(page.locator("#bulk-problems")).to_contain_text("say why")
    assert agent.poll(rid)["status"] == "pending_review"
    page.context.close()


def test_the_status_badge_and_count_follow_a_decision_without_a_reload(
    chromium,  # noqa: F811
    server,  # noqa: F811
    agent,
    people,
):
    agent.register_refund_policy()
    rid = agent.pending_refund(amount=900)
    page = open_page(chromium, server)
    sign_in_with_keyboard(page, people["reviewer"])
    page.goto(f"/dashboard/reviews/{rid}")
    page.wait_for_load_state()
    badge = page.locator("#request-status")
    expect(badge).to_have_text("pending review")
    expect(page.locator("#pending-count")).to_have_text("1")
    page.get_by_label("Reason").fill("checked with the customer")
    navigations = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url))
    page.get_by_role("button", name=re.compile("^Approve")).click()
    expect(page.locator("#decision")).to_contain_text("Approved payments.refund")
    expect(badge).to_have_text("approved")
    expect(page.locator("#pending-count")).to_have_text("0")
    assert navigations == []  # no reload
    shoot(page, "review-badge-after-approval")
    page.context.close()


def test_the_queue_pages_oldest_first_and_a_selection_spans_pages(chromium, server, agent, people):  # noqa: F811
    agent.register_refund_policy()
    waiting = [agent.pending_refund(amount=600 + n) for n in range(52)]  # a page is 50
    page = open_page(chromium, server)
    sign_in_with_keyboard(page, people["reviewer"])
    page.goto("/dashboard/reviews")
    page.wait_for_load_state()
    rows = page.locator("#queue tr[data-request]")
    expect(rows).to_have_count(50)
    expect(rows.first).to_have_attribute("data-request", waiting[0])  # the oldest leads
    expect(page.locator("#queue-status")).to_contain_text("1–50 of 52 waiting")
    page.locator(f"#sel-{waiting[0]}").check()
    expect(page.locator("#bulk-selected")).to_contain_text("1 selected")

    page.locator("#queue-next").click()
    expect(rows).to_have_count(2)
    expect(rows.first).to_have_attribute("data-request", waiting[50])
    expect(page.locator("#queue-status")).to_contain_text("51–52 of 52 waiting")
    # The live poll stays on this page: it asks for the rows after the first page's last.
    assert "after=" in page.locator("#queue").get_attribute("hx-get")
    expect(page.locator("#bulk-selected")).to_contain_text("1 selected (1 on other pages)")
    page.locator("#select-page").check()  # both rows of this page
    expect(page.locator("#bulk-selected")).to_contain_text("3 selected (1 on other pages)")
    page.locator(f"#sel-{waiting[51]}").uncheck()
    expect(page.locator("#bulk-selected")).to_contain_text("2 selected (1 on other pages)")
    shoot(page, "reviews-second-page")

    page.locator("#bulk-decision").select_option("deny")
    page.locator("#bulk-reason").fill("duplicate refunds")
    page.locator("#bulk-review").click()
    expect(page.get_by_role("heading", name="Deny 2 requests?")).to_be_visible()
    expect(page.locator("#bulk-list")).to_contain_text("600 EUR")
    expect(page.locator("#bulk-list")).to_contain_text("650 EUR")
    page.locator("#bulk-confirm").click()
    expect(page.locator("#bulk-summary")).to_contain_text("2 decided")
    assert [agent.poll(r)["status"] for r in (waiting[0], waiting[50], waiting[51])] == [
        "denied",
        "denied",
        "pending_review",
    ]
    expect(page.locator("#pending-count")).to_have_text("50")
    # A finished bulk decision ends the selection it was made from.
    page.goto("/dashboard/reviews")
    page.wait_for_load_state()
    expect(rows).to_have_count(50)
    expect(page.locator("#bulk-selected")).to_be_hidden()
    expect(page.locator("#queue-status")).to_contain_text("1–50 of 50 waiting")
    expect(page.locator("#queue-next")).to_have_count(0)
    page.context.close()
