"""RFC 8785 canonical JSON and the hashes the contract defines over it."""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785

from webapp.errors import InvalidInput


def canonical_json(value: Any) -> bytes:
    return rfc8785.dumps(value)


def intent_hash(tool_args: dict[str, Any]) -> str:
    """SHA-256 hex of the JCS form of the arguments (the token's ``tool_args_hash``)."""
    return hashlib.sha256(canonical_json(tool_args)).hexdigest()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def body_fingerprint(value: Any) -> str:
    """A stable fingerprint of a request body, for idempotency comparisons.

    A body JCS cannot encode (an integer beyond ±(2^53−1) anywhere, even in a field the
    endpoint ignores) is a 400, not a 500."""
    try:
        return hashlib.sha256(canonical_json(value)).hexdigest()
    except rfc8785.CanonicalizationError:
        raise InvalidInput(
            "the body holds a number outside ±(2^53−1) or text that is not valid UTF-8"
        ) from None
