"""Sealing: appending each tenant's unsealed events to its Merkle tree and signing checkpoints.

A batch is one transaction, under a per-tenant lock: give the next `anchor_batch_size` unsealed
events (in `seq` order) the next leaf indexes, store the tree nodes the batch completes, sign a
checkpoint chained to the previous one, commit. A crash anywhere before the commit leaves
nothing behind, and a rerun starts again from the stored state, so no leaf index is ever
missing or repeated and the chain never forks. Each call drains the whole backlog, batch after
batch; the batch size bounds a transaction, not the rate.

Events are never updated: a batch reads the next events off the (client_id, seq) index and
records them as leaves in `ledger_leaves`, an insert-only table whose rows also hold the tree
(each leaf row stores the leaf hash and the nodes that leaf completes; see `tree_store`). Leaves
follow seq, so the seq of the tenant's last leaf is its sealed high-water mark and "unsealed" is
"seq above it". That holds because no event can commit below the mark after a batch has read
it: on PostgreSQL every event writer holds the tenant's seal lock shared from before it takes its
seq until it commits (`services.ledger.append_event`), and a batch holds it exclusively; SQLite
has one writer.

The hot path uses Core statements on one connection, one transaction per batch: the lock; one
query for the latest checkpoint and the last leaf; one for the next events; one for the tree's
right edge; one bulk insert of the leaf rows (binary COPY on PostgreSQL); one insert of the
signed checkpoint.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from contextlib import closing
from datetime import datetime

from sqlalchemy import ColumnElement, Connection, and_, exists, func, insert, select, text, update
from sqlalchemy.exc import SQLAlchemyError

from webapp.errors import Unavailable
from webapp.extensions import db
from webapp.ledger import events as ledger_events
from webapp.ledger import merkle
from webapp.models import Checkpoint, LedgerEvent, SigningKey, Tenant, iso, utcnow
from webapp.models.ledger import LedgerLeaf, LedgerSealStatus
from webapp.runtime import vault
from webapp.services.anchoring import export_target, queue_export
from webapp.services.tree_store import insert_leaves, node_reader, read_nodes

log = logging.getLogger(__name__)

StepHook = Callable[[str], None]
"""Called with the name of each step of a batch as it completes (progress, fault injection)."""

STEPS = ("locked", "tree_stored", "checkpoint_stored", "committed")


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
    try:
        # One connection for the whole backlog, one transaction per batch. The connection is
        # back in the pool (its open transaction rolled back) before any status is recorded.
        with db.engine.connect() as connection:
            while True:
                checkpoint_id = _seal_batch(
                    connection, client_id, size, on_step or _no_step, first=not new_ids
                )
                if checkpoint_id is None:
                    break
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
    pending = exists().where(_unsealed(Tenant.client_id))
    return list(
        db.session.scalars(select(Tenant.client_id).where(pending).order_by(Tenant.client_id))
    )


def oldest_unsealed_at(client_id: str) -> datetime | None:
    """When the oldest event still waiting for sealing was written, or None."""
    return db.session.scalar(
        select(LedgerEvent.created_at).where(_unsealed(client_id)).order_by(_events.c.seq).limit(1)
    )


def oldest_unsealed_age(client_id: str, now: datetime | None = None) -> float | None:
    """Seconds since the oldest unsealed event was written; None when nothing waits."""
    oldest = oldest_unsealed_at(client_id)
    if oldest is None:
        return None
    return max(0.0, ((now or utcnow()) - oldest).total_seconds())


def unsealed_count(client_id: str) -> int:
    """How many events wait for a leaf index."""
    return db.session.scalar(select(func.count()).select_from(_events).where(_unsealed(client_id)))


def sealed_through(client_id: str | ColumnElement[str]) -> ColumnElement[int]:
    """The tenant's sealed high-water mark: the seq of its last leaf (0 before the first).

    One primary-key lookup: leaves are keyed by (client_id, leaf_index) and follow seq."""
    last = (
        select(_leaves.c.seq)
        .where(_leaves.c.client_id == client_id)
        .order_by(_leaves.c.leaf_index.desc())
        .limit(1)
        .scalar_subquery()
    )
    return func.coalesce(last, 0)


def _unsealed(client_id: str | ColumnElement[str]) -> ColumnElement[bool]:
    """The tenant's events waiting for sealing: a range of the (client_id, seq) index."""
    return and_(_events.c.client_id == client_id, _events.c.seq > sealed_through(client_id))


# --- one batch ---------------------------------------------------------------------------------


_checkpoints = Checkpoint.__table__
_keys = SigningKey.__table__
_events = LedgerEvent.__table__
_leaves = LedgerLeaf.__table__


