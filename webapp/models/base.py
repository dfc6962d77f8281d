"""Shared column types and the tenant-scoping mixin every tenant-owned model uses."""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import DateTime, String, select
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from webapp.errors import NotFound
from webapp.extensions import db

T = TypeVar("T", bound="TenantScoped")


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


def short_id(prefix: str, nbytes: int = 10) -> str:
    return f"{prefix}_{secrets.token_hex(nbytes)}"


def iso(value: datetime | None) -> str | None:
    """RFC 3339, UTC, ``Z``, microseconds: the one timestamp format of the API."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class UTCDateTime(TypeDecorator):
    """Aware UTC datetimes on every backend (SQLite keeps no zone of its own)."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime stored; use utcnow()")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC)


class TenantScoped:
    """Every tenant-owned row carries ``client_id``; reads go through these helpers only."""

    client_id: Mapped[str] = mapped_column(String(64), index=True)

    @classmethod
    def for_tenant(cls: type[T], client_id: str) -> Any:
        return select(cls).where(cls.client_id == client_id)

    @classmethod
    def get_for_tenant(cls: type[T], client_id: str, ident: Any, what: str = "resource") -> T:
        """The row with this primary key in this tenant, or NotFound (same for other tenants)."""
        row = db.session.get(cls, ident)
        if row is None or row.client_id != client_id:
            raise NotFound(f"no such {what}")
        return row


def render_migration_item(type_: str, obj: Any, autogen_context: Any) -> str | bool:
    """Autogenerate writes our column types as plain SQLAlchemy ones, so that migrations
    never import application code."""
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime()"
    return False
