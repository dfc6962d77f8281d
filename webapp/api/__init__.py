"""The JSON API: one blueprint per resource group of spec §4.1, registered in one table."""

from __future__ import annotations

from flask import Flask

from webapp.extensions import csrf


def register_api(app: Flask) -> None:
    from webapp.api.admin import admin
    from webapp.api.decision import decision
    from webapp.api.drift import drift
    from webapp.api.ledger import ledger_api
    from webapp.api.minting import minting_api
    from webapp.api.notifications import notifications_api
    from webapp.api.ops import ops, public
    from webapp.api.parsing import refuse_nul_characters
    from webapp.api.policies import policies_api
    from webapp.api.reports import reports_api, shared_reports
    from webapp.api.reviews import reviews_api
    from webapp.api.settings import settings_api
    from webapp.api.webhooks import webhooks_api

    app.before_request(refuse_nul_characters)
    for blueprint in (
        ops,
        public,
        admin,
        decision,
        minting_api,
        policies_api,
        settings_api,
        drift,
        ledger_api,
        reviews_api,
        notifications_api,
        webhooks_api,
        reports_api,
        shared_reports,
    ):
        # Key-authenticated JSON endpoints carry no cookies, so CSRF does not apply.
        csrf.exempt(blueprint)
        app.register_blueprint(blueprint)
