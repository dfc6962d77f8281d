"""Reading signed checkpoints: the record of CONTRACT §11, single lookups and the chain walk."""

from __future__ import annotations

from typing import Any

from webapp.extensions import db
from webapp.ledger.encoding import b64url_encode
from webapp.models import Checkpoint, iso


def checkpoint_view(row: Checkpoint) -> dict[str, Any]:
    """CONTRACT §11 "Checkpoint record": every field, payload and signature as base64url.

    `microblock_id` repeats `checkpoint_id` for the clients that expect it; `exported_at` is left
    out (not null) until the export is done, because the TypeScript client rejects null there."""
    view: dict[str, Any] = {
        "checkpoint_id": row.checkpoint_id,
        "microblock_id": row.checkpoint_id,
        "tree_size": row.tree_size,
        "root_hash": row.root_hash,
        "checkpoint_hash": row.checkpoint_hash,
        "prev_checkpoint_hash": row.prev_checkpoint_hash,
        "signature_algorithm": row.signature_algorithm,
        "signer_key_id": row.signer_key_id,
        "checkpoint_signature": b64url_encode(row.signature),
        "checkpoint_payload": b64url_encode(row.payload),
        "signed_at": row.signed_at,
        "mmd_seconds": row.mmd_seconds,
        "export_target": row.export_target,
        "export_uri": row.export_uri,
        "export_status": row.export_status,
    }
    if row.exported_at is not None:
        view["exported_at"] = iso(row.exported_at)
    return view


def latest_checkpoint(client_id: str) -> Checkpoint | None:
    """The newest checkpoint of a tenant, or None before the first sealing."""
    return db.session.scalar(
        Checkpoint.for_tenant(client_id).order_by(Checkpoint.checkpoint_id.desc()).limit(1)
    )


def get_checkpoint(client_id: str, checkpoint_id: int) -> Checkpoint:
    """One checkpoint of this tenant, or NotFound."""
    return Checkpoint.get_for_tenant(client_id, (client_id, checkpoint_id), "checkpoint")


def list_checkpoints(
    client_id: str, limit: int, *, after: int | None = None, descending: bool = False
) -> tuple[list[Checkpoint], int | None]:
    """One page of the chain (oldest first, or newest first); the id to continue from, or None."""
    query = Checkpoint.for_tenant(client_id)
    if descending:
        if after is not None:
            query = query.where(Checkpoint.checkpoint_id < after)
        query = query.order_by(Checkpoint.checkpoint_id.desc())
    else:
        if after is not None:
            query = query.where(Checkpoint.checkpoint_id > after)
        query = query.order_by(Checkpoint.checkpoint_id)
    rows = list(db.session.scalars(query.limit(limit + 1)))
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, (rows[-1].checkpoint_id if more and rows else None)


def checkpoints_by_id(client_id: str, checkpoint_ids: list[int]) -> list[Checkpoint]:
    """The named checkpoints of a tenant, oldest first (unknown ids are left out)."""
    if not checkpoint_ids:
        return []
    return list(
        db.session.scalars(
            Checkpoint.for_tenant(client_id)
            .where(Checkpoint.checkpoint_id.in_(checkpoint_ids))
            .order_by(Checkpoint.checkpoint_id)
        )
    )
