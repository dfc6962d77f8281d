"""ledger sealing: a partial index of unsealed events, a rowid-free tree on SQLite, seal status

Revision ID: 0005_ledger_sealing
Revises: 0004_job_runs
Create Date: 2026-11-22 03:00:00.000000

- `ix_ledger_events_pending (client_id, seq) WHERE leaf_index IS NULL` replaces
  `ix_ledger_events_unsealed (client_id, leaf_index, seq)`: it holds only the events waiting for
  sealing, so every batch reads the next ones in seq order whatever the planner's statistics
  (PostgreSQL, without them, sorted the whole backlog through the leaf index for every batch),
  and an update that seals an event no longer inserts into it.
- `uq_ledger_events_leaf` becomes a unique index over sealed events only (`WHERE leaf_index IS
  NOT NULL`): the same guarantee, and a query for unsealed events can no longer pick it (which
  PostgreSQL did without statistics, sorting the backlog).
- On SQLite `merkle_nodes` becomes a WITHOUT ROWID table: the primary key is the table, so a
  node is written once instead of into a table and a key index.
- `ledger_seal_status`: when each tenant was last sealed, and why sealing last refused.
"""
from alembic import op
import sqlalchemy as sa


revision = '0005_ledger_sealing'
down_revision = '0004_job_runs'
branch_labels = None
depends_on = None

PENDING = sa.text("leaf_index IS NULL")
SEALED = sa.text("leaf_index IS NOT NULL")


def upgrade():
    with op.batch_alter_table('ledger_events', schema=None) as batch_op:
        batch_op.drop_index('ix_ledger_events_unsealed')
        batch_op.drop_constraint('uq_ledger_events_leaf', type_='unique')
    op.create_index(
        'uq_ledger_events_leaf', 'ledger_events', ['client_id', 'leaf_index'], unique=True,
        sqlite_where=SEALED, postgresql_where=SEALED,
    )
    op.create_index(
        'ix_ledger_events_pending', 'ledger_events', ['client_id', 'seq'], unique=False,
        sqlite_where=PENDING, postgresql_where=PENDING,
    )
    if op.get_bind().dialect.name == 'sqlite':
        _rebuild_merkle_nodes(with_rowid=False)
    op.create_table('ledger_seal_status',
    sa.Column('client_id', sa.String(length=64), nullable=False),
    sa.Column('last_sealed_at', sa.DateTime(), nullable=True),
    sa.Column('last_checkpoint_id', sa.Integer(), nullable=True),
    sa.Column('failure', sa.Text(), nullable=False),
    sa.Column('failed_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('client_id', name=op.f('pk_ledger_seal_status'))
    )


def downgrade():
    op.drop_table('ledger_seal_status')
    if op.get_bind().dialect.name == 'sqlite':
        _rebuild_merkle_nodes(with_rowid=True)
    op.drop_index('ix_ledger_events_pending', table_name='ledger_events')
    op.drop_index('uq_ledger_events_leaf', table_name='ledger_events')
    with op.batch_alter_table('ledger_events', schema=None) as batch_op:
        batch_op.create_unique_constraint('uq_ledger_events_leaf', ['client_id', 'leaf_index'])
        batch_op.create_index('ix_ledger_events_unsealed', ['client_id', 'leaf_index', 'seq'], unique=False)


def _rebuild_merkle_nodes(with_rowid: bool) -> None:
    op.create_table('merkle_nodes_rebuilt',
    sa.Column('client_id', sa.String(length=64), nullable=False),
    sa.Column('level', sa.Integer(), nullable=False),
    sa.Column('idx', sa.BigInteger(), nullable=False),
    sa.Column('hash', sa.LargeBinary(length=32), nullable=False),
    sa.PrimaryKeyConstraint('client_id', 'level', 'idx', name='pk_merkle_nodes'),
    sqlite_with_rowid=with_rowid,
    )
    op.execute(
        'INSERT INTO merkle_nodes_rebuilt (client_id, level, idx, hash) '
        'SELECT client_id, level, idx, hash FROM merkle_nodes'
    )
    op.drop_table('merkle_nodes')
    op.rename_table('merkle_nodes_rebuilt', 'merkle_nodes')
