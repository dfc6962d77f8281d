"""Idempotency-Key handling for POSTs whose answer can be replayed (CONTRACT §1)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

from sqlalchemy.exc import IntegrityError

from webapp.errors import Conflict, Unprocessable
from webapp.extensions import db
from webapp.models import IdempotencyRecord, utcnow

WINDOW = timedelta(hours=24)
T = TypeVar("T")


def in_transaction(
    client_id: str,
    scope: str,
    key: str | None,
    fingerprint: str,
    work: Callable[[], tuple[str, T]],
    replay: Callable[[IdempotencyRecord], T],
    *,
    keep: Callable[[T], tuple[dict[str, Any], int]] | None = None,
    look_first: bool = True,
) -> T:
    """Run ``work`` and commit it together with the record of its Idempotency-Key.

    The one way every POST that takes an Idempotency-Key (CONTRACT §1) is made idempotent.
    ``work`` stages its rows without committing and returns (resource id, result); the caller
    does what must follow a commit (queueing, hooks) with the result. The key's record joins the
    same transaction, so the work and the key commit or vanish together. ``keep`` gives the
    answer to store with the record, for endpoints whose replay repeats the first answer rather
    than showing the resource's current state.

    An earlier use of the key within 24 h answers ``replay(record)`` without running the work
    (422 ``idempotency_mismatch`` when it came with another body). A concurrent first use is
    caught by the unique key at the commit, which then rolls the repeated work back and
    replays. A record older than 24 h is deleted and the work runs again. ``look_first=False``
    skips the first look-up, for work that a repeat cannot make fail (the clearance fast lane,
    whose every read is cached): the commit's unique key alone then finds the replay.
    """
    if key and look_first:
        stored = find(client_id, scope, key, fingerprint)
        if stored is not None:
            return replay(stored)
    for _ in range(2):
        resource_id, result = work()
        if key:
            answer, status = keep(result) if keep is not None else (None, 200)
            db.session.add(
                IdempotencyRecord(
                    client_id=client_id,
                    scope=scope,
                    key=key,
                    body_hash=fingerprint,
                    resource_id=resource_id,
                    status_code=status,
                    response=answer,
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
        except Exception:
            db.session.rollback()  # nothing half-written stays in the session either
            raise
    raise Conflict("the Idempotency-Key is being used by a concurrent request; retry")


def replay_stored(record: IdempotencyRecord) -> tuple[dict[str, Any], int]:
    """The replay of an endpoint whose first answer was kept (``keep``)."""
    return record.response or {}, record.status_code


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
