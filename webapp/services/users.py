"""Dashboard sessions and passwords: a session ends when its user's generation moves on.

A session names the user *and* the session generation it was made in (``User.get_id``). Signing
out, changing the password and disabling the user bump the generation, so every session made
before stops working at its next request, wherever it is (the cookie is signed, not stored:
without this an old cookie would open the dashboard after sign-out).
"""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import update

from webapp.errors import InvalidInput
from webapp.extensions import db
from webapp.models import User

_hasher = PasswordHasher()
MIN_PASSWORD, MAX_PASSWORD = 12, 512


def session_id(user: User) -> str:
    """What the session cookie holds for ``user``: its id and its session generation."""
    return f"{user.user_id}:{user.session_generation}"


def load_session_user(value: str) -> User | None:
    """The active user a session names, or None when the session has ended."""
    user_id, _, generation = (value or "").partition(":")
    if not user_id or not (generation.isascii() and generation.isdigit()):
        return None  # a cookie from before generations existed: sign in again
    user = db.session.get(User, user_id)
    if user is None or not user.is_active or user.session_generation != int(generation):
        return None
    return user


def end_sessions(user_id: str) -> None:
    """End every session of the user (sign-out, disabling); commits."""
    db.session.execute(
        update(User)
        .where(User.user_id == user_id)
        .values(session_generation=User.session_generation + 1)
    )
    db.session.commit()


def change_password(user: User, current_password: str, new_password: str) -> User:
    """Change the user's password after checking the current one; ends every session.

    400 (field ``current_password``) when the current password is not right, 400 (field
    ``new_password``) when the new one is not 12 to 512 characters or equals the current one.
    Every session of the user ends, the caller's included: to keep the caller signed in, call
    ``flask_login.login_user(user)`` with the returned user (it carries the new generation).
    """
    try:
        _hasher.verify(user.password_hash, current_password or "")
    except (VerificationError, InvalidHashError):
        raise _invalid("current_password", "is not right") from None
    if not isinstance(new_password, str) or not MIN_PASSWORD <= len(new_password) <= MAX_PASSWORD:
        raise _invalid("new_password", f"must be {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    if new_password == current_password:
        raise _invalid("new_password", "must differ from the current password")
    db.session.execute(
        update(User)
        .where(User.user_id == user.user_id)
        .values(
            password_hash=_hasher.hash(new_password),
            session_generation=User.session_generation + 1,
        )
    )
    db.session.commit()
    return db.session.get(User, user.user_id)


def _invalid(field: str, message: str) -> InvalidInput:
    return InvalidInput(f"{field} {message}", errors=[{"field": field, "message": message}])
