"""ledger leaves: one insert-only row per sealed event holds its place and the tree

Revision ID: 0006_ledger_leaves
Revises: 0005_ledger_sealing
Create Date: 2026-11-22 05:00:00.000000

Sealing used to give each event its place in the tree by updating `ledger_events.leaf_index`
and `checkpoint_id`, and to store the tree as one `merkle_nodes` row per node. On PostgreSQL the
update is not HOT (indexed columns change): every sealed event wrote a new ~1 KB row version and
an entry in each of the table's indexes, and that, with two node rows per event, bounded
sealing, not the hashing. Now:

- `ledger_leaves (client_id, leaf_index) → seq, checkpoint_id, hash, nodes`, unique on `seq`,
  WITHOUT ROWID on SQLite, written once by the sealing batch (binary COPY on PostgreSQL). `hash`
  is the leaf (the tree's level 0); `nodes` holds the hashes of the complete subtrees that leaf
  completes, level 1 upwards, 32 bytes each (node (level, index) is stored with leaf
  ((index + 1) << level) - 1). One row per event holds the whole tree, so `merkle_nodes` goes.
- `ledger_events` loses `leaf_index`, `checkpoint_id` and the two partial indexes over them
  (`uq_ledger_events_leaf`, `ix_ledger_events_pending`). Leaves follow `seq`, so "unsealed" is
  "seq above the seq of the tenant's last leaf", read off `ix_ledger_events_tenant_seq`.

The backfill copies what is stored, as stored, for `/ledger/verify` to judge: a missing
`checkpoint_id` or leaf node stays missing; a missing node above the leaves becomes 32 zero
bytes (verify reports it as differing from the recomputed tree); nodes of a leaf whose event row
is already gone have no row to go to and are dropped (verify reports the leaf as a deleted
event either way). The downgrade rebuilds the columns, the partial indexes and `merkle_nodes`.
"""
from alembic import op
import sqlalchemy as sa


revision = '0006_ledger_leaves'
down_revision = '0005_ledger_sealing'
branch_labels = None
depends_on = None

PENDING = sa.text("leaf_index IS NULL")
SEALED = sa.text("leaf_index IS NOT NULL")
HASH = 32
CHUNK = 5000  # leaves moved per round trip

LEAVES = sa.table(
    'ledger_leaves',
    sa.column('client_id', sa.String), sa.column('leaf_index', sa.BigInteger),
    sa.column('seq', sa.BigInteger), sa.column('checkpoint_id', sa.Integer),
    sa.column('hash', sa.LargeBinary), sa.column('nodes', sa.LargeBinary),
)
NODES = sa.table(
    'merkle_nodes',
    sa.column('client_id', sa.String), sa.column('level', sa.Integer),
    sa.column('idx', sa.BigInteger), sa.column('hash', sa.LargeBinary),
)


