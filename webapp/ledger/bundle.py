"""The JSON shapes of inclusion proofs, consistency proofs and proof bundles (CONTRACT §11)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["consistency_proof", "inclusion_proof", "proof_bundle"]


def inclusion_proof(
    entry: Mapping[str, Any], checkpoint: Mapping[str, Any], path: Sequence[bytes]
) -> dict[str, Any]:
    """`{event_uuid, request_id, event_hash, leaf_hash, leaf_index, tree_size, path, checkpoint}`."""
    if entry.get("leaf_index") is None:
        raise ValueError("the event is not sealed yet")
    return {
        "event_uuid": entry["event_uuid"],
        "request_id": entry["request_id"],
        "event_hash": entry["event_hash"],
        "leaf_hash": entry["leaf_hash"],
        "leaf_index": entry["leaf_index"],
        "tree_size": checkpoint["tree_size"],
        "path": [value.hex() for value in path],
        "checkpoint": dict(checkpoint),
    }


def consistency_proof(
    from_checkpoint: Mapping[str, Any], to_checkpoint: Mapping[str, Any], path: Sequence[bytes]
) -> dict[str, Any]:
    """`{from_checkpoint, to_checkpoint, path}` with both checkpoint records in full."""
    return {
        "from_checkpoint": dict(from_checkpoint),
        "to_checkpoint": dict(to_checkpoint),
        "path": [value.hex() for value in path],
    }


def proof_bundle(
    entry: Mapping[str, Any],
    inclusion: Mapping[str, Any],
    consistency: Mapping[str, Any] | None,
    keys: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """`{event, inclusion, consistency, keys}`; `consistency` is left out (not null, which the
    TypeScript client rejects) when the inclusion checkpoint is already the latest one."""
    if consistency is not None and consistency["from_checkpoint"] != inclusion["checkpoint"]:
        raise ValueError("the consistency proof must start at the inclusion checkpoint")
    bundle: dict[str, Any] = {"event": dict(entry), "inclusion": dict(inclusion)}
    if consistency is not None:
        bundle["consistency"] = dict(consistency)
    bundle["keys"] = [dict(key) for key in keys]
    return bundle
