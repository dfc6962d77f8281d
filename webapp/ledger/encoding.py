"""Text encodings of ledger bytes: unpadded base64url and lowercase hex, both parsed strictly."""

from __future__ import annotations

import base64
import binascii
import re

__all__ = ["b64url_decode", "b64url_encode", "hash_from_hex", "is_hash_hex"]

_HASH_HEX = re.compile(r"[0-9a-f]{64}")
_B64URL = re.compile(r"[A-Za-z0-9_-]*")


def b64url_encode(data: bytes) -> str:
    """base64url without padding (RFC 4648 §5), as every payload and signature travels."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Inverse of `b64url_encode`; refuses padding, foreign characters and non-canonical tails."""
    if not isinstance(text, str) or not _B64URL.fullmatch(text) or len(text) % 4 == 1:
        raise ValueError("not unpadded base64url")
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as exc:
        raise ValueError("not unpadded base64url") from exc
    # Unused trailing bits must be zero, so that each byte string has exactly one spelling.
    if b64url_encode(data) != text:
        raise ValueError("base64url is not in canonical form")
    return data


def is_hash_hex(text: object) -> bool:
    """True for a SHA-256 digest written as 64 lowercase hex digits."""
    return isinstance(text, str) and _HASH_HEX.fullmatch(text) is not None


def hash_from_hex(text: object) -> bytes:
    """The 32 bytes of a lowercase-hex SHA-256 digest; ValueError for anything else."""
    if not is_hash_hex(text):
        raise ValueError(f"not a lowercase hex SHA-256 digest: {str(text)[:80]!r}")
    return bytes.fromhex(text)  # type: ignore[arg-type]
