"""Drift: each agent's score, risk, activity and signals; lock and release with a reason;
the drift events; the drift settings."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_login import current_user
from flask_wtf import FlaskForm
from wtforms import BooleanField, DecimalField, IntegerField
from wtforms.validators import InputRequired, NumberRange

from webapp.dashboard.forms import AgentActionForm
from webapp.dashboard.roles import allowed_to
from webapp.errors import InvalidInput
from webapp.services import agents, drift

drift_pages = Blueprint("drift", __name__, url_prefix="/drift")

SPARK_WIDTH, SPARK_HEIGHT = 112, 24


class DriftSettingsForm(FlaskForm):
    enabled = BooleanField("Watch agents for drift")
    baseline_days = IntegerField(
        "Baseline (days)",
        validators=[InputRequired(), NumberRange(1, 90)],
        description="How much history an agent is compared with: 1 to 90 days.",
    )
    window_hours = IntegerField(
        "Window (hours)",
        validators=[InputRequired(), NumberRange(1, 168)],
        description="The recent activity that is compared: 1 to 168 hours.",
    )
    score_threshold = DecimalField(
        "Score threshold",
        places=2,
        validators=[InputRequired(), NumberRange(0, 1)],
        description="High risk from this score (0 to 1); medium from 60 % of it.",
    )
    min_events = IntegerField(
        "Minimum baseline events",
        validators=[InputRequired(), NumberRange(1, 10_000)],
        description="Below this an agent is still learning and never rated high.",
    )
    auto_lockdown = BooleanField("Lock an agent down automatically at high risk")


@drift_pages.get("")
@allowed_to("read")
def index():
    return _page(DriftSettingsForm(data=drift.drift_settings(current_user.client_id)))


@drift_pages.post("/settings")
@allowed_to("manage")
def save_settings():
    form = DriftSettingsForm()
    if not form.validate_on_submit():
        return _page(form), 422
    # The form validated every field (WTForms is this page's edge).
    change = drift.DriftSettingsChange(
        enabled=form.enabled.data,
        baseline_days=form.baseline_days.data,
        window_hours=form.window_hours.data,
        score_threshold=float(form.score_threshold.data),
        min_events=form.min_events.data,
        auto_lockdown=form.auto_lockdown.data,
    )
    drift.update_drift_settings(current_user.client_id, change, actor=current_user.email)
    flash("Drift settings saved.", "success")
    return redirect(url_for(".index"))


@drift_pages.post("/lock")
@allowed_to("manage")
def lock():
    form = AgentActionForm()
    if not form.validate_on_submit():
        return _refused(form)
    agent_id = form.agent_id.data
    agents.lock_down(
        current_user.client_id, agent_id, actor=current_user.email, reason=form.reason.data.strip()
    )
    flash(f"{agent_id} is locked down: its requests are denied until released.", "success")
    return redirect(url_for(".index"))


@drift_pages.post("/release")
@allowed_to("manage")
def release():
    form = AgentActionForm()
    if not form.validate_on_submit():
        return _refused(form)
    agent_id = form.agent_id.data
    try:
        agents.release(
            current_user.client_id,
            agent_id,
            actor=current_user.email,
            reason=form.reason.data.strip(),
        )
    except InvalidInput as error:
        flash(f"Nothing changed. {error.detail}", "error")
        return redirect(url_for(".index"))
    flash(f"{agent_id} is released: its requests are judged again.", "success")
    return redirect(url_for(".index"))


def sparkline(values: list[int] | None) -> dict[str, Any]:
    """Points of an inline SVG polyline (no chart library, no inline style for the CSP)."""
    values = list(values or [])
    if not values:
        return {"points": "", "total": 0, "peak": 0, "days": 0}
    peak = max(values) or 1
    step = SPARK_WIDTH / max(1, len(values) - 1)
    points = " ".join(
        f"{i * step:.1f},{SPARK_HEIGHT - 2 - (v / peak) * (SPARK_HEIGHT - 4):.1f}"
        for i, v in enumerate(values)
    )
    return {"points": points, "total": sum(values), "peak": max(values), "days": len(values)}


def _page(form: DriftSettingsForm):
    client_id = current_user.client_id
    cursor = None
    raw_cursor = request.args.get("events_before", "")
    if raw_cursor:
        at, _, event_id = raw_cursor.partition("|")
        cursor = {"t": at, "id": event_id}
    try:
        events, following = drift.list_events(client_id, limit=25, cursor=cursor)
    except InvalidInput:
        abort(400)
    rows = [
        {
            **drift.agent_view(state),
            "state": state,
            "spark": sparkline(state.drift_activity),
            "ranked": sorted(
                (state.drift_signals or {}).items(), key=lambda item: -item[1].get("score", 0)
            ),
        }
        for state in drift.ranked_agents(client_id)
    ]
    return render_template(
        "drift/index.html",
        agents=rows,
        events=[drift.event_view(e) for e in events],
        older=f"{following['t']}|{following['id']}" if following else "",
        form=form,
        settings=drift.drift_settings(client_id),
        spark_width=SPARK_WIDTH,
        spark_height=SPARK_HEIGHT,
    )


def _refused(form: AgentActionForm):
    problems = "; ".join(
        f"{getattr(form, name).label.text or name}: {', '.join(errs)}"
        for name, errs in form.errors.items()
    )
    flash(f"Nothing changed. {problems or 'Give a reason.'}", "error")
    return redirect(url_for(".index"))
