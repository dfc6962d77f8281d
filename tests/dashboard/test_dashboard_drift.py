"""The Drift page through the test client: agents with their scores and signals, the settings
form (CSRF, field errors), lock and release with a reason, and the overview's drift panel."""

from __future__ import annotations

from jobs import queues
from jobs.drift import score_drift
from tests.api.test_drift import seed_baseline
from tests.dashboard.conftest import text_of


def rescore(app, run_jobs) -> None:
    queues.queue(queues.DEFAULT, app.extensions["vault"].redis).enqueue(score_drift)
    run_jobs()


def drifting_agent(app, tenant, agent, run_jobs) -> None:
    """agent-7 with a week of habits, then five calls of a tool it never used."""
    agent.register_refund_policy()
    seed_baseline(app, tenant.client_id, "agent-7")
    agent.ask("payments.refund", {"amount": 10, "currency": "EUR"})
    for n in range(5):
        agent.ask("payments.export", {"rows": 1000 * (n + 1)})
    rescore(app, run_jobs)


def test_the_drift_page_shows_scores_sparklines_signals_and_events(
    app, tenant, agent, run_jobs, signed_in
):
    drifting_agent(app, tenant, agent, run_jobs)
    page = signed_in("viewer").get("/dashboard/drift")
    html = text_of(page)
    assert page.status_code == 200
    assert 'data-agent="agent-7"' in html and "risk-high" in html
    assert "<polyline" in html and "requests over 14 days" in html
    assert "new capability" in html and "payments.export" in html
    assert "No agent has crossed the threshold" not in html  # the event is listed
    assert "Confirm lockdown of" not in html  # viewers read only
    overview = text_of(signed_in("viewer").get("/dashboard/"))
    assert "Drifting agents" in overview and "agent-7" in overview


def test_settings_form_saves_and_names_bad_fields(app, tenant, signed_in):
    owner = signed_in("owner")
    form = {
        "enabled": "y",
        "baseline_days": "14",
        "window_hours": "12",
        "score_threshold": "0.8",
        "min_events": "50",
        "auto_lockdown": "y",
    }
    saved = owner.post("/dashboard/drift/settings", form)
    assert saved.status_code == 302
    settings = app.test_client().get("/drift/settings", headers=tenant.headers).get_json()
    assert settings == {
        "enabled": True,
        "baseline_days": 14,
        "window_hours": 12,
        "score_threshold": 0.8,
        "min_events": 50,
        "auto_lockdown": True,
    }
    bad = owner.post("/dashboard/drift/settings", {**form, "window_hours": "500"})
    assert bad.status_code == 422 and "window_hours-error" in text_of(bad)
    no_csrf = owner.client.post("/dashboard/drift/settings", data=form)
    assert no_csrf.status_code == 400
    assert signed_in("reviewer").post("/dashboard/drift/settings", form).status_code == 403


def test_lock_and_release_need_a_reason(app, tenant, signed_in, sql):
    owner = signed_in("owner")
    nothing = owner.post("/dashboard/drift/lock", {"agent_id": "bot-1", "reason": ""})
    assert nothing.status_code == 302
    assert sql("SELECT count(*) FROM agent_states").scalar() == 0
    owner.post("/dashboard/drift/lock", {"agent_id": "bot-1", "reason": "odd hours"})
    assert sql("SELECT locked_down FROM agent_states").scalar()
    owner.post("/dashboard/drift/release", {"agent_id": "bot-1", "reason": "checked with owner"})
    row = sql("SELECT locked_down, released_by, release_reason FROM agent_states").one()
    assert (bool(row[0]), row[1], row[2]) == (False, "owner@acme.test", "checked with owner")
