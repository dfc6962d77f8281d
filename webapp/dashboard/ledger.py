"""Decisions and ledger: search, one event with its proof, checkpoints, verification."""

from __future__ import annotations

import json
from datetime import date

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from flask_login import current_user

from webapp.dashboard import queries
from webapp.dashboard.forms import ActionForm
from webapp.dashboard.roles import allowed_to
from webapp.errors import Conflict, DomainError
from webapp.ledger.verify import verify_bundle
from webapp.services import checkpoints, keys, proofs, verification
from webapp.services import ledger as ledger_service

ledger_pages = Blueprint("ledger", __name__, url_prefix="/ledger")
CHECKPOINT_PAGE = 50


@ledger_pages.get("")
@allowed_to("read")
def search():
    wanted = _search_from_args()
    rows, next_before = queries.search_ledger(current_user.client_id, wanted)
    args = {k: v for k, v in request.args.items() if k != "before" and v}
    return render_template(
        "ledger/search.html",
        wanted=wanted,
        rows=rows,
        older_url=url_for(".search", **args, before=next_before) if next_before else None,
        outcomes=queries.OUTCOMES,
    )


@ledger_pages.get("/events/<event_uuid>")
@allowed_to("read")
def event(event_uuid: str):
    client_id = current_user.client_id
    row = proofs.find_event(client_id, event_uuid=event_uuid)
    entry = ledger_service.entry_view(row)
    checkpoint = (
        checkpoints.get_checkpoint(client_id, row.checkpoint_id) if row.checkpoint_id else None
    )
    report, waiting = None, None
    try:
        bundle = proofs.proof_bundle(client_id, event_uuid=event_uuid)
    except Conflict as error:  # not sealed yet
        waiting = error.headers.get("Retry-After")
    else:
        # The same checks an auditor runs offline, against the keys this vault publishes.
        report = verify_bundle(bundle, keys.jwks())
    return render_template(
        "ledger/event.html",
        row=row,
        entry=entry,
        checkpoint=checkpoint,
        report=report,
        waiting=waiting,
    )


@ledger_pages.get("/events/<event_uuid>/proof-bundle.json")
@allowed_to("read")
def proof_bundle(event_uuid: str):
    bundle = proofs.proof_bundle(current_user.client_id, event_uuid=event_uuid)
    return Response(
        json.dumps(bundle, indent=2, sort_keys=True),
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="proof-bundle-{event_uuid}.json"'},
    )


@ledger_pages.get("/checkpoints")
@allowed_to("read")
def checkpoint_list():
    before = request.args.get("before", "")
    rows, next_before = checkpoints.list_checkpoints(
        current_user.client_id,
        CHECKPOINT_PAGE,
        after=int(before) if (before.isascii() and before.isdigit()) and len(before) < 19 else None,
        descending=True,
    )
    return render_template(
        "ledger/checkpoints.html",
        rows=rows,
        older_url=url_for(".checkpoint_list", before=next_before) if next_before else None,
    )


@ledger_pages.get("/verification")
@allowed_to("read")
def verification_page():
    return render_template(
        "ledger/verification.html",
        summary=verification.verification_summary(current_user.client_id),
        result=None,
        form=ActionForm(),
    )


@ledger_pages.post("/verification")
@allowed_to("read")
def verify_now():
    """Verifying reads the whole ledger and records the outcome; every role may ask for it."""
    if not ActionForm().validate_on_submit():
        return redirect(url_for(".verification_page"))
    client_id = current_user.client_id
    try:
        result = verification.verify_ledger(client_id)
    except DomainError as error:
        flash(f"Verification could not run: {error.detail}", "error")
        return redirect(url_for(".verification_page"))
    return render_template(
        "ledger/verification.html",
        summary=verification.verification_summary(client_id),
        result=result,
        form=ActionForm(),
    )


def _search_from_args() -> queries.LedgerSearch:
    args = request.args
    outcome = args.get("outcome", "")
    before = args.get("before", "")
    return queries.LedgerSearch(
        request_id=args.get("request_id", "").strip()[:64],
        agent_id=args.get("agent_id", "").strip()[:256],
        tool_name=args.get("tool_name", "").strip()[:256],
        outcome=outcome if outcome in queries.OUTCOMES else "",
        since=_date(args.get("since")),
        until=_date(args.get("until")),
        before_seq=int(before)
        if (before.isascii() and before.isdigit()) and len(before) < 19
        else None,
    )


def _date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None