def upgrade():
    op.create_table('ledger_leaves',
    sa.Column('client_id', sa.String(length=64), nullable=False),
    sa.Column('leaf_index', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('seq', sa.BigInteger(), nullable=False),
    sa.Column('checkpoint_id', sa.Integer(), nullable=True),
    sa.Column('hash', sa.LargeBinary(length=32), nullable=True),
    sa.Column('nodes', sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint('client_id', 'leaf_index', name=op.f('pk_ledger_leaves')),
    sqlite_with_rowid=False,
    )
    _move_leaves_in(op.get_bind())
    # After the backfill: one sort instead of a million index insertions.
    op.create_index('uq_ledger_leaves_seq', 'ledger_leaves', ['seq'], unique=True)
    op.drop_table('merkle_nodes')
    op.drop_index('ix_ledger_events_pending', table_name='ledger_events')
    op.drop_index('uq_ledger_events_leaf', table_name='ledger_events')
    with op.batch_alter_table('ledger_events', schema=None) as batch_op:
        batch_op.drop_column('checkpoint_id')
        batch_op.drop_column('leaf_index')


def downgrade():
    op.create_table('merkle_nodes',
    sa.Column('client_id', sa.String(length=64), nullable=False),
    sa.Column('level', sa.Integer(), nullable=False),
    sa.Column('idx', sa.BigInteger(), nullable=False),
    sa.Column('hash', sa.LargeBinary(length=32), nullable=False),
    sa.PrimaryKeyConstraint('client_id', 'level', 'idx', name='pk_merkle_nodes'),
    sqlite_with_rowid=False,
    )
    _move_nodes_out(op.get_bind())
    with op.batch_alter_table('ledger_events', schema=None) as batch_op:
        batch_op.add_column(sa.Column('leaf_index', sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column('checkpoint_id', sa.Integer(), nullable=True))
    op.execute(
        'UPDATE ledger_events SET '
        'leaf_index = (SELECT l.leaf_index FROM ledger_leaves l '
        'WHERE l.seq = ledger_events.seq AND l.client_id = ledger_events.client_id), '
        'checkpoint_id = (SELECT l.checkpoint_id FROM ledger_leaves l '
        'WHERE l.seq = ledger_events.seq AND l.client_id = ledger_events.client_id) '
        'WHERE seq IN (SELECT seq FROM ledger_leaves)'
    )
    op.create_index(
        'uq_ledger_events_leaf', 'ledger_events', ['client_id', 'leaf_index'], unique=True,
        sqlite_where=SEALED, postgresql_where=SEALED,
    )
    op.create_index(
        'ix_ledger_events_pending', 'ledger_events', ['client_id', 'seq'], unique=False,
        sqlite_where=PENDING, postgresql_where=PENDING,
    )
    op.drop_index('uq_ledger_leaves_seq', table_name='ledger_leaves')
    op.drop_table('ledger_leaves')


def _levels_completed(leaf_index):
    following = leaf_index + 1
    return (following & -following).bit_length() - 1


def _move_leaves_in(bind):
    """Each sealed event becomes a leaf row with its leaf and the nodes it completes."""
    tenants = bind.execute(sa.text(
        'SELECT DISTINCT client_id FROM ledger_events WHERE leaf_index IS NOT NULL'
    )).scalars().all()
    for client_id in tenants:
        after = -1
        while True:
            events = bind.execute(sa.text(
                'SELECT leaf_index, seq, checkpoint_id FROM ledger_events '
                'WHERE client_id = :c AND leaf_index > :after ORDER BY leaf_index LIMIT :n'
            ), {'c': client_id, 'after': after, 'n': CHUNK}).all()
            if not events:
                break
            low, high = events[0][0], events[-1][0]
            # Every node a leaf in [low, high] completes ends inside it: per level, the nodes
            # with (idx + 1) << level - 1 in [low, high].
            ranges = [
                (level, -(-(low + 1) >> level) - 1, ((high + 1) >> level) - 1)
                for level in range((high + 1).bit_length())
            ]
            params = {'c': client_id}
            parts = []
            for n, (level, first, last) in enumerate(ranges):
                params.update({f'l{n}': level, f'a{n}': first, f'b{n}': last})
                parts.append(
                    'SELECT level, idx, hash FROM merkle_nodes WHERE client_id = :c '
                    f'AND level = :l{n} AND idx BETWEEN :a{n} AND :b{n}'
                )
            stored = {
                (level, idx): bytes(value)
                for level, idx, value in bind.execute(sa.text(' UNION ALL '.join(parts)), params)
            }
            rows = []
            for leaf_index, seq, checkpoint_id in events:
                above = [
                    stored.get((level, ((leaf_index + 1) >> level) - 1), b'\0' * HASH)
                    for level in range(1, _levels_completed(leaf_index) + 1)
                ]
                rows.append({
                    'client_id': client_id, 'leaf_index': leaf_index, 'seq': seq,
                    'checkpoint_id': checkpoint_id, 'hash': stored.get((0, leaf_index)),
                    'nodes': b''.join(above),
                })
            bind.execute(LEAVES.insert(), rows)
            after = high


def _move_nodes_out(bind):
    """Each leaf row becomes its level-0 node and the nodes stored with it."""
    tenants = bind.execute(sa.text('SELECT DISTINCT client_id FROM ledger_leaves')).scalars().all()
    for client_id in tenants:
        after = -1
        while True:
            leaves = bind.execute(sa.text(
                'SELECT leaf_index, hash, nodes FROM ledger_leaves '
                'WHERE client_id = :c AND leaf_index > :after ORDER BY leaf_index LIMIT :n'
            ), {'c': client_id, 'after': after, 'n': CHUNK}).all()
            if not leaves:
                break
            rows = []
            for leaf_index, value, nodes in leaves:
                if value is not None:
                    rows.append({'client_id': client_id, 'level': 0, 'idx': leaf_index,
                                 'hash': bytes(value)})
                nodes = bytes(nodes or b'')
                for level in range(1, _levels_completed(leaf_index) + 1):
                    node = nodes[HASH * (level - 1):HASH * level]
                    if len(node) == HASH:
                        rows.append({'client_id': client_id, 'level': level,
                                     'idx': ((leaf_index + 1) >> level) - 1, 'hash': node})
            if rows:
                bind.execute(NODES.insert(), rows)
            after = leaves[-1][0]
