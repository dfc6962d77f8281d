"""Inclusion proofs, consistency proofs and proof bundles (CONTRACT §11), from the stored tree.

Every proof reads only the O(log n) nodes the core names for it, in one query; nothing is
recomputed over the leaves. A request without a terminal decision yet, or whose event is not yet
sealed, answers 409 `conflict` with `Retry-After`.
"""

from __future__ import annotations

import math
from typing import Any

from sqlalchemy import select

from webapp.errors import Conflict, InvalidInput, NotFound, Unavailable
from webapp.extensions import db
from webapp.ledger import bundle as bundle_shapes
from webapp.ledger import merkle
from webapp.ledger.events import DECISION_CATEGORIES
from webapp.ledger.keys import bundle_key_entry, public_jwk
from webapp.models import Checkpoint, ClearanceRequest, LedgerEvent, SigningKey, iso, utcnow
from webapp.runtime import vault
from webapp.services.checkpoints import checkpoint_view, get_checkpoint, latest_checkpoint
from webapp.services.ledger import entry_view
from webapp.services.tree_store import MissingNode, node_reader, read_nodes

# A decision is normally taken within seconds of the request; ask the client to poll soon.
RETRY_AFTER_DECISION = 1


def find_event(
    client_id: str, *, request_id: str | None = None, event_uuid: str | None = None
) -> LedgerEvent:
    """The event a proof is about: `event_uuid` selects any event, `request_id` the request's
    terminal decision. 409 while the request has no terminal decision; 404 when unknown."""
    if event_uuid:
        row = db.session.scalar(
            LedgerEvent.for_tenant(client_id).where(LedgerEvent.event_uuid == event_uuid)
        )
        if row is None or (request_id and row.request_id != request_id):
            raise NotFound("no such ledger event")
        return row
    if not request_id:
        raise InvalidInput(
            "request_id or event_uuid is required",
            errors=[{"field": "request_id", "message": "is required"}],
        )
    row = db.session.scalar(
        LedgerEvent.for_tenant(client_id)
        .where(
            LedgerEvent.request_id == request_id,
            LedgerEvent.action_category.in_(sorted(DECISION_CATEGORIES)),
        )
        .order_by(LedgerEvent.seq.desc())
        .limit(1)
    )
    if row is not None:
        return row
    pending = db.session.scalar(
        select(ClearanceRequest.request_id).where(
            ClearanceRequest.request_id == request_id, ClearanceRequest.client_id == client_id
        )
    )
    if pending is None:
        raise NotFound("no such request")
    raise Conflict(
        "the request has no terminal decision yet",
        headers={"Retry-After": str(RETRY_AFTER_DECISION)},
    )


def inclusion_proof(
    client_id: str,
    *,
    request_id: str | None = None,
    event_uuid: str | None = None,
    checkpoint_id: int | None = None,
) -> dict[str, Any]:
    """`{event_uuid, request_id, event_hash, leaf_hash, leaf_index, tree_size, path, checkpoint}`
    against the latest checkpoint, or the one named."""
    event = _sealed(find_event(client_id, request_id=request_id, event_uuid=event_uuid))
    if checkpoint_id is None:
        checkpoint = latest_checkpoint(client_id)
        if checkpoint is None:
            raise Unavailable("the event is sealed but the tenant has no checkpoint")
    else:
        checkpoint = get_checkpoint(client_id, checkpoint_id)
        if checkpoint.tree_size <= event.leaf_index:
            raise InvalidInput(
                f"checkpoint {checkpoint_id} (tree_size {checkpoint.tree_size}) does not cover "
                f"leaf_index {event.leaf_index}; use checkpoint {event.checkpoint_id} or later",
                errors=[{"field": "checkpoint_id", "message": "does not cover the event"}],
            )
    return _inclusion(client_id, event, checkpoint)


def consistency_proof(client_id: str, from_id: int, to_id: int | None = None) -> dict[str, Any]:
    """`{from_checkpoint, to_checkpoint, path}`: the older tree is a prefix of the newer one."""
    earlier = get_checkpoint(client_id, from_id)
    later = get_checkpoint(client_id, to_id) if to_id is not None else latest_checkpoint(client_id)
    assert later is not None  # `earlier` exists, so a latest one does too
    if later.checkpoint_id < earlier.checkpoint_id:
        raise InvalidInput(
            "from must not be later than to",
            errors=[{"field": "from", "message": "is later than to"}],
        )
    return _consistency(client_id, earlier, later)


