"""Per-tenant settings documents (review, notification, report, drift) and their changes.

Every change is a ``settings_changed`` ledger event in the same transaction as the write.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from webapp.extensions import db
from webapp.models import TenantSetting, utcnow
from webapp.services import tenant_cache
from webapp.services.ledger import EventContent, append_event

REVIEW_DEFAULTS = {
    "minimum_confidence_score": 0.80,
    "judge_failure_mode": "deny",
    "required_approvals": 1,
}
FAILURE_MODES = ("deny", "review")
MAX_REQUIRED_APPROVALS = 5
# CONTRACT §7: a bucket sent instead of the score sets the score to the bucket's lower cut-off.
BUCKET_CUTOFFS = {"extra_high": 0.95, "high": 0.80, "medium": 0.60, "low": 0.01, "none": 0.0}


def bucket_of(score: float) -> str:
    """The confidence bucket of a score, as CONTRACT §3 draws the lines (`low` is any score > 0)."""
    for bucket in ("extra_high", "high", "medium"):
        if score >= BUCKET_CUTOFFS[bucket]:
            return bucket
    return "low" if score > 0 else "none"


def merged(current: dict[str, Any], change: Any, names: Iterable[str]) -> dict[str, Any]:
    """``current`` with each of ``names`` that the partial ``change`` sets (None leaves it)."""
    updated = dict(current)
    for name in names:
        value = getattr(change, name)
        if value is not None:
            updated[name] = value
    return updated


def changed(
    current: dict[str, Any], updated: dict[str, Any], names: Iterable[str]
) -> dict[str, Any]:
    """The ``settings_changed`` audit of ``names``: each changed one, from and to."""
    return {
        name: {"from": current.get(name), "to": updated[name]}
        for name in names
        if updated[name] != current.get(name)
    }


def read(client_id: str, kind: str, defaults: dict[str, Any]) -> dict[str, Any]:
    """The stored document merged over its defaults."""
    row = db.session.get(TenantSetting, (client_id, kind))
    return {**defaults, **(row.value if row else {})}


def write(
    client_id: str, kind: str, value: dict[str, Any], *, actor: str, audit: dict[str, Any]
) -> None:
    """Store a whole document and record the change; commits."""
    row = db.session.get(TenantSetting, (client_id, kind))
    if row is None:
        db.session.add(
            TenantSetting(client_id=client_id, kind=kind, value=value, updated_at=utcnow())
        )
    else:
        row.value = value
        row.updated_at = utcnow()
    append_event(
        client_id,
        EventContent(
            action_category="settings_changed",
            reason=f"{kind} settings changed by {actor}",
            action_metadata={"settings": kind, "actor": actor, "changes": audit},
        ),
    )
    db.session.commit()


def review_settings(client_id: str) -> dict[str, Any]:
    """CONTRACT §7: threshold (default 0.80) and what a failing judge leads to."""
    # Read on every clearance: cached per process while the tenant's settings are unchanged.
    stored = tenant_cache.cached(
        client_id, "settings", "review", lambda: read(client_id, "review", REVIEW_DEFAULTS)
    )
    return _review_view(client_id, stored)


def _review_view(client_id: str, stored: dict[str, Any]) -> dict[str, Any]:
    # The bucket is derived from the score, never stored, so the two cannot disagree.
    bucket = bucket_of(stored["minimum_confidence_score"])
    return {"client_id": client_id, **stored, "minimum_confidence_bucket": bucket}


def required_approvals_for(client_id: str, judge_verdict: dict[str, Any] | None) -> int:
    """How many distinct reviewers must approve a request entering review now.

    The tenant's ``required_approvals``, raised (never lowered) by the judge when a rule asks for
    more: a verdict whose ``details`` carry ``required_approvals`` (an integer; helper "judge"
    sets it from rules like "... requires approval from two reviewers"). At most 5.
    """
    count = read(client_id, "review", REVIEW_DEFAULTS).get("required_approvals", 1)
    if isinstance(count, bool) or not isinstance(count, int):
        count = 1
    details = (judge_verdict or {}).get("details") or {}
    by_rule = details.get("required_approvals") if isinstance(details, dict) else None
    if isinstance(by_rule, int) and not isinstance(by_rule, bool):
        count = max(count, by_rule)
    return max(1, min(MAX_REQUIRED_APPROVALS, count))


@dataclass(frozen=True)
class ReviewSettingsChange:
    """A validated partial update of the review settings (``ReviewSettingsUpdate`` at the API,
    ``ReviewSettingsForm`` in the dashboard); None leaves a setting as it is."""

    minimum_confidence_score: float | None = None
    judge_failure_mode: str | None = None
    required_approvals: int | None = None


REVIEW_CHANGE_FIELDS = ("minimum_confidence_score", "judge_failure_mode", "required_approvals")


def update_review_settings(
    client_id: str, change: ReviewSettingsChange, actor: str
) -> dict[str, Any]:
    """Apply a partial update; commits with a settings_changed event when anything changed."""
    current = read(client_id, "review", REVIEW_DEFAULTS)
    updated = merged(current, change, REVIEW_CHANGE_FIELDS)
    updated["minimum_confidence_score"] = float(updated["minimum_confidence_score"])
    audit = changed(current, updated, updated)
    if audit:
        write(client_id, "review", updated, actor=actor, audit=audit)
    return _review_view(client_id, updated)
