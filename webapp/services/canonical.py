"""RFC 8785 canonical JSON and the hashes the contract defines over it."""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785


def canonical_json(value: Any) -> bytes:
    return rfc8785.dumps(value)


def intent_hash(tool_args: dict[str, Any]) -> str:
    """SHA-256 hex of the JCS form of the arguments (the token's ``tool_args_hash``)."""
    return hashlib.sha256(canonical_json(tool_args)).hexdigest()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def body_fingerprint(value: Any) -> str:
    """A stable fingerprint of a request body, for idempotency comparisons."""
    return hashlib.sha256(canonical_json(value)).hexdigest()