def proof_bundle(
    client_id: str, *, request_id: str | None = None, event_uuid: str | None = None
) -> dict[str, Any]:
    """`{event, inclusion, consistency, keys}`: inclusion against the checkpoint that sealed the
    event, consistency from it to the latest checkpoint (None when that is the same one)."""
    event = _sealed(find_event(client_id, request_id=request_id, event_uuid=event_uuid))
    first = db.session.get(Checkpoint, (client_id, event.checkpoint_id))
    latest = latest_checkpoint(client_id)
    if first is None or latest is None or first.tree_size <= event.leaf_index:
        raise Unavailable(
            f"checkpoint {event.checkpoint_id} that sealed this event is missing or too small; "
            "GET /ledger/verify names the problem"
        )
    inclusion = _inclusion(client_id, event, first)
    consistency = None
    if latest.tree_size > first.tree_size:
        consistency = _consistency(client_id, first, latest)
        # The bundle invariant: consistency starts at exactly the inclusion checkpoint.
        consistency["from_checkpoint"] = inclusion["checkpoint"]
    signers = [event.receipt_key_id, first.signer_key_id]
    if consistency is not None:
        signers.append(latest.signer_key_id)
    return bundle_shapes.proof_bundle(
        entry_view(event), inclusion, consistency, _key_entries(signers)
    )


def retry_after_sealing(event: LedgerEvent) -> int:
    """Whole seconds until the next sealing tick is expected to have covered this event."""
    interval = vault().config.anchor_interval_seconds
    age = (utcnow() - event.created_at).total_seconds()
    if age < interval:
        return max(1, math.ceil(interval - age))
    return max(1, min(interval, 5))  # overdue: the sealer is behind, check back soon


# --- helpers -----------------------------------------------------------------------------------


def _sealed(event: LedgerEvent) -> LedgerEvent:
    if event.leaf_index is None or event.checkpoint_id is None:
        raise Conflict(
            "the event is not sealed into the ledger yet",
            headers={"Retry-After": str(retry_after_sealing(event))},
        )
    return event


def _inclusion(client_id: str, event: LedgerEvent, checkpoint: Checkpoint) -> dict[str, Any]:
    index, size = event.leaf_index, checkpoint.tree_size
    nodes = _nodes(client_id, merkle.nodes_needed_for_inclusion(index, size))
    try:
        path = merkle.inclusion_path_from_nodes(index, size, node_reader(nodes))
    except MissingNode as error:
        raise Unavailable(f"{error}; GET /ledger/verify names the problem") from None
    entry = {
        "event_uuid": event.event_uuid,
        "request_id": event.request_id,
        "event_hash": event.event_hash,
        "leaf_hash": event.leaf_hash,
        "leaf_index": index,
    }
    return bundle_shapes.inclusion_proof(entry, checkpoint_view(checkpoint), path)


def _consistency(client_id: str, earlier: Checkpoint, later: Checkpoint) -> dict[str, Any]:
    size1, size2 = earlier.tree_size, later.tree_size
    nodes = _nodes(client_id, merkle.nodes_needed_for_consistency(size1, size2))
    try:
        path = merkle.consistency_path_from_nodes(size1, size2, node_reader(nodes))
    except MissingNode as error:
        raise Unavailable(f"{error}; GET /ledger/verify names the problem") from None
    return bundle_shapes.consistency_proof(checkpoint_view(earlier), checkpoint_view(later), path)


def _nodes(client_id: str, wanted: list[merkle.NodeKey]) -> dict[merkle.NodeKey, bytes]:
    return read_nodes(db.session.connection(), client_id, wanted)


def _key_entries(key_ids: list[str]) -> list[dict[str, Any]]:
    """Bundle `keys`: every key that signed the receipt or a checkpoint in the bundle."""
    wanted = sorted(set(key_ids))
    rows = {
        row.key_id: row
        for row in db.session.scalars(select(SigningKey).where(SigningKey.key_id.in_(wanted)))
    }
    missing = [key_id for key_id in wanted if key_id not in rows]
    if missing:
        raise Unavailable(f"signing key(s) {', '.join(missing)} are not registered")
    return [
        bundle_key_entry(
            public_jwk(rows[key_id].public_key, key_id),
            active_from=iso(rows[key_id].active_from),
            retired_at=iso(rows[key_id].retired_at),
        )
        for key_id in wanted
    ]
