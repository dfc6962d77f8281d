"""Helpers for the ledger tests: writing events the way services do, and sealing them."""

from __future__ import annotations

import struct
import uuid

from webapp.extensions import db
from webapp.services.ledger import EventContent, append_event


def decision(
    request_id: str | None = None, *, approved: bool = True, confidence: float = 0.9, **extra
) -> EventContent:
    """A clearance decision event as the state machine writes it."""
    from webapp.ledger.verify import confidence_bucket

    return EventContent(
        action_category="clearance_decision",
        request_id=request_id or f"req_{uuid.uuid4().hex}",
        agent_id=extra.pop("agent_id", "agent-7"),
        tool_name=extra.pop("tool_name", "payments.transfer"),
        tool_args=extra.pop("tool_args", {"amount": 120, "currency": "EUR", "note": "é ✓"}),
        reason=extra.pop("reason", "within the payout limits"),
        citations=extra.pop(
            "citations", [{"policy_id": "payouts", "chunk_id": "c1", "score": 0.8}]
        ),
        evidence_chunks=extra.pop("evidence_chunks", [{"chunk_id": "c1", "text": "limit 500"}]),
        action_metadata=extra.pop("action_metadata", {"purpose": "refund"}),
        policy_id="payouts",
        policy_version_id="pv_1",
        policy_content_hash="a" * 64,
        confidence=confidence,
        confidence_bucket=confidence_bucket(confidence),
        decision_status="approved" if approved else "denied",
        approved=approved,
        **extra,
    )


def setting_change(index: int = 0) -> EventContent:
    return EventContent(
        action_category="settings_changed",
        reason=f"review settings changed ({index})",
        action_metadata={
            "settings": "review",
            "changes": {"minimum_confidence_score": 0.5 + index / 1000},
        },
    )


def write_events(app, client_id: str, count: int, *, decisions: bool = True) -> list[str]:
    """Append `count` events (alternating decisions and settings changes); their event_uuids."""
    uuids = []
    with app.app_context():
        for index in range(count):
            content = decision() if decisions and index % 2 == 0 else setting_change(index)
            uuids.append(append_event(client_id, content).event_uuid)
        db.session.commit()
    return uuids


def write_decision(app, client_id: str, request_id: str | None = None, **extra) -> tuple[str, str]:
    """One decision event; returns (request_id, event_uuid)."""
    with app.app_context():
        row = append_event(client_id, decision(request_id, **extra))
        db.session.commit()
        return row.request_id, row.event_uuid


def seal(app, client_id: str | None = None, **kwargs) -> list[int]:
    """Seal one tenant (or every tenant); the new checkpoint ids."""
    from webapp.services import sealing

    with app.app_context():
        if client_id is None:
            return [c.checkpoint_id for cs in sealing.seal_all(**kwargs).values() for c in cs]
        return [c.checkpoint_id for c in sealing.seal_pending_events(client_id, **kwargs)]


def leaves_of(app, client_id: str) -> list[tuple[int, int, bytes]]:
    """(seq, leaf_index, leaf hash) of every sealed event, by leaf_index: the leaf rows sealing
    wrote, each with the event it names."""
    from sqlalchemy import select

    from webapp.models import LedgerEvent
    from webapp.models.ledger import LedgerLeaf

    with app.app_context():
        rows = db.session.execute(
            select(LedgerLeaf.seq, LedgerLeaf.leaf_index, LedgerEvent.leaf_hash)
            .join(
                LedgerEvent,
                (LedgerEvent.seq == LedgerLeaf.seq) & (LedgerEvent.client_id == client_id),
            )
            .where(LedgerLeaf.client_id == client_id)
            .order_by(LedgerLeaf.leaf_index)
        ).all()
        return [(seq, index, bytes.fromhex(leaf)) for seq, index, leaf in rows]


def stored_tree(app, client_id: str) -> dict[tuple[int, int], bytes]:
    """Every stored node of the tenant's tree, (level, index) → hash, unpacked from the leaf
    rows: each holds its leaf and, level 1 upwards, the nodes that leaf completes."""
    from sqlalchemy import select

    from webapp.models import LedgerLeaf
    from webapp.services.tree_store import levels_completed

    with app.app_context():
        rows = db.session.execute(
            select(LedgerLeaf.leaf_index, LedgerLeaf.hash, LedgerLeaf.nodes).where(
                LedgerLeaf.client_id == client_id
            )
        ).all()
    tree = {}
    for leaf_index, value, nodes in rows:
        levels = levels_completed(leaf_index)
        assert len(nodes) == 32 * levels, f"leaf {leaf_index} holds a partial set of nodes"
        tree[(0, leaf_index)] = bytes(value)
        for level in range(1, levels + 1):
            tree[(level, ((leaf_index + 1) >> level) - 1)] = bytes(nodes[32 * (level - 1) :][:32])
    return tree


def client_cbor(value: object) -> bytes:
    """Deterministic CBOR written the way a client would, for clarity not speed: the second
    reading the ledger core's encoder is checked against."""

    def head(major: int, n: int) -> bytes:
        for limit, info, width in (
            (23, None, 0),
            (0xFF, 24, 1),
            (0xFFFF, 25, 2),
            (0xFFFFFFFF, 26, 4),
            (2**64 - 1, 27, 8),
        ):
            if n <= limit:
                if info is None:
                    return bytes([(major << 5) | n])
                return bytes([(major << 5) | info]) + n.to_bytes(width, "big")
        raise ValueError(n)

    if value is None:
        return b"\xf6"
    if isinstance(value, bool):
        return b"\xf5" if value else b"\xf4"
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, float):
        return b"\xfb" + struct.pack(">d", value)
    if isinstance(value, str):
        raw = value.encode()
        return head(3, len(raw)) + raw
    if isinstance(value, bytes):
        return head(2, len(value)) + value
    if isinstance(value, list):
        return head(4, len(value)) + b"".join(client_cbor(v) for v in value)
    if isinstance(value, dict):
        ordered = sorted(value, key=lambda k: (len(k), k))
        return head(5, len(value)) + b"".join(
            client_cbor(k) + client_cbor(value[k]) for k in ordered
        )
    raise TypeError(type(value))
