"""Tenants, their API keys and dashboard users, and the signing-key registry."""

from __future__ import annotations

from datetime import datetime

from flask_login import UserMixin
from sqlalchemy import ForeignKey, Index, Integer, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from webapp.extensions import db
from webapp.models.base import TenantScoped, UTCDateTime, utcnow

ROLES = ("owner", "reviewer", "viewer")
# What a tenant API key may call (CONTRACT §12); a key made without a choice has all three.
API_KEY_SCOPES = ("agent", "review", "manage")
ALL_SCOPES = " ".join(API_KEY_SCOPES)


class Tenant(db.Model):
    __tablename__ = "tenants"

    client_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ApiKey(TenantScoped, db.Model):
    """A tenant API key; only an HMAC of the key is stored, with a short displayable prefix."""

    __tablename__ = "api_keys"

    key_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tenants.client_id", ondelete="CASCADE"), index=True
    )
    prefix: Mapped[str] = mapped_column(String(32))
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(200), default="")
    # Space-separated, in API_KEY_SCOPES order; rows made before scopes existed get all three.
    scopes: Mapped[str] = mapped_column(String(64), default=ALL_SCOPES, server_default=ALL_SCOPES)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)

    @property
    def scope_list(self) -> list[str]:
        return [s for s in API_KEY_SCOPES if s in (self.scopes or "").split()]


class User(TenantScoped, UserMixin, db.Model):
    """A dashboard user of one tenant."""

    __tablename__ = "users"
    __table_args__ = (UniqueConstraint("email", name="uq_users_email"),)

    user_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tenants.client_id", ondelete="CASCADE"), index=True
    )
    email: Mapped[str] = mapped_column(String(320))
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    disabled_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # Bumped by sign-out, a password change and disabling; a session names the generation it
    # was made in, so bumping it ends every older session (services.users).
    session_generation: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    def get_id(self) -> str:
        # What Flask-Login keeps in the session: the generation makes sign-out final.
        return f"{self.user_id}:{self.session_generation}"

    @property
    def is_active(self) -> bool:  # type: ignore[override]
        return self.disabled_at is None


class SigningKey(db.Model):
    """Every public key that ever signed; retired keys stay so old tokens and receipts verify."""

    __tablename__ = "signing_keys"
    __table_args__ = (Index("ix_signing_keys_active_from", "active_from"),)

    key_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    algorithm: Mapped[str] = mapped_column(String(16), default="Ed25519")
    public_key: Mapped[bytes] = mapped_column(LargeBinary(32))
    active_from: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    retired_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
