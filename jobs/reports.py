"""Report jobs: build one report, and the scheduled reports of every tenant."""

from __future__ import annotations

from jobs.runtime import in_app_context


@in_app_context
def build_report(report_id: str) -> str:
    """Gather, render and record the report named by its row (committed before queueing)."""
    from webapp.services import reports  # imported here: the cron process stays small

    return reports.build_report(report_id)


@in_app_context
def run_report_schedules() -> list[str]:
    """Periodic: queue each enabled tenant's report for its last whole period, once."""
    from webapp.services import reports

    return reports.run_schedules()


@in_app_context
def reap_stuck_reports() -> int:
    """Periodic: queue again (or fail) reports whose build job was lost or died."""
    from webapp.services import reaper

    return reaper.reap_reports()
