"""Idempotency-Key handling for POSTs whose answer can be replayed (CONTRACT §1)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError

from webapp.errors import Unprocessable
from webapp.extensions import db
from webapp.models import IdempotencyRecord, utcnow
from webapp.services.canonical import body_fingerprint

WINDOW = timedelta(hours=24)


def once(
    client_id: str,
    scope: str,
    key: str | None,
    body: dict[str, Any],
    work: Callable[[], tuple[dict[str, Any], int]],
) -> tuple[dict[str, Any], int]:
    """Run ``work`` once per (tenant, scope, key) within 24 h and replay its answer after."""
    if not key:
        return work()
    fingerprint = body_fingerprint(body)
    stored = find(client_id, scope, key, fingerprint)
    if stored is not None:
        return stored.response or {}, stored.status_code
    payload, status = work()
    db.session.add(
        IdempotencyRecord(
            client_id=client_id,
            scope=scope,
            key=key,
            body_hash=fingerprint,
            status_code=status,
            response=payload,
        )
    )
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        stored = find(client_id, scope, key, fingerprint)
        if stored is not None:
            return stored.response or {}, stored.status_code
    return payload, status


def remember(
    client_id: str, scope: str, key: str | None, fingerprint: str, resource_id: str
) -> None:
    """Record a key's first use for a resource, in the caller's transaction."""
    if key:
        db.session.add(
            IdempotencyRecord(
                client_id=client_id,
                scope=scope,
                key=key,
                body_hash=fingerprint,
                resource_id=resource_id,
            )
        )


def find(client_id: str, scope: str, key: str, fingerprint: str) -> IdempotencyRecord | None:
    """The record of an earlier use of ``key`` within 24 h; 422 if it came with another body.

    An expired record is deleted in the caller's transaction and the key counts as new.
    """
    record = db.session.scalar(
        IdempotencyRecord.for_tenant(client_id).where(
            IdempotencyRecord.scope == scope, IdempotencyRecord.key == key
        )
    )
    if record is None:
        return None
    if record.created_at < utcnow() - WINDOW:
        db.session.delete(record)
        db.session.flush()
        return None
    if record.body_hash != fingerprint:
        raise Unprocessable(
            "Idempotency-Key was used with a different body", code="idempotency_mismatch"
        )
    return record
