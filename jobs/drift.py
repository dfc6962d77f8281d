"""Drift job: the periodic rescoring of every active agent against its baseline."""

from __future__ import annotations

from jobs.runtime import in_app_context


@in_app_context
def score_drift() -> dict[str, int]:
    """Score every active agent; returns the drift events written per tenant."""
    from webapp.services import drift  # imported here: the cron process stays small

    return drift.score_all_tenants()
