"""Writing ledger events with their receipts, and reading them back decrypted.

Events are appended inside the caller's transaction (the state change and its event commit
together); sealing into the Merkle tree happens later, in ``services.sealing``.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select, text

from webapp.extensions import db
from webapp.ledger import events as ledger_events
from webapp.ledger.encoding import b64url_encode
from webapp.models import LedgerEvent, iso, utcnow
from webapp.runtime import vault
from webapp.services import keys
from webapp.services.at_rest import SealedDataError, ledger_associated_data, open_sealed, seal
from webapp.services.canonical import intent_hash

log = logging.getLogger(__name__)

SEALED_FIELDS = ("tool_args", "reason", "citations", "evidence_chunks", "action_metadata")
NON_DECISION = (
    "token_consumed",
    "agent_lockdown",
    "agent_release",
    "policy_registered",
    "settings_changed",
    "report_generated",
)


@dataclass
class EventContent:
    """What a service knows about an event; the ledger adds ids, hashes and the receipt."""

    action_category: str
    request_id: str = ""
    agent_id: str = ""
    tool_name: str = ""
    tool_args: dict | None = None
    reason: str = ""
    citations: list | None = None
    evidence_chunks: list | None = None
    action_metadata: dict | None = None
    policy_id: str = ""
    policy_version_id: str = ""
    policy_content_hash: str = ""
    confidence: float = 0.0
    confidence_bucket: str | None = None
    decision_status: str | None = None
    approved: bool = False


@dataclass(frozen=True)
class AppendedEvent:
    """What the caller may need of an event it appended (the row is written, not returned)."""

    event_uuid: str
    request_id: str
    event_hash: str
    leaf_hash: str


def append_event(client_id: str, content: EventContent) -> AppendedEvent:
    """Hash, sign a receipt for, encrypt and insert one event in the session's transaction
    (no commit)."""
    if content.action_category not in ledger_events.ACTION_CATEGORIES:
        raise ValueError(f"unknown action category {content.action_category}")
    decision = content.action_category in ledger_events.DECISION_CATEGORIES
    tool_args = content.tool_args if content.tool_args is not None else {}
    event_uuid = str(uuid.uuid4())
    accepted_at = iso(utcnow())
    hashed = {
        "accepted_at": accepted_at,
        "action_category": content.action_category,
        "action_metadata": content.action_metadata or {},
        "agent_id": content.agent_id,
        "approved": bool(content.approved) if decision else False,
        "canonical_version": ledger_events.CANONICAL_VERSION,
        "citations": content.citations or [],
        "confidence": float(content.confidence) if decision else 0.0,
        "event_uuid": event_uuid,
        "evidence_chunks": content.evidence_chunks or [],
        # Events with no tool arguments (policy, settings, lockdown) carry an empty intent.
        "intent_hash": intent_hash(tool_args) if content.tool_args is not None else "",
        "policy_id": content.policy_id,
        "policy_version_id": content.policy_version_id,
        "policy_content_hash": content.policy_content_hash,
        "reason": content.reason,
        "request_id": content.request_id,
        "tool_args": tool_args,
        "tool_name": content.tool_name,
    }
    event_hash = ledger_events.event_hash(hashed)
    leaf_hash = ledger_events.leaf_hash_hex(event_hash)
    keys.require_registered(client_id)  # receipts must be verifiable from the JWKS
    _hold_off_sealing(client_id)
    signer = vault().signer
    payload = ledger_events.receipt_payload(
        accepted_at=accepted_at,
        event_hash=event_hash,
        event_uuid=event_uuid,
        leaf_hash=leaf_hash,
        receipt_key_id=signer.key_id,
        request_id=content.request_id,
    )
    row = {
        "client_id": client_id,
        "event_uuid": event_uuid,
        "request_id": content.request_id,
        "agent_id": content.agent_id,
        "tool_name": content.tool_name,
        "action_category": content.action_category,
        "policy_id": content.policy_id,
        "policy_version_id": content.policy_version_id,
        "policy_content_hash": content.policy_content_hash,
        "intent_hash": hashed["intent_hash"],
        "confidence": hashed["confidence"],
        "confidence_bucket": content.confidence_bucket if decision else None,
        "decision_status": content.decision_status if decision else None,
        "approved": hashed["approved"],
        "accepted_at": accepted_at,
        "canonical_version": ledger_events.CANONICAL_VERSION,
        "sealed": seal(
            vault().transport_key,
            ledger_associated_data(client_id, event_uuid),
            {name: hashed[name] for name in SEALED_FIELDS},
        ),
        "event_hash": event_hash,
        "leaf_hash": leaf_hash,
        "receipt_key_id": signer.key_id,
        "receipt_signature": signer.sign(payload),
        "receipt_payload": payload,
        "created_at": utcnow(),
    }
    # A plain INSERT in the caller's transaction: the event is never read back or changed
    # through the ORM, and an ORM object would cost its instrumentation and the flush's
    # bookkeeping on every decision.
    db.session.execute(insert(LedgerEvent.__table__), row)
    return AppendedEvent(
        event_uuid=event_uuid,
        request_id=content.request_id,
        event_hash=event_hash,
        leaf_hash=leaf_hash,
    )


def _hold_off_sealing(client_id: str) -> None:
    """Keep the tenant's sealer out until this transaction ends.

    On PostgreSQL a seq is taken at INSERT but becomes visible at COMMIT, so without this an
    event with a smaller seq could commit after a larger one was sealed: it would sit below the
    tenant's sealed high-water mark (the seq of its last leaf) and never be sealed. The shared
    lock, taken before the INSERT, lets event writers run side by side; the sealer's exclusive
    lock waits for all of them. SQLite has a single writer, which already orders them.
    """
    if db.session.get_bind().dialect.name == "postgresql":
        from webapp.services.sealing import seal_lock_key

        db.session.execute(
            text("SELECT pg_advisory_xact_lock_shared(:key)"), {"key": seal_lock_key(client_id)}
        )


# What a listing shows for an event whose sealed content cannot be opened (altered, or not
# decodable): the clear fields still answer, and /ledger/verify names the problem.
UNREADABLE_CONTENT = {
    "tool_args": {},
    "reason": "sealed content cannot be opened; see /ledger/verify",
    "citations": [],
    "evidence_chunks": [],
    "action_metadata": {"sealed_content_unreadable": True},
}


def open_event(row: LedgerEvent) -> dict[str, Any]:
    """The decrypted sensitive fields of one event; a placeholder (logged) if they cannot be read.

    Views and reports use this; verification opens the blob itself and reports the failure.
    """
    try:
        return open_sealed(
            vault().transport_key,
            ledger_associated_data(row.client_id, row.event_uuid),
            row.sealed,
        )
    except SealedDataError as error:
        log.error("ledger event %s of %s: %s", row.seq, row.client_id, error)
        return {
            **UNREADABLE_CONTENT,
            "action_metadata": dict(UNREADABLE_CONTENT["action_metadata"]),
        }


def clear_fields(row: LedgerEvent) -> dict[str, Any]:
    """The fields of a ledger entry that are stored in clear (everything but SEALED_FIELDS)."""
    return {
        "seq": row.seq,
        "event_uuid": row.event_uuid,
        "request_id": row.request_id,
        "agent_id": row.agent_id,
        "policy_id": row.policy_id,
        "policy_version_id": row.policy_version_id,
        "policy_content_hash": row.policy_content_hash,
        "intent_hash": row.intent_hash,
        "tool_name": row.tool_name,
        "action_category": row.action_category,
        "confidence": row.confidence,
        "confidence_bucket": row.confidence_bucket,
        "decision_status": row.decision_status,
        "approved": row.approved,
        "accepted_at": row.accepted_at,
        "canonical_version": row.canonical_version,
        "event_hash": row.event_hash,
        "leaf_hash": row.leaf_hash,
        "leaf_index": row.leaf_index,
        "checkpoint_id": row.checkpoint_id,
        "receipt_algorithm": ledger_events.SIGNATURE_ALGORITHM,
        "receipt_key_id": row.receipt_key_id,
        "receipt_signature": b64url_encode(row.receipt_signature),
        "receipt_payload": b64url_encode(row.receipt_payload),
    }


def entry_view(row: LedgerEvent, content: dict[str, Any] | None = None) -> dict[str, Any]:
    """CONTRACT §11 "Ledger entry": every field, decrypted."""
    content = content if content is not None else open_event(row)
    return {**clear_fields(row), **{name: content[name] for name in SEALED_FIELDS}}


def list_entries(
    client_id: str, limit: int, before_seq: int | None = None
) -> tuple[list[LedgerEvent], int | None]:
    """Newest first; returns the page and the seq to continue before (or None at the end)."""
    query = LedgerEvent.for_tenant(client_id)
    if before_seq is not None:
        query = query.where(LedgerEvent.seq < before_seq)
    rows = list(db.session.scalars(query.order_by(LedgerEvent.seq.desc()).limit(limit + 1)))
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, (rows[-1].seq if more and rows else None)


def events_for_request(client_id: str, request_id: str) -> list[LedgerEvent]:
    return list(
        db.session.scalars(
            LedgerEvent.for_tenant(client_id)
            .where(LedgerEvent.request_id == request_id)
            .order_by(LedgerEvent.seq)
        )
    )


def latest_event_seq(client_id: str) -> int | None:
    return db.session.scalar(
        select(LedgerEvent.seq)
        .where(LedgerEvent.client_id == client_id)
        .order_by(LedgerEvent.seq.desc())
        .limit(1)
    )
