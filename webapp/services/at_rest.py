"""Encryption at rest for ledger content: XChaCha20-Poly1305, a random nonce per row.

The tenant and the event are the associated data, so a sealed blob moved to another row or
tenant fails to open instead of being read as someone else's record.
"""

from __future__ import annotations

import json
import os
from typing import Any

from nacl.bindings import (
    crypto_aead_xchacha20poly1305_ietf_decrypt,
    crypto_aead_xchacha20poly1305_ietf_encrypt,
)
from nacl.exceptions import CryptoError

NONCE_BYTES = 24
FORMAT_V1 = b"\x01"


class SealedDataError(ValueError):
    """A sealed blob failed authentication: it was altered, moved, or the key is wrong."""


def seal(key: bytes, associated: str, value: Any) -> bytes:
    """Encrypt a JSON-serialisable value, bound to ``associated``."""
    nonce = os.urandom(NONCE_BYTES)
    plaintext = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    ciphertext = crypto_aead_xchacha20poly1305_ietf_encrypt(
        plaintext, FORMAT_V1 + associated.encode(), nonce, key
    )
    return FORMAT_V1 + nonce + ciphertext


def open_sealed(key: bytes, associated: str, blob: bytes) -> Any:
    """Decrypt and authenticate; raise SealedDataError on any mismatch."""
    if not blob or blob[:1] != FORMAT_V1 or len(blob) < 1 + NONCE_BYTES + 16:
        raise SealedDataError("unknown sealed format")
    nonce, ciphertext = blob[1 : 1 + NONCE_BYTES], blob[1 + NONCE_BYTES :]
    try:
        plaintext = crypto_aead_xchacha20poly1305_ietf_decrypt(
            ciphertext, FORMAT_V1 + associated.encode(), nonce, key
        )
    except CryptoError:
        raise SealedDataError("sealed data failed authentication") from None
    try:
        return json.loads(plaintext)
    except (RecursionError, ValueError):
        # Authentic, but written before content was bounded: as unusable as a forged blob.
        raise SealedDataError("sealed data cannot be decoded") from None


def ledger_associated_data(client_id: str, event_uuid: str) -> str:
    return f"ledger\x00{client_id}\x00{event_uuid}"
