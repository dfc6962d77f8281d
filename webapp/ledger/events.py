"""Ledger events, receipts and checkpoints: their canonical bytes, hashes and signatures (§11).

Signing is done by a caller-supplied `sign(payload) -> 64-byte Ed25519 signature`, so the core
never holds a private key; verification lives in `keys.verify_signature`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from . import cbor
from .encoding import b64url_encode, hash_from_hex, is_hash_hex
from .errors import InvalidEventError

__all__ = [
    "ACTION_CATEGORIES",
    "CANONICAL_VERSION",
    "CHECKPOINT_DOMAIN",
    "CHECKPOINT_PAYLOAD_KEYS",
    "DECISION_CATEGORIES",
    "EVENT_DOMAIN",
    "EVENT_KEYS",
    "RECEIPT_PAYLOAD_KEYS",
    "SIGNATURE_ALGORITHM",
    "Sign",
    "checkpoint_hash",
    "checkpoint_payload",
    "event_from_entry",
    "event_hash",
    "event_payload",
    "issue_receipt",
    "leaf_hash_hex",
    "receipt_payload",
    "sign_checkpoint",
]

Sign = Callable[[bytes], bytes]
"""Returns the Ed25519 signature of the given bytes."""

EVENT_DOMAIN = b"ledgix.audit.event.v1"
CHECKPOINT_DOMAIN = b"ledgix.audit.checkpoint.v1"
CANONICAL_VERSION = 2
SIGNATURE_ALGORITHM = "Ed25519"

EVENT_KEYS: frozenset[str] = frozenset(
    {
        "accepted_at",
        "action_category",
        "action_metadata",
        "agent_id",
        "approved",
        "canonical_version",
        "citations",
        "confidence",
        "event_uuid",
        "evidence_chunks",
        "intent_hash",
        "policy_id",
        "policy_version_id",
        "policy_content_hash",
        "reason",
        "request_id",
        "tool_args",
        "tool_name",
    }
)
"""Exactly the keys of E, the hashed form of an event."""

RECEIPT_PAYLOAD_KEYS: frozenset[str] = frozenset(
    {
        "accepted_at",
        "event_hash",
        "event_uuid",
        "leaf_hash",
        "receipt_key_id",
        "request_id",
        "type",
        "version",
    }
)
CHECKPOINT_PAYLOAD_KEYS: frozenset[str] = frozenset(
    {
        "export_targets",
        "key_id",
        "mmd_seconds",
        "prev_checkpoint_hash",
        "root_hash",
        "signed_at",
        "tree_size",
        "type",
        "version",
    }
)

DECISION_CATEGORIES: frozenset[str] = frozenset({"clearance_decision", "review_decision"})
ACTION_CATEGORIES: frozenset[str] = DECISION_CATEGORIES | {
    "token_consumed",
    "agent_lockdown",
    "agent_release",
    "policy_registered",
    "settings_changed",
    "report_generated",
}

_TEXT_FIELDS = (
    "accepted_at",
    "action_category",
    "agent_id",
    "event_uuid",
    "intent_hash",
    "policy_id",
    "policy_version_id",
    "policy_content_hash",
    "reason",
    "request_id",
    "tool_name",
)
# The subtrees whose JSON numbers are all hashed as 64-bit floats, with their JSON type.
_FLOAT_SUBTREES = {
    "tool_args": dict,
    "action_metadata": dict,
    "citations": list,
    "evidence_chunks": list,
}


def event_from_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    """Pick E's fields out of a ledger entry (which carries more, e.g. seq and receipts)."""
    missing = sorted(EVENT_KEYS - entry.keys())
    if missing:
        raise InvalidEventError(f"ledger entry lacks {', '.join(missing)}")
    return {key: entry[key] for key in EVENT_KEYS}


def event_payload(event: Mapping[str, Any]) -> bytes:
    """cbor(E): the canonical bytes of an event, after validating its fields and types."""
    keys = set(event.keys())
    if keys != EVENT_KEYS:
        problems = []
        if EVENT_KEYS - keys:
            problems.append("missing " + ", ".join(sorted(EVENT_KEYS - keys)))
        if keys - EVENT_KEYS:
            problems.append("unexpected " + ", ".join(sorted(map(str, keys - EVENT_KEYS))))
        raise InvalidEventError("event must have exactly the §11 keys: " + "; ".join(problems))
    for key in _TEXT_FIELDS:
        if not isinstance(event[key], str):
            raise InvalidEventError(f"{key} must be a string")
    if not isinstance(event["approved"], bool):
        raise InvalidEventError("approved must be a boolean")
    version = event["canonical_version"]
    if isinstance(version, bool) or not isinstance(version, int) or version != CANONICAL_VERSION:
        raise InvalidEventError(f"canonical_version must be the integer {CANONICAL_VERSION}")
    confidence = event["confidence"]
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise InvalidEventError("confidence must be a number")
    hashed: dict[str, Any] = dict(event)
    hashed["confidence"] = float(confidence)
    for key, json_type in _FLOAT_SUBTREES.items():
        if not isinstance(event[key], json_type):
            raise InvalidEventError(f"{key} must be a JSON {json_type.__name__}")
    try:
        # The JSON subtrees' numbers become floats as they are encoded, in one pass.
        return cbor.encode(hashed, json_float_keys=_FLOAT_SUBTREES)
    except (TypeError, ValueError) as exc:
        raise InvalidEventError(str(exc)) from exc


