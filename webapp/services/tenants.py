"""Tenants, API keys and dashboard users: creation, authentication and revocation."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from flask import current_app
from sqlalchemy import select, update

from webapp.errors import Conflict, Forbidden, InvalidInput, NotFound, field_error
from webapp.extensions import db
from webapp.models import API_KEY_SCOPES, ROLES, ApiKey, Tenant, User, iso, short_id, utcnow

API_KEY_PREFIX = "vk_"
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_hasher = PasswordHasher()
_dummy_hash: str | None = None


@dataclass(frozen=True)
class Principal:
    """Who an API request is from: the tenant and the key that authenticated it."""

    client_id: str
    key_id: str
    scopes: frozenset[str] = frozenset(API_KEY_SCOPES)
    label: str = ""

    def may(self, scope: str) -> bool:
        return scope in self.scopes


def create_tenant(name: str) -> tuple[Tenant, str]:
    """Create a tenant with its first API key; the raw key is returned only here.

    ``name`` comes validated and stripped (``NewTenant``)."""
    tenant = Tenant(client_id=short_id("cl", 10), name=name)
    db.session.add(tenant)
    db.session.flush()
    _, raw = _new_api_key(tenant.client_id, "initial key")
    db.session.commit()
    return tenant, raw


def list_tenants() -> list[Tenant]:
    return list(db.session.scalars(select(Tenant).order_by(Tenant.created_at)))


def get_tenant(client_id: str) -> Tenant:
    tenant = db.session.get(Tenant, client_id)
    if tenant is None:
        raise NotFound("no such tenant")
    return tenant


def create_api_key(
    client_id: str, label: str = "", scopes: Sequence[str] = API_KEY_SCOPES
) -> tuple[ApiKey, str]:
    """A new key for the tenant; the raw key is returned once and stored only as a hash.

    ``label`` and ``scopes`` come validated (``NewApiKey``): scopes known, in canonical order.
    """
    get_tenant(client_id)
    key, raw = _new_api_key(client_id, label, list(scopes))
    db.session.commit()
    return key, raw


def list_api_keys(client_id: str) -> list[ApiKey]:
    get_tenant(client_id)
    return list(db.session.scalars(ApiKey.for_tenant(client_id).order_by(ApiKey.created_at)))


def revoke_api_key(client_id: str, key_id: str) -> None:
    """Revoke at once: authentication reads the row on every request, so nothing caches it."""
    key = ApiKey.get_for_tenant(client_id, key_id, "API key")
    if key.revoked_at is None:
        key.revoked_at = utcnow()
        db.session.commit()


def authenticate_api_key(raw: str | None) -> Principal | None:
    """The principal for a raw key, or None when it is missing, unknown or revoked."""
    if not raw or not raw.startswith(API_KEY_PREFIX) or len(raw) > 200:
        return None
    digest = hash_api_key(raw)
    row = db.session.execute(
        select(
            ApiKey.key_id,
            ApiKey.client_id,
            ApiKey.key_hash,
            ApiKey.revoked_at,
            ApiKey.scopes,
            ApiKey.label,
        ).where(ApiKey.key_hash == digest)
    ).first()
    if row is None or row.revoked_at is not None:
        return None
    if not hmac.compare_digest(row.key_hash, digest):
        return None
    return Principal(
        client_id=row.client_id,
        key_id=row.key_id,
        # Unknown words in the column grant nothing: fail closed.
        scopes=frozenset(s for s in (row.scopes or "").split() if s in API_KEY_SCOPES),
        label=row.label or "",
    )


def hash_api_key(raw: str) -> str:
    """HMAC-SHA256 with a server-side pepper: a stolen table does not yield usable keys."""
    pepper = current_app.extensions["vault"].api_key_pepper
    return hmac.new(pepper, raw.encode(), hashlib.sha256).hexdigest()


def create_user(client_id: str, email: str, password: str, role: str) -> User:
    """A dashboard user; the password is stored as an Argon2 hash."""
    get_tenant(client_id)
    email = (email or "").strip().lower()
    errors = []
    if not _EMAIL.match(email) or len(email) > 320:
        errors.append({"field": "email", "message": "must be an email address"})
    if not isinstance(password, str) or len(password) < 12 or len(password) > 512:
        errors.append({"field": "password", "message": "must be 12 to 512 characters"})
    if role not in ROLES:
        errors.append({"field": "role", "message": f"must be one of {', '.join(ROLES)}"})
    if errors:
        raise InvalidInput(errors[0]["field"] + " " + errors[0]["message"], errors=errors)
    if db.session.scalar(select(User.user_id).where(User.email == email)):
        raise Conflict("a user with this email already exists")
    user = User(
        user_id=short_id("usr", 10),
        client_id=client_id,
        email=email,
        password_hash=_hasher.hash(password),
        role=role,
    )
    db.session.add(user)
    db.session.commit()
    return user


def list_users(client_id: str) -> list[User]:
    return list(db.session.scalars(User.for_tenant(client_id).order_by(User.created_at)))


def set_user_role(
    client_id: str, user_id: str, role: str, *, acting_user_id: str | None = None
) -> User:
    """Change a user's role. Nobody changes their own, and the tenant keeps an active owner."""
    if role not in ROLES:
        raise field_error("role", f"must be one of {', '.join(ROLES)}")
    user = User.get_for_tenant(client_id, user_id, "user")
    if role == user.role:
        return user
    if user_id == acting_user_id:
        # Guard the last way back in: an owner cannot demote themselves by accident.
        raise Forbidden("you cannot change your own role; ask another owner")
    if user.role == "owner":
        _keep_an_owner(client_id, user_id)
    user.role = role
    db.session.commit()
    return user


