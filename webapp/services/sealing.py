"""Sealing: appending each tenant's unsealed events to its Merkle tree and signing checkpoints.

A batch is one transaction, under a per-tenant lock: give the next `anchor_batch_size` unsealed
events (in `seq` order) the next leaf indexes, store the tree nodes the batch completes, sign a
checkpoint chained to the previous one, commit. A crash anywhere before the commit leaves
nothing behind, and a rerun starts again from the stored state, so no leaf index is ever
missing or repeated and the chain never forks. Each call drains the whole backlog, batch after
batch; the batch size bounds a transaction, not the rate.

The hot path uses Core statements on its own connection: one UPDATE … RETURNING assigns the
indexes, one query reads the tree's frontier, one bulk INSERT stores the new nodes.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from datetime import datetime
from operator import itemgetter

from sqlalchemy import Connection, func, insert, select, text, update
from sqlalchemy.exc import SQLAlchemyError

from webapp.errors import Unavailable
from webapp.extensions import db
from webapp.ledger import events as ledger_events
from webapp.ledger import merkle
from webapp.models import Checkpoint, LedgerEvent, SigningKey, Tenant, iso, utcnow
from webapp.models.ledger import LedgerSealStatus
from webapp.runtime import vault
from webapp.services.anchoring import export_target, queue_export
from webapp.services.tree_store import insert_nodes, node_reader, read_nodes

log = logging.getLogger(__name__)

StepHook = Callable[[str], None]
"""Called with the name of each step of a batch as it completes (progress, fault injection)."""

STEPS = ("locked", "leaves_assigned", "nodes_stored", "checkpoint_stored", "committed")


class LedgerInconsistent(RuntimeError):
    """The stored tree and checkpoints disagree; sealing refuses to build on them."""


def seal_and_queue_exports(client_id: str | None = None) -> list[Checkpoint]:
    """Seal one tenant (or all), then queue the export of every new checkpoint."""
    if client_id is not None:
        sealed = {client_id: seal_pending_events(client_id)}
    else:
        sealed = seal_all()
    for tenant, checkpoints in sealed.items():
        if checkpoints:
            queue_export(tenant)
    return [checkpoint for checkpoints in sealed.values() for checkpoint in checkpoints]


def seal_all(*, on_step: StepHook | None = None) -> dict[str, list[Checkpoint]]:
    """Seal every tenant's backlog; returns the new checkpoints of each tenant that had any."""
    sealed: dict[str, list[Checkpoint]] = {}
    for client_id in tenants_with_unsealed_events():
        try:
            checkpoints = seal_pending_events(client_id, on_step=on_step)
        except LedgerInconsistent:
            # One tenant's broken ledger must not stop the others from being sealed.
            continue
        if checkpoints:
            sealed[client_id] = checkpoints
    return sealed


def seal_pending_events(
    client_id: str, *, batch_size: int | None = None, on_step: StepHook | None = None
) -> list[Checkpoint]:
    """Append every unsealed event of one tenant, one signed checkpoint per batch."""
    size = batch_size or vault().config.anchor_batch_size
    new_ids: list[int] = []
    after = 0  # the highest seq sealed by this call: each batch starts past it
    try:
        while True:
            sealed = _seal_batch(client_id, size, after, on_step or _no_step, first=not new_ids)
            if sealed is None:
                break
            checkpoint_id, after = sealed
            new_ids.append(checkpoint_id)
    except LedgerInconsistent as error:
        log.error("sealing refused: %s", error, extra={"client_id": client_id})
        if new_ids:
            _record_status(client_id, checkpoint_id=new_ids[-1])
        _record_status(client_id, failure=str(error))
        raise
    except BaseException:
        if new_ids:  # the batches that committed before the error stay sealed
            _record_status(client_id, checkpoint_id=new_ids[-1])
        raise
    if new_ids:
        _record_status(client_id, checkpoint_id=new_ids[-1])
    if not new_ids:
        return []
    log.info(
        "sealed %d checkpoint(s)",
        len(new_ids),
        extra={"client_id": client_id, "checkpoint_id": new_ids[-1]},
    )
    return list(
        db.session.scalars(
            select(Checkpoint)
            .where(
                Checkpoint.client_id == client_id,
                Checkpoint.checkpoint_id.between(new_ids[0], new_ids[-1]),
            )
            .order_by(Checkpoint.checkpoint_id)
        )
    )


def seal_status(client_id: str) -> LedgerSealStatus | None:
    """When the tenant was last sealed, and why sealing last refused (if it did)."""
    return db.session.get(LedgerSealStatus, client_id)


