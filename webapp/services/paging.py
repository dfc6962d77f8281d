"""Keyset paging, newest first, over a tenant-scoped query: one implementation for every log.

The cursor is ``{"t": timestamp, "id": key}``: the time and the id of the last row shown, so a
page never skips or repeats rows when new ones arrive (CONTRACT §1, list endpoints).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Select, and_, or_
from sqlalchemy.orm import InstrumentedAttribute

from webapp.errors import InvalidInput
from webapp.extensions import db
from webapp.models import iso


def parse_position(cursor: dict[str, Any]) -> tuple[datetime, str]:
    """A keyset cursor ``{"t": timestamp, "id": key}`` back into values; 400 when malformed."""
    try:
        at = datetime.strptime(str(cursor["t"]), "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
        return at, str(cursor["id"])
    except (KeyError, TypeError, ValueError):
        raise InvalidInput(
            "cursor is not valid", errors=[{"field": "cursor", "message": "is not valid"}]
        ) from None


def newest_first(
    query: Select,
    at: InstrumentedAttribute,
    key: InstrumentedAttribute,
    *,
    limit: int,
    cursor: dict[str, Any] | None,
) -> tuple[list[Any], dict[str, Any] | None]:
    """One page of ``query`` ordered by (``at``, ``key``) descending; (rows, next cursor)."""
    if cursor is not None:
        last_at, last_key = parse_position(cursor)
        query = query.where(or_(at < last_at, and_(at == last_at, key < last_key)))
    rows = list(db.session.scalars(query.order_by(at.desc(), key.desc()).limit(limit + 1)))
    if len(rows) <= limit:
        return rows, None
    rows = rows[:limit]
    return rows, {"t": iso(getattr(rows[-1], at.key)), "id": getattr(rows[-1], key.key)}
