"""Signed, expiring links to a request's review page, for notification messages (issue 15).

A link names the tenant and the request and carries an HMAC (a key derived from the secret key
for this purpose only) and its time of signing; it is good for the review's lifetime
(``VAULT_REVIEW_TTL_SECONDS``) plus an hour. Opening one still needs a signed-in user of the
same tenant, and only leads (with a GET) to the review page: nothing is ever decided by it.
"""

from __future__ import annotations

from itsdangerous import BadData, URLSafeTimedSerializer

from webapp.errors import NotFound
from webapp.runtime import vault
from webapp.secrets import derived_key

SALT = "review-link"
GRACE_SECONDS = 3600


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(derived_key(vault().config, "review-links"), salt=SALT)


def sign(client_id: str, request_id: str) -> str:
    """The token of a link to ``request_id``'s review page."""
    return _serializer().dumps({"c": client_id, "r": request_id})


def link(public_url: str, client_id: str, request_id: str) -> str:
    return f"{public_url.rstrip('/')}/dashboard/reviews/link/{sign(client_id, request_id)}"


def open_link(token: str, client_id: str) -> str:
    """The request id a link leads to, for a user of ``client_id``; NotFound when the link is
    forged, expired, malformed or for another tenant (all alike, so nothing is revealed)."""
    max_age = vault().config.review_ttl_seconds + GRACE_SECONDS
    try:
        value = _serializer().loads(token, max_age=max_age) if len(token) <= 512 else None
    except BadData:
        value = None
    if (
        not isinstance(value, dict)
        or value.get("c") != client_id
        or not isinstance(value.get("r"), str)
    ):
        raise NotFound("this review link is not valid or has expired")
    return value["r"]
