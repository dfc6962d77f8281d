"""Per-tenant settings documents (review, notification, report, drift) and their changes.

Every change is a ``settings_changed`` ledger event in the same transaction as the write.
"""

from __future__ import annotations

import math
from typing import Any

from webapp.errors import InvalidInput
from webapp.extensions import db
from webapp.models import TenantSetting, utcnow
from webapp.services import tenant_cache
from webapp.services.ledger import EventContent, append_event

REVIEW_DEFAULTS = {"minimum_confidence_score": 0.80, "judge_failure_mode": "deny"}
FAILURE_MODES = ("deny", "review")


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
    return {"client_id": client_id, **stored}


def update_review_settings(client_id: str, changes: dict[str, Any], actor: str) -> dict[str, Any]:
    """Apply a partial update; either field may come alone."""
    if not changes:
        raise InvalidInput(
            "send minimum_confidence_score and/or judge_failure_mode",
            errors=[{"field": "body", "message": "no settings given"}],
        )
    current = read(client_id, "review", REVIEW_DEFAULTS)
    updated = dict(current)
    if "minimum_confidence_score" in changes:
        score = changes["minimum_confidence_score"]
        if (
            isinstance(score, bool)
            or not isinstance(score, (int, float))
            or not math.isfinite(score)
            or not 0 <= score <= 1
        ):
            raise InvalidInput(
                "minimum_confidence_score must be a number in [0, 1]",
                errors=[
                    {"field": "minimum_confidence_score", "message": "must be a number in [0, 1]"}
                ],
            )
        updated["minimum_confidence_score"] = float(score)
    if "judge_failure_mode" in changes:
        mode = changes["judge_failure_mode"]
        if mode not in FAILURE_MODES:
            raise InvalidInput(
                "judge_failure_mode must be deny or review",
                errors=[{"field": "judge_failure_mode", "message": "must be deny or review"}],
            )
        updated["judge_failure_mode"] = mode
    audit = {
        k: {"from": current[k], "to": updated[k]} for k in updated if updated[k] != current.get(k)
    }
    if audit:
        write(client_id, "review", updated, actor=actor, audit=audit)
    return {"client_id": client_id, **updated}
