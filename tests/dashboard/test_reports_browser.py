"""The public auditor page in Debian's chromium: the browser recomputes the artifacts' hashes,
the report event's hash, its inclusion proof and the checkpoint's Ed25519 signature, and says
so; a tampered artifact or a tampered proof makes it fail; a browser without WebCrypto Ed25519
falls back to the vendored library. Also the owner's Reports page: generate, share, copy,
revoke."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Route, expect

from tests.api.test_reports import _decisions
from tests.dashboard.test_dashboard_browser import (  # noqa: F401 - fixtures reused, not copied
    chromium,
    open_page,
    server,
    shoot,
    sign_in_with_keyboard,
)
from tests.ledger_support import seal, write_events

pytestmark = pytest.mark.browser


def _shared_report(app, client, tenant, run_jobs) -> tuple[str, str]:
    write_events(app, tenant.client_id, 6)  # a tree of several leaves: the proof has a path
    _decisions(client, tenant, run_jobs)  # real decisions, for the charts
    created = client.post("/reports", json={}, headers=tenant.headers).get_json()
    run_jobs()
    seal(app, tenant.client_id)
    token = client.post(
        f"/reports/{created['report_id']}/share", headers=tenant.headers
    ).get_json()["token"]
    return created["report_id"], token


def test_the_auditor_page_verifies_in_the_browser(app, client, tenant, run_jobs, chromium, server):  # noqa: F811
    report_id, token = _shared_report(app, client, tenant, run_jobs)
    page = open_page(chromium, server)
    page.goto(f"/reports/shared/{token}")
    expect(page.get_by_role("heading", name="SOX 404 evidence pack")).to_be_visible()
    status = page.locator("#verify-status")
    expect(status).to_have_attribute("data-state", "verified")
    for check in (
        "artifact pdf",
        "artifact json",
        "event hash",
        "inclusion proof",
        "checkpoint signature",
    ):
        expect(page.locator(f'#verify-steps li[data-check="{check}"]')).to_have_class("check-ok")
    expect(page.locator("#chart-decisions svg rect.bar-approved").first).to_be_attached()
    expect(page.locator("#chart-reviews")).to_contain_text("Nothing in the period.")
    expect(page.locator("pre")).to_contain_text("python -m webapp.ledger verify-bundle")
    shoot(page, "report-shared")

    # A tampered artifact: one byte of the PDF changed on the way.
    tampered = open_page(chromium, server)

    def flip_pdf(route: Route) -> None:
        response = route.fetch()
        body = bytearray(response.body())
        body[len(body) // 2] ^= 1
        route.fulfill(response=response, body=bytes(body))

    tampered.route(re.compile(r".*/artifacts/pdf$"), flip_pdf)
    tampered.goto(f"/reports/shared/{token}")
    expect(tampered.locator("#verify-status")).to_have_attribute("data-state", "failed")
    expect(tampered.locator('#verify-steps li[data-check="artifact pdf"]')).to_have_class(
        "check-failed"
    )
    expect(tampered.locator('#verify-steps li[data-check="inclusion proof"]')).to_have_class(
        "check-ok"
    )

    # A tampered proof: one hash of the inclusion path changed in the page.
    forged = open_page(chromium, server)

    def forge_path(route: Route) -> None:
        response = route.fetch()
        html = response.text()
        html, count = re.subn(
            r'("path": \[")([0-9a-f])',
            lambda m: m.group(1) + ("0" if m.group(2) != "0" else "1"),
            html,
            count=1,
        )
        assert count == 1
        route.fulfill(response=response, body=html)

    forged.route(re.compile(rf".*/reports/shared/{token}$"), forge_path)
    forged.goto(f"/reports/shared/{token}")
    expect(forged.locator("#verify-status")).to_have_attribute("data-state", "failed")
    expect(forged.locator('#verify-steps li[data-check="inclusion proof"]')).to_have_class(
        "check-failed"
    )

    # A forged signature fails, even with everything else intact.
    resigned = open_page(chromium, server)

    def forge_signature(route: Route) -> None:
        response = route.fetch()
        html, count = re.subn(
            r'("checkpoint_signature": ")([A-Za-z0-9_-])',
            lambda m: m.group(1) + ("A" if m.group(2) != "A" else "B"),
            response.text(),
            count=1,
        )
        assert count == 1
        route.fulfill(response=response, body=html)

    resigned.route(re.compile(rf".*/reports/shared/{token}$"), forge_signature)
    resigned.goto(f"/reports/shared/{token}")
    expect(resigned.locator('#verify-steps li[data-check="checkpoint signature"]')).to_have_class(
        "check-failed"
    )

    # Without WebCrypto Ed25519 the vendored library verifies the same signature.
    fallback = open_page(chromium, server)
    fallback.add_init_script(
        """
        const original = crypto.subtle.importKey.bind(crypto.subtle);
        crypto.subtle.importKey = function (format, key, algorithm, ...rest) {
          if ((algorithm && algorithm.name) === "Ed25519") {
            window.__ed25519_refused = true;
            return Promise.reject(new DOMException("no Ed25519", "NotSupportedError"));
          }
          return original(format, key, algorithm, ...rest);
        };
        """
    )
    fallback.goto(f"/reports/shared/{token}")
    expect(fallback.locator("#verify-status")).to_have_attribute("data-state", "verified")
    assert fallback.evaluate("window.__ed25519_refused") is True

    # Revoked: the page is gone.
    client.delete(f"/reports/{report_id}/share/{token}", headers=tenant.headers)
    gone = open_page(chromium, server)
    response = gone.goto(f"/reports/shared/{token}")
    assert response.status == 404


def test_an_owner_generates_shares_copies_and_revokes(chromium, server, people, run_jobs):  # noqa: F811
    page = open_page(chromium, server)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    sign_in_with_keyboard(page, people["owner"])
    page.get_by_role("link", name="Reports").click()
    expect(page.get_by_role("heading", name="Reports", exact=True)).to_be_visible()
    page.get_by_role("button", name="Generate").click()
    row = page.locator("tr[data-report]").first
    expect(row).to_have_attribute("data-status", re.compile("queued|running"))
    run_jobs()  # the list polls itself until the report is ready
    expect(row).to_have_attribute("data-status", "ready")
    expect(row.get_by_role("link", name="PDF")).to_be_visible()
    shoot(page, "reports-list")
    row.locator("a.mono").click()
    page.get_by_label("Link expires after").select_option("86400")
    page.get_by_role("button", name="Create link").click()
    link = page.locator("#share-url").input_value()
    assert "/reports/shared/" in link
    page.get_by_role("button", name="Copy link").click()
    expect(page.locator(".copied")).to_have_text("Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == link
    expect(page.locator("tr[data-token-id]")).to_have_count(1)
    shoot(page, "report-detail")

    # The link is built on VAULT_PUBLIC_URL; the test server listens elsewhere.
    path = link[link.index("/reports/shared/") :]
    auditor = open_page(chromium, server)
    auditor.goto(path)
    expect(auditor.get_by_role("heading", name="SOX 404 evidence pack")).to_be_visible()

    page.get_by_role("button", name="Revoke").click()
    expect(page.locator("tr[data-token-id]")).to_have_count(0)
    assert auditor.goto(path).status == 404
