"""Sealing on a real database: leaf order, stored tree, checkpoint chain, batches, locking."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from nacl.signing import VerifyKey
from sqlalchemy import inspect, select

from tests.conftest import make_config
from tests.ledger_support import leaves_of, seal, stored_tree, write_events
from webapp.extensions import db
from webapp.ledger import cbor, merkle
from webapp.ledger import events as ledger_events
from webapp.models import Checkpoint, LedgerEvent


def checkpoints_of(app, client_id):
    with app.app_context():
        return list(
            db.session.scalars(Checkpoint.for_tenant(client_id).order_by(Checkpoint.checkpoint_id))
        )


def test_leaves_follow_seq_and_checkpoints_chain(app, tenant):
    write_events(app, tenant.client_id, 7)
    assert seal(app, tenant.client_id) == [1]
    write_events(app, tenant.client_id, 4)
    assert seal(app, tenant.client_id) == [2]

    leaves = leaves_of(app, tenant.client_id)
    assert [index for _, index, _ in leaves] == list(range(11))
    seqs = [seq for seq, _, _ in leaves]
    assert seqs == sorted(seqs)

    first, second = checkpoints_of(app, tenant.client_id)
    hashes = [leaf for _, _, leaf in leaves]
    assert (first.tree_size, second.tree_size) == (7, 11)
    assert first.root_hash == merkle.root(hashes[:7]).hex()
    assert second.root_hash == merkle.root(hashes).hex()
    assert first.prev_checkpoint_hash == ""
    assert second.prev_checkpoint_hash == first.checkpoint_hash
    with app.app_context():
        from webapp.runtime import vault

        config, signer = vault().config, vault().signer
        for row in (first, second):
            payload = cbor.decode(row.payload)
            assert payload == {
                "export_targets": [row.export_target],
                "key_id": signer.key_id,
                "mmd_seconds": config.anchor_interval_seconds,
                "prev_checkpoint_hash": row.prev_checkpoint_hash,
                "root_hash": row.root_hash,
                "signed_at": row.signed_at,
                "tree_size": row.tree_size,
                "type": "checkpoint",
                "version": 1,
            }
            assert row.checkpoint_hash == ledger_events.checkpoint_hash(row.payload)
            VerifyKey(signer.public_key()).verify(row.payload, row.signature)
            assert row.export_target.endswith(
                f"/{tenant.client_id}/checkpoints/{row.checkpoint_id:020d}.json"
            )
            assert row.export_status == "pending"


def test_each_event_records_the_checkpoint_that_sealed_it(app, tenant):
    write_events(app, tenant.client_id, 3)
    seal(app, tenant.client_id)
    write_events(app, tenant.client_id, 2)
    seal(app, tenant.client_id)
    with app.app_context():
        rows = db.session.execute(
            select(LedgerEvent.leaf_index, LedgerEvent.checkpoint_id)
            .where(LedgerEvent.client_id == tenant.client_id)
            .order_by(LedgerEvent.leaf_index)
        ).all()
    assert [tuple(r) for r in rows] == [(0, 1), (1, 1), (2, 1), (3, 2), (4, 2)]


def test_one_tick_drains_the_backlog_in_batches(app, tenant):
    write_events(app, tenant.client_id, 23)
    assert seal(app, tenant.client_id, batch_size=5) == [1, 2, 3, 4, 5]
    assert [c.tree_size for c in checkpoints_of(app, tenant.client_id)] == [5, 10, 15, 20, 23]
    hashes = [leaf for _, _, leaf in leaves_of(app, tenant.client_id)]
    for checkpoint in checkpoints_of(app, tenant.client_id):
        assert checkpoint.root_hash == merkle.root(hashes[: checkpoint.tree_size]).hex()


def test_stored_nodes_are_exactly_the_complete_subtrees(app, tenant):
    write_events(app, tenant.client_id, 13)
    seal(app, tenant.client_id, batch_size=4)
    hashes = [leaf for _, _, leaf in leaves_of(app, tenant.client_id)]
    stored = stored_tree(app, tenant.client_id)
    expected = {}
    for level in range(5):
        width = 1 << level
        for idx in range(len(hashes) // width):
            expected[(level, idx)] = merkle.root(hashes[idx * width : (idx + 1) * width])
    assert stored == expected


def test_nothing_pending_signs_nothing_and_a_rerun_is_idempotent(app, tenant):
    assert seal(app, tenant.client_id) == []
    assert checkpoints_of(app, tenant.client_id) == []
    write_events(app, tenant.client_id, 3)
    assert seal(app, tenant.client_id) == [1]
    assert seal(app, tenant.client_id) == []
    assert seal(app) == []
    assert [c.tree_size for c in checkpoints_of(app, tenant.client_id)] == [3]


def test_tenants_have_separate_trees(app, tenant, other_tenant):
    write_events(app, tenant.client_id, 3)
    write_events(app, other_tenant.client_id, 5)
    assert sorted(seal(app)) == [1, 1]
    assert [i for _, i, _ in leaves_of(app, tenant.client_id)] == [0, 1, 2]
    assert [i for _, i, _ in leaves_of(app, other_tenant.client_id)] == [0, 1, 2, 3, 4]
    assert checkpoints_of(app, other_tenant.client_id)[0].tree_size == 5


def test_oldest_unsealed_age(app, tenant):
    from webapp.models import utcnow
    from webapp.services import sealing

    with app.app_context():
        assert sealing.oldest_unsealed_age(tenant.client_id) is None
    write_events(app, tenant.client_id, 2)
    with app.app_context():
        written = sealing.oldest_unsealed_at(tenant.client_id)
        age = sealing.oldest_unsealed_age(tenant.client_id, now=written + timedelta(seconds=42))
        assert age == pytest.approx(42.0)
        assert sealing.unsealed_count(tenant.client_id) == 2
        assert sealing.oldest_unsealed_age(tenant.client_id, now=utcnow()) >= 0
    seal(app, tenant.client_id)
    with app.app_context():
        assert sealing.oldest_unsealed_age(tenant.client_id) is None
        assert sealing.unsealed_count(tenant.client_id) == 0


def test_sealing_refuses_a_tree_that_disagrees_with_its_checkpoints(app, tenant, sql):
    from webapp.services import sealing

    write_events(app, tenant.client_id, 4)
    seal(app, tenant.client_id)
    sql("DELETE FROM checkpoints WHERE client_id = :c", c=tenant.client_id)
    write_events(app, tenant.client_id, 1)
    with app.app_context(), pytest.raises(sealing.LedgerInconsistent):
        sealing.seal_pending_events(tenant.client_id)
    # seal_all carries on with the other tenants instead of failing them all.
    assert seal(app) == []
    with app.app_context():
        status = sealing.seal_status(tenant.client_id)
        assert "highest leaf_index is 3, latest checkpoint covers 0" in status.failure
        assert status.failed_at is not None and status.last_checkpoint_id == 1


def test_seal_status_records_the_last_sealing(app, tenant):
    from webapp.services import sealing

    with app.app_context():
        assert sealing.seal_status(tenant.client_id) is None
    write_events(app, tenant.client_id, 5)
    seal(app, tenant.client_id, batch_size=2)
    with app.app_context():
        status = sealing.seal_status(tenant.client_id)
        assert status.last_checkpoint_id == 3 and status.last_sealed_at is not None
        assert status.failure == "" and status.failed_at is None


def test_concurrent_sealers_never_repeat_or_skip_an_index(
    workdir, database_url, redis_url, app, tenant
):
    from webapp import create_app
    from webapp.services import sealing

    write_events(app, tenant.client_id, 60)
    errors = []
    # One app per sealer, built before the threads start: CPython 3.11.7 can fail with
    # "AST constructor recursion depth mismatch" when threads compile code at once.
    apps = [create_app(make_config(workdir, database_url, redis_url)) for _ in range(4)]

    def run(other) -> None:  # noqa: ANN001
        try:
            with other.app_context():
                sealing.seal_pending_events(tenant.client_id, batch_size=3)
        except Exception as error:  # noqa: BLE001 - collected and asserted below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(other,)) for other in apps]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    leaves = leaves_of(app, tenant.client_id)
    assert [index for _, index, _ in leaves] == list(range(60))
    checkpoints = checkpoints_of(app, tenant.client_id)
    assert [c.checkpoint_id for c in checkpoints] == list(range(1, 21))
    assert [c.tree_size for c in checkpoints] == list(range(3, 61, 3))
    for earlier, later in zip(checkpoints, checkpoints[1:], strict=False):
        assert later.prev_checkpoint_hash == earlier.checkpoint_hash
    assert len(stored_tree(app, tenant.client_id)) == sum(60 >> level for level in range(7))


def test_the_leaf_table_is_keyed_by_its_primary_key(app, sql):
    """SQLite stores ledger_leaves WITHOUT ROWID; PostgreSQL reads it by its keys; ledger_events
    has no index that sealing would have to maintain, and there is no separate node table."""
    with app.app_context():
        dialect = db.engine.dialect.name
        tables = set(inspect(db.engine).get_table_names())
    assert "ledger_leaves" in tables and "merkle_nodes" not in tables
    if dialect == "sqlite":
        ddl = sql("SELECT sql FROM sqlite_master WHERE name = 'ledger_leaves'").scalar()
        assert "WITHOUT ROWID" in ddl.upper()
        indexed = sql(
            "SELECT group_concat(sql, ' ') FROM sqlite_master WHERE tbl_name = 'ledger_events'"
        ).scalar()
        assert "leaf_index" not in indexed and "checkpoint_id" not in indexed
        return

    def indexes(table: str) -> list[str]:
        return sorted(
            sql("SELECT indexdef FROM pg_indexes WHERE tablename = :t", t=table).scalars().all()
        )

    assert indexes("ledger_leaves") == [
        "CREATE UNIQUE INDEX pk_ledger_leaves ON public.ledger_leaves USING btree "
        "(client_id, leaf_index)",
        "CREATE UNIQUE INDEX uq_ledger_leaves_seq ON public.ledger_leaves USING btree (seq)",
    ]
    assert not [i for i in indexes("ledger_events") if "leaf_index" in i or "checkpoint" in i]


def test_sealing_never_updates_an_event(app, tenant, sql):
    """Events are written once: sealing records leaves beside them, it does not touch them."""
    write_events(app, tenant.client_id, 6)
    columns = "seq, event_uuid, leaf_hash, sealed, receipt_signature, created_at"
    before = sql(f"SELECT {columns} FROM ledger_events ORDER BY seq").all()
    seal(app, tenant.client_id, batch_size=4)
    assert sql(f"SELECT {columns} FROM ledger_events ORDER BY seq").all() == before
    rows = sql(
        "SELECT leaf_index, seq, checkpoint_id FROM ledger_leaves WHERE client_id = :c "
        "ORDER BY leaf_index",
        c=tenant.client_id,
    ).all()
    assert [tuple(r) for r in rows] == [
        (index, seq, 1 if index < 4 else 2) for index, (seq, *_) in enumerate(before)
    ]
