"""Agents: every agent seen, its last activity, and lockdown with a reason."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, url_for
from flask_login import current_user

from webapp.dashboard.forms import AgentActionForm
from webapp.dashboard.roles import allowed_to
from webapp.services import agents

agents_pages = Blueprint("agents", __name__, url_prefix="/agents")


@agents_pages.get("")
@allowed_to("read")
def index():
    return render_template("agents/index.html", agents=agents.list_agents(current_user.client_id))


@agents_pages.post("/lock")
@allowed_to("manage")
def lock():
    form = AgentActionForm()
    if not form.validate_on_submit():
        return _invalid(form)
    agents.lock_down(
        current_user.client_id,
        form.agent_id.data,
        actor=current_user.email,
        reason=form.reason.data.strip(),
    )
    flash(
        f"{form.agent_id.data} is locked down: its requests are denied until released.", "success"
    )
    return redirect(url_for(".index"))


@agents_pages.post("/release")
@allowed_to("manage")
def release():
    form = AgentActionForm()
    if not form.validate_on_submit():
        return _invalid(form)
    agents.release(
        current_user.client_id,
        form.agent_id.data,
        actor=current_user.email,
        reason=form.reason.data.strip(),
    )
    flash(f"{form.agent_id.data} is released: its requests are judged again.", "success")
    return redirect(url_for(".index"))


def _invalid(form: AgentActionForm):
    problems = "; ".join(
        f"{getattr(form, name).label.text or name}: {', '.join(errs)}"
        for name, errs in form.errors.items()
    )
    flash(f"Nothing changed. {problems or 'Give a reason.'}", "error")
    return redirect(url_for(".index"))