def disable_user(client_id: str, user_id: str, *, acting_user_id: str | None = None) -> None:
    """Disable a user (signed out at once). Nobody disables themselves, nor the last owner."""
    user = User.get_for_tenant(client_id, user_id, "user")
    if user_id == acting_user_id:
        raise Forbidden("you cannot disable your own account")
    if user.role == "owner" and user.is_active:
        _keep_an_owner(client_id, user_id)
    db.session.execute(
        update(User)
        .where(User.user_id == user.user_id)
        # A new session generation: every session of the user ends at its next request.
        .values(disabled_at=utcnow(), session_generation=User.session_generation + 1)
    )
    db.session.commit()


def _keep_an_owner(client_id: str, leaving_user_id: str) -> None:
    """Refuse a change that would leave the tenant with no active owner to manage it.

    The other owners' rows are locked (PostgreSQL) so two owners demoting each other at the
    same moment cannot both succeed; SQLite has a single writer anyway.
    """
    others = db.session.scalars(
        select(User.user_id)
        .where(
            User.client_id == client_id,
            User.role == "owner",
            User.disabled_at.is_(None),
            User.user_id != leaving_user_id,
        )
        .with_for_update()
    ).all()
    if not others:
        db.session.rollback()
        raise Conflict("the tenant must keep at least one active owner")


def check_password(email: str, password: str) -> User | None:
    """The active user with these credentials, or None; takes the same time either way."""
    global _dummy_hash
    email = (email or "").strip().lower()
    user = db.session.scalar(select(User).where(User.email == email))
    if user is None and _dummy_hash is None:
        # Verified against when the user does not exist, so timing does not tell; made on
        # first use because an Argon2 hash costs 64 MiB and a third of a second.
        _dummy_hash = _hasher.hash("not-a-real-password")
    try:
        _hasher.verify(user.password_hash if user else _dummy_hash, password or "")
    except (VerificationError, InvalidHashError):
        return None
    if user is None or not user.is_active:
        return None
    return user


def tenant_view(tenant: Tenant) -> dict:
    return {
        "client_id": tenant.client_id,
        "name": tenant.name,
        "created_at": iso(tenant.created_at),
    }


def api_key_view(key: ApiKey) -> dict:
    return {
        "key_id": key.key_id,
        "prefix": key.prefix,
        "label": key.label,
        "scopes": key.scope_list,
        "created_at": iso(key.created_at),
        "revoked_at": iso(key.revoked_at),
    }


def user_view(user: User) -> dict:
    return {
        "user_id": user.user_id,
        "client_id": user.client_id,
        "email": user.email,
        "role": user.role,
        "created_at": iso(user.created_at),
    }


def _new_api_key(client_id: str, label: str, scopes: list[str] | None = None) -> tuple[ApiKey, str]:
    raw = API_KEY_PREFIX + secrets.token_urlsafe(32)
    key = ApiKey(
        key_id=short_id("key", 8),
        client_id=client_id,
        prefix=raw[:11],
        key_hash=hash_api_key(raw),
        label=label,
        scopes=" ".join(scopes or API_KEY_SCOPES),
    )
    db.session.add(key)
    db.session.flush()
    return key, raw