def tenants_with_unsealed_events() -> list[str]:
    """Tenants with at least one event still waiting for a leaf index."""
    pending = (
        select(LedgerEvent.seq)
        .where(LedgerEvent.client_id == Tenant.client_id, LedgerEvent.leaf_index.is_(None))
        .limit(1)
        .exists()
    )
    return list(
        db.session.scalars(select(Tenant.client_id).where(pending).order_by(Tenant.client_id))
    )


def oldest_unsealed_at(client_id: str) -> datetime | None:
    """When the oldest event still waiting for sealing was written, or None."""
    return db.session.scalar(
        select(LedgerEvent.created_at)
        .where(LedgerEvent.client_id == client_id, LedgerEvent.leaf_index.is_(None))
        .order_by(LedgerEvent.seq)
        .limit(1)
    )


def oldest_unsealed_age(client_id: str, now: datetime | None = None) -> float | None:
    """Seconds since the oldest unsealed event was written; None when nothing waits."""
    oldest = oldest_unsealed_at(client_id)
    if oldest is None:
        return None
    return max(0.0, ((now or utcnow()) - oldest).total_seconds())


def unsealed_count(client_id: str) -> int:
    """How many events wait for a leaf index."""
    return db.session.scalar(
        select(func.count())
        .select_from(LedgerEvent)
        .where(LedgerEvent.client_id == client_id, LedgerEvent.leaf_index.is_(None))
    )


# --- one batch ---------------------------------------------------------------------------------


# Number the first `limit` unsealed events of the tenant in seq order. The batch is read off the
# partial index ix_ledger_events_pending, and the window runs over the limited subquery, so a
# batch costs O(batch) whatever the backlog. RETURNING hands back the leaves exactly as
# assigned, so nothing committed between two statements can slip in.
_ASSIGN_LEAVES = text(
    """
    UPDATE ledger_events
       SET leaf_index = :old_size + numbered.position - 1,
           checkpoint_id = :checkpoint_id
      FROM (SELECT seq, row_number() OVER (ORDER BY seq) AS position
              FROM (SELECT seq FROM ledger_events
                     WHERE client_id = :client_id AND leaf_index IS NULL AND seq > :after
                     ORDER BY seq LIMIT :limit) AS batch) AS numbered
     WHERE ledger_events.seq = numbered.seq
    RETURNING leaf_index, leaf_hash, ledger_events.seq
    """
)

_checkpoints = Checkpoint.__table__
_keys = SigningKey.__table__
_events = LedgerEvent.__table__


def _seal_batch(
    client_id: str, limit: int, after: int, on_step: StepHook, *, first: bool = True
) -> tuple[int, int] | None:
    """Seal up to `limit` events with seq > `after` in one transaction; the new checkpoint id
    and the highest seq sealed, or None when there was nothing to seal."""
    config = vault().config
    signer = vault().signer
    with db.engine.connect() as connection:
        _lock_tenant(connection, client_id)
        if first:  # once registered, a key stays in the registry
            _require_key_registered(connection)
        on_step("locked")
        latest = connection.execute(
            select(
                _checkpoints.c.checkpoint_id,
                _checkpoints.c.tree_size,
                _checkpoints.c.checkpoint_hash,
            )
            .where(_checkpoints.c.client_id == client_id)
            .order_by(_checkpoints.c.checkpoint_id.desc())
            .limit(1)
        ).first()
        previous_id, old_size, previous_hash = latest if latest else (0, 0, "")
        _check_tree_matches_checkpoint(connection, client_id, old_size)
        checkpoint_id = previous_id + 1

        assigned = connection.execute(
            _ASSIGN_LEAVES,
            {
                "client_id": client_id,
                "old_size": old_size,
                "checkpoint_id": checkpoint_id,
                "limit": limit,
                "after": after,
            },
        ).all()
        if not assigned:
            connection.rollback()
            return None  # never sign a checkpoint of size 0, nor one that adds nothing
        assigned.sort(key=itemgetter(0))
        if assigned[0][0] != old_size or assigned[-1][0] != old_size + len(assigned) - 1:
            raise LedgerInconsistent(f"leaf indexes were not contiguous from {old_size}")
        leaves = [bytes.fromhex(leaf_hash) for _, leaf_hash, _ in assigned]
        highest_seq = max(seq for _, _, seq in assigned)
        on_step("leaves_assigned")

        known = read_nodes(connection, client_id, merkle.nodes_needed_for_append(old_size))
        new_nodes = merkle.new_nodes_for_append(old_size, leaves, node_reader(known))
        insert_nodes(connection, client_id, new_nodes)
        on_step("nodes_stored")

        known.update({(lv, ix): h for lv, ix, h in new_nodes})
        new_size = old_size + len(leaves)
        root_hash = merkle.root_from_nodes(new_size, node_reader(known)).hex()
        target = export_target(config, client_id, checkpoint_id)
        signed_at = iso(utcnow())
        payload = ledger_events.checkpoint_payload(
            export_target=target,
            key_id=signer.key_id,
            mmd_seconds=config.anchor_interval_seconds,
            prev_checkpoint_hash=previous_hash,
            root_hash=root_hash,
            signed_at=signed_at,
            tree_size=new_size,
        )
        connection.execute(
            insert(_checkpoints).values(
                client_id=client_id,
                checkpoint_id=checkpoint_id,
                tree_size=new_size,
                root_hash=root_hash,
                checkpoint_hash=ledger_events.checkpoint_hash(payload),
                prev_checkpoint_hash=previous_hash,
                signature_algorithm=ledger_events.SIGNATURE_ALGORITHM,
                signer_key_id=signer.key_id,
                signature=signer.sign(payload),
                payload=payload,
                signed_at=signed_at,
                mmd_seconds=config.anchor_interval_seconds,
                export_target=target,
                export_uri="",
                export_status="pending",
                export_attempts=0,
                export_error="",
                exported_at=None,
            )
        )
        on_step("checkpoint_stored")
        connection.commit()
    on_step("committed")
    return checkpoint_id, highest_seq


