"""Ledger jobs: the sealing tick, and exporting checkpoints to the anchor store."""

from __future__ import annotations

import logging

from jobs.runtime import in_app_context

log = logging.getLogger(__name__)

_store_checked = False


@in_app_context
def seal_tick() -> dict[str, list[int]]:
    """Seal every tenant's backlog and queue the exports; returns the new checkpoint ids."""
    from webapp.services import sealing  # imported here: the cron process stays small

    sealed: dict[str, list[int]] = {}
    for checkpoint in sealing.seal_and_queue_exports():
        sealed.setdefault(checkpoint.client_id, []).append(checkpoint.checkpoint_id)
    return sealed


@in_app_context
def export_tick() -> dict[str, dict]:
    """Export (or retry) every checkpoint not yet in the anchor store, for every tenant."""
    from webapp.services import anchoring

    _check_store_once()
    return {
        client_id: {"exported": len(report.exported), "failed": sorted(report.failed)}
        for client_id, report in anchoring.export_all_pending().items()
    }


@in_app_context
def export_tenant(client_id: str) -> dict:
    """Export one tenant's pending checkpoints (queued right after sealing)."""
    from webapp.services import anchoring

    _check_store_once()
    report = anchoring.export_pending(client_id)
    return {"exported": len(report.exported), "failed": sorted(report.failed)}


def _check_store_once() -> None:
    """Check the anchor store's requirements (versioning, object lock) once per worker.

    A refused store is logged and not written to: every export to it then fails with the
    reason, which the verification summary shows, and is retried on the next tick.
    """
    from webapp.services import anchoring

    global _store_checked
    if _store_checked:
        return
    try:
        log.info("anchor store: %s", anchoring.check_anchor_store())
    except anchoring.AnchorStoreRefused as error:
        log.error("anchor store refused: %s", error)
        return
    _store_checked = True
