"""The overview: what waits for people, what was decided, what is locked, how the ledger stands."""

from __future__ import annotations

from flask import Blueprint
from flask_login import current_user

from webapp.dashboard import queries
from webapp.dashboard.htmx import page_or_fragment
from webapp.dashboard.roles import allowed_to
from webapp.services import agents, drift, verification

overview_pages = Blueprint("overview", __name__)


@overview_pages.get("/")
@allowed_to("read")
def index():
    client_id = current_user.client_id
    outcomes = queries.decisions_since(client_id, hours=24)
    return page_or_fragment(
        "overview/index.html",
        "overview/_panels.html",
        pending=queries.pending_review_count(client_id),
        outcomes=outcomes,
        most=max((o.count for o in outcomes), default=0),
        locked=[a for a in agents.list_agents(client_id) if a.locked_down],
        drifting=drift.at_risk(client_id),
        ledger=verification.verification_summary(client_id),
    )
