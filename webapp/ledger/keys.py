"""Ed25519 verification keys: public JWKs (CONTRACT §4), proof-bundle key entries, signatures."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from nacl.exceptions import BadSignatureError, CryptoError
from nacl.signing import VerifyKey

from .encoding import b64url_decode, b64url_encode
from .errors import SignatureError

__all__ = [
    "PUBLIC_KEY_SIZE",
    "SIGNATURE_SIZE",
    "bundle_key_entry",
    "key_from_bundle_entry",
    "public_jwk",
    "public_key_from_jwk",
    "verify_signature",
]

PUBLIC_KEY_SIZE = 32
SIGNATURE_SIZE = 64


def public_jwk(public_key: bytes, key_id: str) -> dict[str, str]:
    """The JWKS entry of one raw 32-byte Ed25519 public key."""
    if len(public_key) != PUBLIC_KEY_SIZE:
        raise ValueError("an Ed25519 public key is 32 bytes")
    return {
        "kty": "OKP",
        "crv": "Ed25519",
        "x": b64url_encode(public_key),
        "kid": key_id,
        "use": "sig",
        "alg": "EdDSA",
    }


def public_key_from_jwk(jwk: Mapping[str, Any]) -> bytes:
    """The raw 32-byte key of an Ed25519 public JWK; ValueError if it is anything else."""
    if not isinstance(jwk, Mapping):
        raise ValueError("a JWK must be a JSON object")
    if jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
        raise ValueError("JWK is not an OKP Ed25519 key")
    if jwk.get("alg", "EdDSA") != "EdDSA" or jwk.get("use", "sig") != "sig":
        raise ValueError("JWK is not meant for EdDSA signatures")
    if "d" in jwk:
        raise ValueError("JWK holds a private key")
    key = b64url_decode(jwk.get("x", ""))
    if len(key) != PUBLIC_KEY_SIZE:
        raise ValueError("JWK x is not a 32-byte Ed25519 public key")
    return key


def bundle_key_entry(
    jwk: Mapping[str, Any], *, active_from: str, retired_at: str | None = None
) -> dict[str, Any]:
    """A proof bundle's `keys` item: the JWK travels as base64url of its JSON, kid included;
    `retired_at` is left out (not null) while the key is active."""
    public_key_from_jwk(jwk)  # refuse to publish anything but a public Ed25519 key
    if not isinstance(jwk.get("kid"), str) or not jwk["kid"]:
        raise ValueError("JWK needs a kid")
    text = json.dumps(dict(jwk), separators=(",", ":"), sort_keys=True)
    entry = {
        "key_id": jwk["kid"],
        "algorithm": "Ed25519",
        "public_jwk": b64url_encode(text.encode("utf-8")),
        "active_from": active_from,
    }
    if retired_at is not None:
        entry["retired_at"] = retired_at
    return entry


def key_from_bundle_entry(entry: Mapping[str, Any]) -> tuple[str, bytes]:
    """(key_id, raw public key) of a bundle key entry, after checking that its parts agree."""
    if not isinstance(entry, Mapping):
        raise ValueError("a key entry must be an object")
    key_id = entry.get("key_id")
    if not isinstance(key_id, str) or not key_id:
        raise ValueError("key entry has no key_id")
    if entry.get("algorithm") != "Ed25519":
        raise ValueError(f"key {key_id}: algorithm must be Ed25519")
    try:
        jwk = json.loads(b64url_decode(entry.get("public_jwk", "")).decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"key {key_id}: public_jwk is not base64url JSON") from exc
    if not isinstance(jwk, dict) or jwk.get("kid") != key_id:
        raise ValueError(f"key {key_id}: public_jwk kid does not match key_id")
    return key_id, public_key_from_jwk(jwk)


def verify_signature(public_key: bytes, payload: bytes, signature: bytes) -> None:
    """Check an Ed25519 signature over `payload`; raises SignatureError if it does not verify."""
    if len(public_key) != PUBLIC_KEY_SIZE:
        raise SignatureError("an Ed25519 public key is 32 bytes")
    if len(signature) != SIGNATURE_SIZE:
        raise SignatureError("an Ed25519 signature is 64 bytes")
    try:
        VerifyKey(bytes(public_key)).verify(bytes(payload), bytes(signature))
    except BadSignatureError as exc:
        raise SignatureError("signature does not verify") from exc
    except CryptoError as exc:  # e.g. a public key that is not a valid curve point
        raise SignatureError(f"cannot verify: {exc}") from exc
