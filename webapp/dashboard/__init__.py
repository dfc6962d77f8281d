"""The dashboard: server-rendered pages and HTMX fragments behind Flask-Login and CSRF.

One parent blueprint, ``dashboard`` (URL prefix ``/dashboard``), holds a child blueprint per
page group; the route table is the list in ``register_dashboard``.
"""

from __future__ import annotations

from flask import Blueprint, Flask, g, redirect, url_for
from flask_login import current_user

from webapp.dashboard import errors, present
from webapp.dashboard.auth import install_login
from webapp.dashboard.htmx import add_vary_header


def register_dashboard(app: Flask) -> None:
    """Register every dashboard page under ``/dashboard`` and send ``/`` there."""
    from webapp.dashboard.agents import agents_pages
    from webapp.dashboard.auth import auth_pages
    from webapp.dashboard.drift import drift_pages
    from webapp.dashboard.ledger import ledger_pages
    from webapp.dashboard.overview import overview_pages
    from webapp.dashboard.policies import glossary_pages, policy_pages
    from webapp.dashboard.reports import report_pages
    from webapp.dashboard.reviews import review_pages
    from webapp.dashboard.settings import settings_pages
    from webapp.dashboard.webhooks import webhook_pages

    dashboard = Blueprint("dashboard", __name__, url_prefix="/dashboard")
    for child in (
        auth_pages,
        overview_pages,
        policy_pages,
        glossary_pages,
        review_pages,
        ledger_pages,
        agents_pages,
        drift_pages,
        report_pages,
        settings_pages,
        webhook_pages,
    ):
        dashboard.register_blueprint(child)
    dashboard.before_request(_remember_tenant)
    dashboard.after_request(add_vary_header)
    dashboard.after_request(_security_headers)
    errors.install(dashboard)
    present.install(dashboard)
    app.register_blueprint(dashboard)
    install_login(app)
    app.add_url_rule("/", endpoint="dashboard_root", view_func=_root)
    # Browsers ask for /favicon.ico on every page whatever the markup says; answer, not 404.
    app.add_url_rule("/favicon.ico", endpoint="dashboard_favicon", view_func=_favicon)


def _root():
    return redirect(url_for("dashboard.overview.index"))


def _favicon():
    from flask import current_app, send_from_directory

    return send_from_directory(
        current_app.static_folder, "favicon.ico", mimetype="image/x-icon", max_age=86400
    )


def _remember_tenant() -> None:
    # The access log reads g.client_id; pages are per tenant, like API calls.
    if current_user.is_authenticated:
        g.client_id = current_user.client_id


# Scripts and styles only from our own files: escaped content can never become code, and
# htmx runs without eval because no page uses hx-on or js: values.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


def _security_headers(response):  # noqa: ANN001, ANN202
    # Pages show tenant data (and once, a raw API key): keep them out of shared caches.
    response.headers.setdefault("Cache-Control", "no-store")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    return response