def _record_status(client_id: str, *, checkpoint_id: int | None = None, failure: str = "") -> None:
    """Note a sealing outcome for the summary (on its own connection, apart from the caller's
    session); a refusal stays until sealing succeeds again."""
    now = utcnow()
    if failure:
        values = {"failure": failure[:2000], "failed_at": now}
    else:
        values = {"last_sealed_at": now, "last_checkpoint_id": checkpoint_id}
        values |= {"failure": "", "failed_at": None}
    table = LedgerSealStatus.__table__
    try:
        with db.engine.begin() as connection:
            changed = connection.execute(
                update(table).where(table.c.client_id == client_id).values(**values)
            ).rowcount
            if not changed:
                connection.execute(
                    insert(table).values(
                        {"client_id": client_id, "failure": "", "failed_at": None} | values
                    )
                )
    except SQLAlchemyError:
        # Bookkeeping only: it must never hide the outcome of the sealing itself.
        log.exception("could not record the sealing status", extra={"client_id": client_id})


def seal_lock_key(client_id: str) -> int:
    """The tenant's advisory-lock key: sealers take it exclusively, event writers shared."""
    digest = hashlib.sha256(b"ledger-seal\x00" + client_id.encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _lock_tenant(connection: Connection, client_id: str) -> None:
    """Serialise sealers of one tenant until the transaction ends (commit, rollback or crash)."""
    if connection.dialect.name == "postgresql":
        connection.execute(
            text("SELECT pg_advisory_xact_lock(:key)"), {"key": seal_lock_key(client_id)}
        )
    else:
        # SQLite has one writer: taking the write lock first makes the batch's reads current.
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def _require_key_registered(connection: Connection) -> None:
    """Inside the batch's transaction: checkpoints are only signed by a key the JWKS lists."""
    signer = vault().signer
    stored = connection.execute(
        select(_keys.c.public_key).where(_keys.c.key_id == signer.key_id)
    ).scalar()
    if stored is None:
        connection.execute(
            insert(_keys).values(
                key_id=signer.key_id,
                algorithm=ledger_events.SIGNATURE_ALGORITHM,
                public_key=signer.public_key(),
                active_from=utcnow(),
                retired_at=None,
            )
        )
    elif bytes(stored) != signer.public_key():
        raise Unavailable(f"VAULT_KEY_ID {signer.key_id} is registered with a different key")


def _check_tree_matches_checkpoint(connection: Connection, client_id: str, size: int) -> None:
    highest = connection.execute(
        # `IS NOT NULL` lets the planner read the answer off the partial index of sealed events.
        select(func.max(_events.c.leaf_index)).where(
            _events.c.client_id == client_id, _events.c.leaf_index.is_not(None)
        )
    ).scalar()
    if (highest if highest is not None else -1) != size - 1:
        raise LedgerInconsistent(
            f"tenant {client_id}: highest leaf_index is {highest}, latest checkpoint covers {size}"
        )


def _no_step(_name: str) -> None:
    return None
