"""Idempotency-Key handling for POSTs whose answer can be replayed (CONTRACT §1)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

from sqlalchemy.exc import IntegrityError

from webapp.errors import Conflict, Unprocessable
from webapp.extensions import db
from webapp.models import IdempotencyRecord, utcnow
from webapp.services.canonical import body_fingerprint

WINDOW = timedelta(hours=24)
T = TypeVar("T")


def in_transaction(
    client_id: str,
    scope: str,
    key: str | None,
    fingerprint: str,
    work: Callable[[], tuple[str, T]],
    replay: Callable[[IdempotencyRecord], T],
) -> T:
    """Run ``work`` and commit it together with the record of its Idempotency-Key.

    ``work`` stages its rows without committing and returns (resource id, result). The key's
    record joins the same transaction, so the work and the key commit or vanish together. The
    key is not looked up first: a replay is rare, and the unique key catches it at the commit,
    which then rolls the repeated work back and answers ``replay(record)`` (422 when the key
    came with another body). A record older than 24 h is deleted and the work runs again.
    """
    for _ in range(2):
        resource_id, result = work()
        if key:
            db.session.add(
                IdempotencyRecord(
                    client_id=client_id,
                    scope=scope,
                    key=key,
                    body_hash=fingerprint,
                    resource_id=resource_id,
                    created_at=utcnow(),
                )
            )
        try:
            db.session.commit()
            return result
        except IntegrityError:
            db.session.rollback()
            stored = find(client_id, scope, key, fingerprint) if key else None
            if stored is not None:
                return replay(stored)
            if not key:
                raise
            db.session.commit()  # an expired record was deleted: the key is new again
    raise Conflict("the Idempotency-Key is being used by a concurrent request; retry")


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