# After the lock: the latest checkpoint and the last leaf, in one round trip (each a primary-key
# lookup). Reading them in the statement that takes the lock would use a snapshot from before it.
_STATE = text(
    """
    SELECT c.checkpoint_id, c.tree_size, c.checkpoint_hash, l.leaf_index, l.seq
      FROM (SELECT 1 AS here) AS one
      LEFT JOIN (SELECT checkpoint_id, tree_size, checkpoint_hash FROM checkpoints
                  WHERE client_id = :client_id ORDER BY checkpoint_id DESC LIMIT 1) AS c ON 1 = 1
      LEFT JOIN (SELECT leaf_index, seq FROM ledger_leaves
                  WHERE client_id = :client_id ORDER BY leaf_index DESC LIMIT 1) AS l ON 1 = 1
    """
)


def _seal_batch(
    connection: Connection, client_id: str, limit: int, on_step: StepHook, *, first: bool = True
) -> int | None:
    """Seal the next `limit` unsealed events in one transaction; the new checkpoint id, or
    None when there was nothing to seal."""
    config = vault().config
    signer = vault().signer
    _lock_tenant(connection, client_id)
    if first:  # once registered, a key stays in the registry
        _require_key_registered(connection)
    on_step("locked")
    previous_id, old_size, previous_hash, highest, mark = connection.execute(
        _STATE, {"client_id": client_id}
    ).one()
    previous_id, old_size, previous_hash = previous_id or 0, old_size or 0, previous_hash or ""
    if (highest if highest is not None else -1) != old_size - 1:
        raise LedgerInconsistent(
            f"tenant {client_id}: highest leaf_index is {highest}, latest checkpoint covers "
            f"{old_size}"
        )
    checkpoint_id = previous_id + 1

    batch = _next_events(connection, client_id, mark or 0, limit)
    if not batch:
        connection.rollback()
        return None  # never sign a checkpoint of size 0, nor one that adds nothing
    leaves = [bytes.fromhex(leaf_hash) for _, leaf_hash in batch]
    known = read_nodes(connection, client_id, merkle.nodes_needed_for_append(old_size))
    new_nodes = merkle.new_nodes_for_append(old_size, leaves, node_reader(known))
    insert_leaves(
        connection, client_id, checkpoint_id, old_size, [seq for seq, _ in batch], new_nodes
    )
    on_step("tree_stored")

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
        _INSERT_CHECKPOINT,
        {
            "client_id": client_id,
            "checkpoint_id": checkpoint_id,
            "tree_size": new_size,
            "root_hash": root_hash,
            "checkpoint_hash": ledger_events.checkpoint_hash(payload),
            "prev_checkpoint_hash": previous_hash,
            "signature_algorithm": ledger_events.SIGNATURE_ALGORITHM,
            "signer_key_id": signer.key_id,
            "signature": signer.sign(payload),
            "payload": payload,
            "signed_at": signed_at,
            "mmd_seconds": config.anchor_interval_seconds,
            "export_target": target,
            "export_uri": "",
            "export_status": "pending",
            "export_attempts": 0,
            "export_error": "",
            "exported_at": None,
        },
    )
    on_step("checkpoint_stored")
    connection.commit()
    on_step("committed")
    return checkpoint_id


_INSERT_CHECKPOINT = insert(_checkpoints)
_NEXT_EVENTS = (
    "SELECT seq, leaf_hash FROM ledger_events WHERE client_id = {0} AND seq > {1} "
    "ORDER BY seq LIMIT {2}"
)


def _next_events(
    connection: Connection, client_id: str, mark: int, limit: int
) -> list[tuple[int, str]]:
    """(seq, leaf_hash) of the next `limit` events above the mark, in seq order, read off
    ix_ledger_events_tenant_seq. On the driver's cursor: the result layer would cost more than
    the query for 500 rows."""
    marker = "%s" if connection.dialect.name == "postgresql" else "?"
    with closing(connection.connection.driver_connection.cursor()) as cursor:
        cursor.execute(_NEXT_EVENTS.format(marker, marker, marker), (client_id, mark, limit))
        return cursor.fetchall()


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


# For the rest of the transaction only (set_config(…, true) is SET LOCAL): no bitmap scans.
# Every read of a batch wants a few rows in index order (the next events by seq, the last leaf,
# the latest checkpoint). Without fresh statistics (a burst into a new tenant, a bulk load) the
# planner guesses a handful of rows for the tenant and picks a bitmap scan plus a sort, which
# reads the tenant's whole backlog for every batch and turns draining it quadratic.
_LOCK_PG = text("SELECT pg_advisory_xact_lock(:key), set_config('enable_bitmapscan', 'off', true)")


def _lock_tenant(connection: Connection, client_id: str) -> None:
    """Serialise sealers of one tenant until the transaction ends (commit, rollback or crash)."""
    if connection.dialect.name == "postgresql":
        connection.execute(_LOCK_PG, {"key": seal_lock_key(client_id)})
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


def _no_step(_name: str) -> None:
    return None
