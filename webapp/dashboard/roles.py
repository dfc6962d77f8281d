"""What each dashboard role may do: owners everything, reviewers decide reviews, viewers read."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from flask import abort
from flask_login import current_user, login_required

F = TypeVar("F", bound=Callable[..., Any])

# An action names what the user does, so routes say `@allowed_to("review")`, not role lists.
ABILITIES: dict[str, frozenset[str]] = {
    "read": frozenset({"owner", "reviewer", "viewer"}),
    "review": frozenset({"owner", "reviewer"}),
    "manage": frozenset({"owner"}),
}


def can(action: str, user: Any = None) -> bool:
    """Whether the (current) user's role allows ``action``; unknown actions are refused."""
    user = user if user is not None else current_user
    if not getattr(user, "is_authenticated", False):
        return False
    return getattr(user, "role", None) in ABILITIES.get(action, frozenset())


def allowed_to(action: str) -> Callable[[F], F]:
    """A view decorator: sign-in required, then 403 unless the role allows ``action``."""
    if action not in ABILITIES:
        raise ValueError(f"unknown dashboard action {action!r}")

    def decorate(view: F) -> F:
        @functools.wraps(view)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not can(action):
                abort(403)
            return view(*args, **kwargs)

        return login_required(wrapper)  # type: ignore[return-value]

    return decorate