def event_hash(event: Mapping[str, Any]) -> str:
    """hex(SHA-256("ledgix.audit.event.v1" || 0x00 || cbor(E)))."""
    return hashlib.sha256(EVENT_DOMAIN + b"\x00" + event_payload(event)).hexdigest()


def leaf_hash_hex(event_hash_hex: str) -> str:
    """The Merkle leaf of an event: hex(SHA-256(0x00 || the 32 bytes of event_hash))."""
    return hashlib.sha256(b"\x00" + hash_from_hex(event_hash_hex)).hexdigest()


def receipt_payload(
    *,
    accepted_at: str,
    event_hash: str,
    event_uuid: str,
    leaf_hash: str,
    receipt_key_id: str,
    request_id: str,
) -> bytes:
    """The signed bytes of an event receipt (type `event_receipt`, version 1)."""
    _require_text(
        accepted_at=accepted_at,
        event_uuid=event_uuid,
        receipt_key_id=receipt_key_id,
        request_id=request_id,
    )
    _require_hash(event_hash=event_hash, leaf_hash=leaf_hash)
    return cbor.encode(
        {
            "accepted_at": accepted_at,
            "event_hash": event_hash,
            "event_uuid": event_uuid,
            "leaf_hash": leaf_hash,
            "receipt_key_id": receipt_key_id,
            "request_id": request_id,
            "type": "event_receipt",
            "version": 1,
        }
    )


def issue_receipt(
    *,
    accepted_at: str,
    event_hash: str,
    event_uuid: str,
    leaf_hash: str,
    receipt_key_id: str,
    request_id: str,
    sign: Sign,
) -> dict[str, str]:
    """Sign a receipt; returns the ledger entry's receipt_* fields (payload/signature base64url)."""
    payload = receipt_payload(
        accepted_at=accepted_at,
        event_hash=event_hash,
        event_uuid=event_uuid,
        leaf_hash=leaf_hash,
        receipt_key_id=receipt_key_id,
        request_id=request_id,
    )
    return {
        "receipt_algorithm": SIGNATURE_ALGORITHM,
        "receipt_key_id": receipt_key_id,
        "receipt_payload": b64url_encode(payload),
        "receipt_signature": b64url_encode(sign(payload)),
    }


def checkpoint_payload(
    *,
    export_target: str | None,
    key_id: str,
    mmd_seconds: int,
    prev_checkpoint_hash: str,
    root_hash: str,
    signed_at: str,
    tree_size: int,
) -> bytes:
    """The signed bytes of a checkpoint; `export_targets` is `[export_target]`, or `[]` if none."""
    _require_text(key_id=key_id, signed_at=signed_at)
    if export_target is not None and not isinstance(export_target, str):
        raise ValueError("export_target must be a string")
    _require_hash(root_hash=root_hash)
    if prev_checkpoint_hash != "":
        _require_hash(prev_checkpoint_hash=prev_checkpoint_hash)
    _require_int(tree_size=tree_size, minimum=1)
    _require_int(mmd_seconds=mmd_seconds, minimum=0)
    return cbor.encode(
        {
            "export_targets": [export_target] if export_target else [],
            "key_id": key_id,
            "mmd_seconds": mmd_seconds,
            "prev_checkpoint_hash": prev_checkpoint_hash,
            "root_hash": root_hash,
            "signed_at": signed_at,
            "tree_size": tree_size,
            "type": "checkpoint",
            "version": 1,
        }
    )


def checkpoint_hash(payload: bytes) -> str:
    """hex(SHA-256("ledgix.audit.checkpoint.v1" || 0x00 || payload))."""
    return hashlib.sha256(CHECKPOINT_DOMAIN + b"\x00" + payload).hexdigest()


def sign_checkpoint(
    *,
    export_target: str | None,
    key_id: str,
    mmd_seconds: int,
    prev_checkpoint_hash: str,
    root_hash: str,
    signed_at: str,
    tree_size: int,
    sign: Sign,
) -> dict[str, Any]:
    """Build and sign a checkpoint; returns its record fields (all but checkpoint_id/export_*)."""
    payload = checkpoint_payload(
        export_target=export_target,
        key_id=key_id,
        mmd_seconds=mmd_seconds,
        prev_checkpoint_hash=prev_checkpoint_hash,
        root_hash=root_hash,
        signed_at=signed_at,
        tree_size=tree_size,
    )
    return {
        "tree_size": tree_size,
        "root_hash": root_hash,
        "checkpoint_hash": checkpoint_hash(payload),
        "prev_checkpoint_hash": prev_checkpoint_hash,
        "signature_algorithm": SIGNATURE_ALGORITHM,
        "signer_key_id": key_id,
        "checkpoint_signature": b64url_encode(sign(payload)),
        "checkpoint_payload": b64url_encode(payload),
        "signed_at": signed_at,
        "mmd_seconds": mmd_seconds,
        "export_target": export_target or "",
    }


def _require_text(**fields: object) -> None:
    for name, value in fields.items():
        if not isinstance(value, str):
            raise ValueError(f"{name} must be a string")


def _require_hash(**fields: object) -> None:
    for name, value in fields.items():
        if not is_hash_hex(value):
            raise ValueError(f"{name} must be 64 lowercase hex digits")


def _require_int(*, minimum: int, **fields: object) -> None:
    for name, value in fields.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ValueError(f"{name} must be an integer >= {minimum}")
