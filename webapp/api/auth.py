"""Authentication of API calls: tenant keys, the operator key, and rate limiting."""

from __future__ import annotations

import hmac

from flask import Blueprint, g, request

from webapp.errors import Forbidden, NotFound, Unauthorized
from webapp.runtime import vault
from webapp.services import key_cache, ratelimit

# The one table of which API key scope a tenant endpoint needs (CONTRACT §12), by URL path:
# the path itself or anything below it. Every path not listed needs ``manage``, so a new
# endpoint is closed to agent-only and review-only keys until it is listed here.
SCOPE_BY_PATH: tuple[tuple[str, str], ...] = (
    ("/request-clearance", "agent"),
    ("/clearance-status", "agent"),
    ("/consume-token", "agent"),
    ("/mint-token", "agent"),
    ("/reviews", "review"),
)
DEFAULT_SCOPE = "manage"


def required_scope(path: str) -> str:
    """The scope a tenant key needs for ``path``; ``manage`` unless the table says otherwise."""
    for prefix, scope in SCOPE_BY_PATH:
        if path == prefix or path.startswith(prefix + "/"):
            return scope
    return DEFAULT_SCOPE


def protect_with_tenant_key(bp: Blueprint) -> None:
    """Every route of ``bp`` needs ``X-Vault-API-Key`` with the path's scope, and is rate
    limited per key."""

    @bp.before_request
    def _authenticate() -> None:
        principal = key_cache.authenticate(request.headers.get("X-Vault-API-Key"))
        if principal is None:
            raise Unauthorized("a valid X-Vault-API-Key header is required")
        g.client_id = principal.client_id
        g.key_id = principal.key_id
        g.key_label = principal.label
        request.max_content_length = vault().config.max_body_bytes
        g.allowance = ratelimit.take(f"key:{principal.key_id}", fail_open=limiter_may_fail_open())
        needed = required_scope(request.path)
        if not principal.may(needed):
            raise Forbidden(f"this API key lacks the {needed!r} scope this endpoint needs")

    bp.after_request(_allowance_headers)


# Requests that can neither create an approval nor mint a token, and so may run unmetered
# while Redis is down (issue 16 §2): reads, and burning a token (it only ever ends one).
# Everything else that writes (request-clearance, mint-token, review decisions, policies,
# settings...) stays refused with 503 when the limiter cannot count it.
FAIL_OPEN_POSTS = frozenset({"/consume-token"})


def limiter_may_fail_open() -> bool:
    return request.method in ("GET", "HEAD") or (
        request.method == "POST" and request.path in FAIL_OPEN_POSTS
    )


def limit_public(bp: Blueprint) -> None:
    """Public endpoints are rate limited per client IP."""

    @bp.before_request
    def _limit() -> None:
        g.allowance = ratelimit.take(f"ip:{request.remote_addr}", fail_open=limiter_may_fail_open())

    bp.after_request(_allowance_headers)


def protect_with_admin_key(bp: Blueprint) -> None:
    """Operator endpoints: Bearer or X-Admin-API-Key; all 404 when no admin key is set."""

    @bp.before_request
    def _authenticate() -> None:
        expected = vault().config.admin_api_key
        if not expected:
            raise NotFound("no such resource")
        supplied = request.headers.get("X-Admin-API-Key", "")
        auth = request.headers.get("Authorization", "")
        if not supplied and auth.lower().startswith("bearer "):
            supplied = auth[7:].strip()
        if not supplied or not hmac.compare_digest(supplied.encode(), expected.encode()):
            raise Unauthorized("a valid operator key is required")
        request.max_content_length = vault().config.max_body_bytes


def current_client_id() -> str:
    return g.client_id


def current_key_channel() -> str:
    """How a decision arrived, for the record: the API key's label (or its id)."""
    label = getattr(g, "key_label", "") or ""
    return f"api key {label}" if label else f"api key {g.key_id}"


def _allowance_headers(response):  # noqa: ANN001, ANN202
    allowance = getattr(g, "allowance", None)
    if allowance is not None:
        for name, value in allowance.headers().items():
            response.headers.setdefault(name, value)
    return response
