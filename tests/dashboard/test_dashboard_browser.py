"""The dashboard in a real browser: Debian's chromium driven by Playwright against a real server.

The server is werkzeug's, on 127.0.0.1 with a free port, serving the test app; RQ jobs run in
the test with a burst SimpleWorker when the flow needs them. Screenshots of every page, at a
laptop's and a phone's width, go to artifacts/screenshots/.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright
from werkzeug.serving import make_server

from tests.dashboard.conftest import PASSWORD
from tests.fixtures.ingest.samples import make_pdf

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def server(app) -> Iterator[str]:
    """The test app on a real HTTP server in a thread; yields its base URL."""
    http = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{http.server_port}"
    http.shutdown()
    thread.join(10)


def open_page(chromium: Browser, server: str, viewport: dict = LAPTOP) -> Page:
    context = chromium.new_context(base_url=server, viewport=viewport)
    context.set_default_timeout(10_000)
    return context.new_page()


def sign_in_with_keyboard(page: Page, email: str) -> None:
    """Sign in as a person would: the email field has focus, Tab to the password, Enter."""
    page.goto("/dashboard/sign-in")
    expect(page.locator("#email")).to_be_focused()
    page.keyboard.type(email)
    page.keyboard.press("Tab")
    expect(page.locator("#password")).to_be_focused()
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()


def shoot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"]
    page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)


def test_an_owner_uploads_a_policy_approves_denies_locks_and_manages_keys(
    chromium, server, agent, people, run_jobs, tenant
):
    page = open_page(chromium, server)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)

    # 1. Sign in.
    sign_in_with_keyboard(page, people["owner"])

    # 2. Upload a PDF policy and watch it index.
    pdf = make_pdf(
        [
            ("h1", "Refund policy"),
            ("p", "Refunds above €500 need manual review."),
            ("p", "Refunds must not exceed €5,000."),
        ]
    )
    page.goto("/dashboard/policies/new?via=upload")
    page.get_by_label("Policy id").fill("refunds")
    page.get_by_label("Policy document").set_input_files(
        files=[{"name": "refunds.pdf", "mimeType": "application/pdf", "buffer": pdf}]
    )
    page.get_by_label("Tool globs, one per line").fill("payments.refund")
    page.get_by_role("button", name="Upload and index").click()
    expect(page.get_by_role("heading", name="Indexing refunds")).to_be_visible()
    expect(page.locator(".progress-widget")).to_have_attribute(
        "data-status", re.compile("queued|running")
    )
    shoot(page, "policy-indexing")
    run_jobs()  # the worker indexes; the widget polls itself and stops when done
    expect(page.locator(".progress-widget label")).to_have_text("Indexed")
    expect(page.locator(".progress-widget")).not_to_have_attribute("hx-trigger", re.compile(".*"))
    shoot(page, "policy-indexed")
    page.get_by_role("link", name="Open the policy").click()
    expect(page.locator("table.rules")).to_contain_text("Refunds above €500 need manual review.")

    # 3. A pending review from the API, approved in the browser with the keyboard.
    first = agent.pending_refund(amount=900)
    page.goto("/dashboard/reviews")
    row_link = page.locator(f'a[href="/dashboard/reviews/{first}"]')
    row_link.focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/dashboard/reviews/{first}")
    page.wait_for_load_state()  # the shortcut script is deferred: wait until it has run
    expect(page.locator("mark")).to_have_text("Refunds above €500 need manual review.")
    page.keyboard.press("r")  # the reason field
    expect(page.get_by_label("Reason")).to_be_focused()
    page.keyboard.type("customer verified by phone")
    page.keyboard.press("Tab")  # leave the field; shortcuts do not fire while typing
    page.keyboard.press("a")
    expect(page.locator("#decision")).to_contain_text("Approved payments.refund for agent-7.")
    shoot(page, "review-approved")
    polled = agent.poll(first)
    assert polled["status"] == "approved" and polled["token"]

    # 4. Deny another. A second tab keeps the queue open: it updates itself (every 5 s), so
    # a new request appears and the denied one leaves without a reload.
    second = agent.pending_refund(amount=1200)
    queue = page.context.new_page()
    queue.goto("/dashboard/reviews")
    expect(queue.locator(f'a[href="/dashboard/reviews/{second}"]')).to_be_visible()
    third = agent.pending_refund(amount=1300)
    page.goto(f"/dashboard/reviews/{second}")
    page.get_by_role("button", name=re.compile("^Deny")).click()  # no reason yet
    expect(page.locator("#reason-error")).to_have_text("say why the request is denied")
    shoot(page, "review-deny-needs-reason")
    page.get_by_label("Reason").fill("amount is unusual for this customer")
    page.get_by_role("button", name=re.compile("^Deny")).click()
    expect(page.locator("#decision")).to_contain_text("Denied payments.refund for agent-7.")
    assert agent.poll(second)["reason_code"] == "reviewer_denied"
    expect(queue.locator(f'a[href="/dashboard/reviews/{third}"]')).to_be_visible(timeout=12_000)
    # The poll that showed the third may have run just before the denial: allow one more.
    expect(queue.locator(f'a[href="/dashboard/reviews/{second}"]')).to_have_count(0, timeout=12_000)
    queue.close()

    # 5. Lock the agent down (confirmation and reason), and see its next request denied.
    page.goto("/dashboard/agents")
    summary = page.locator("summary", has_text="Lock down…").first
    summary.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.type("refunds at 3 a.m.")
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Confirm lockdown of agent-7")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".flash-success")).to_contain_text("agent-7 is locked down")
    locked = agent.ask("payments.refund", {"amount": 10, "currency": "EUR"})
    assert locked["status"] == "denied" and locked["reason_code"] == "agent_locked_down"

    # 6. Create an API key, copy it, then revoke it.
    page.goto("/dashboard/settings/api-keys")
    # A reporting job manages; the form suggests agent-only, so change the scopes.
    page.get_by_label(re.compile("^manage:")).check()
    page.get_by_label(re.compile("^agent:")).uncheck()
    page.get_by_label("Label").fill("reporting job")
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/api-keys")) as sent:
        page.keyboard.press("Enter")
    # htmx sends the session's CSRF token in the header that the body's hx-headers names.
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    assert sent.value.headers["x-csrftoken"] == token and sent.value.headers["hx-request"] == "true"
    key_field = page.get_by_label("API key")
    expect(key_field).to_have_value(re.compile(r"^vk_"))
    raw = key_field.input_value()
    shoot(page, "api-key-created")
    page.get_by_role("button", name="Copy").click()
    expect(page.locator(".copied")).to_have_text("Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == raw
    assert agent.api.get("/review-settings", headers={"X-Vault-API-Key": raw}).status_code == 200
    row = page.locator("tr", has_text="reporting job")
    row.locator("summary").click()
    row.get_by_role("button", name=re.compile("^Revoke")).click()
    expect(page.locator("tr", has_text="reporting job")).to_contain_text("revoked")
    assert agent.api.get("/review-settings", headers={"X-Vault-API-Key": raw}).status_code == 401
    page.context.close()


def test_a_viewer_cannot_approve(chromium, server, agent, people):
    agent.register_refund_policy()
    request_id = agent.pending_refund()
    page = open_page(chromium, server)
    sign_in_with_keyboard(page, people["viewer"])
    page.goto(f"/dashboard/reviews/{request_id}")
    expect(page.locator("#decision")).to_contain_text("can read reviews but not decide")
    expect(page.get_by_role("button", name=re.compile("^Approve"))).to_have_count(0)
    page.keyboard.press("a")  # the shortcut finds no button

    # Even a hand-made request with a valid CSRF token is refused by the server.
    status = page.evaluate(
        """async (url) => {
            const token = document.querySelector('meta[name="csrf-token"]').content;
            const body = new URLSearchParams({decision: "approve", reason: "sneaky"});
            const response = await fetch(url, {method: "POST", body, headers: {"X-CSRFToken": token}});
            return response.status;
        }""",
        f"/dashboard/reviews/{request_id}/decision",
    )
    assert status == 403
    assert agent.poll(request_id)["status"] == "pending_review"
    page.context.close()


# --- every page: screenshots, labels, keyboard --------------------------------------------


LABELLED = """() => [...document.querySelectorAll('input, select, textarea')]
    .filter(el => el.type !== 'hidden')
    .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
    .map(el => el.outerHTML.slice(0, 120))"""

FOCUSABLE = """() => [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')]
    .filter(el => el.type !== 'hidden' && !el.disabled && el.tabIndex >= 0)
    .filter(el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
    .filter(el => !el.closest('details:not([open])') || el.tagName === 'SUMMARY')
    .map(el => el.outerHTML.slice(0, 120))"""


def tab_through(page: Page, limit: int = 400) -> set[str]:
    """Press Tab until focus comes back round; returns what received focus."""
    page.evaluate("document.activeElement && document.activeElement.blur()")
    seen: list[str] = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        here = page.evaluate(
            "document.activeElement ? document.activeElement.outerHTML.slice(0, 120) : ''"
        )
        if here.startswith("<body") or (seen and here == seen[0]):
            break
        seen.append(here)
    return set(seen)


def seed_every_page(app, agent, run_jobs, tenant) -> dict[str, str]:
    """Data for every page: two policy versions, reviews, decisions, a sealed ledger, a lockdown,
    a notification sent."""
    from tests.conftest import ADMIN_KEY
    from webapp.services import notifications

    with app.app_context():
        change = notifications.NotificationSettingsChange(
            email_enabled=True, email_recipients=["risk@acme.test"]
        )
        notifications.update_notification_settings(tenant.client_id, change, actor="seed")

    agent.register_refund_policy(
        ["Refunds above €500 need manual review.", "Refunds must not exceed €8,000."]
    )
    agent.register_refund_policy()
    pending = agent.pending_refund(
        amount=950, customer="Ada <Lovelace>", reason_note="duplicate order"
    )
    agent.pending_refund(amount=700)
    agent.ask("payments.refund", {"amount": 40, "currency": "EUR"}, agent_id="checkout-bot")
    agent.ask("payments.refund", {"amount": 9000, "currency": "EUR"}, agent_id="checkout-bot")
    agent.api.post(
        "/drift/agents/night-bot/lockdown", json={"reason": "unusual hours"}, headers=tenant.headers
    )
    agent.api.post(
        "/admin/ledger/seal",
        json={"client_id": tenant.client_id},
        headers={"X-Admin-API-Key": ADMIN_KEY},
    )
    with app.app_context():
        from webapp.extensions import db
        from webapp.models import LedgerEvent

        event_uuid = (
            db.session.query(LedgerEvent.event_uuid)
            .filter(LedgerEvent.checkpoint_id.isnot(None))
            .filter(LedgerEvent.action_category == "clearance_decision")
            .first()[0]
        )
    return {"pending": pending, "event": event_uuid}


def test_every_page_reads_well_is_labelled_and_keyboard_reachable(
    chromium, server, app, agent, people, run_jobs, tenant
):
    seeded = seed_every_page(app, agent, run_jobs, tenant)
    people["reviewer"], people["viewer"]  # noqa: B018 - the users page lists them
    pages = {
        "overview": "/dashboard/",
        "reviews": "/dashboard/reviews",
        "review-detail": f"/dashboard/reviews/{seeded['pending']}",
        "policies": "/dashboard/policies",
        "policy-detail": "/dashboard/policies/refunds",
        "policy-diff": "/dashboard/policies/refunds/diff?from=1&to=2",
        "policy-new-form": "/dashboard/policies/new?via=form",
        "policy-new-paste": "/dashboard/policies/new?via=paste",
        "policy-new-upload": "/dashboard/policies/new?via=upload",
        "policy-new-wiki": "/dashboard/policies/new?via=wiki",
        "ledger": "/dashboard/ledger",
        "ledger-event": f"/dashboard/ledger/events/{seeded['event']}",
        "checkpoints": "/dashboard/ledger/checkpoints",
        "verification": "/dashboard/ledger/verification",
        "agents": "/dashboard/agents",
        "settings-review": "/dashboard/settings/review",
        "settings-notifications": "/dashboard/settings/notifications",
        "settings-api-keys": "/dashboard/settings/api-keys",
        "settings-users": "/dashboard/settings/users",
        "settings-password": "/dashboard/settings/password",
    }
    for viewport in (LAPTOP, PHONE):
        page = open_page(chromium, server, viewport)
        page.goto("/dashboard/sign-in")
        shoot(page, "sign-in")
        sign_in_with_keyboard(page, people["owner"])
        for name, url in pages.items():
            response = page.goto(url)
            assert response.status == 200, url
            shoot(page, name)
            if viewport is LAPTOP:
                assert page.evaluate(LABELLED) == [], f"unlabelled controls on {url}"
                reachable = tab_through(page)
                missing = [el for el in page.evaluate(FOCUSABLE) if el not in reachable]
                assert missing == [], f"not reachable by Tab on {url}: {missing[:3]}"
            else:
                overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
                assert overflow <= 1, f"{url} scrolls sideways on a phone by {overflow}px"
        page.context.close()

    viewer = open_page(chromium, server)
    sign_in_with_keyboard(viewer, people["viewer"])
    viewer.goto("/dashboard/settings/users")
    expect(viewer.get_by_role("heading", name=re.compile("Not allowed"))).to_be_visible()
    shoot(viewer, "forbidden")
    viewer.context.close()
