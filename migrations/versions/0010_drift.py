"""drift baselines, scores and events (issue 13)

Revision ID: 0010_drift
Revises: 0009_reports
Create Date: 2026-11-23 16:10:00.000000

- `agent_states` gains the agent's latest drift assessment (score, risk level, the signals with
  their evidence, a 14-day activity sparkline) and the reason given for a release.
- `drift_events`: one row each time an agent's score crosses the tenant's `score_threshold`.

The hourly counters themselves live in Redis (see docs/drift.md), not in the database.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0010_drift'
down_revision = '0009_reports'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('agent_states', schema=None) as batch_op:
        batch_op.add_column(sa.Column('release_reason', sa.Text(), nullable=False, server_default=''))
        batch_op.add_column(sa.Column('drift_score', sa.Float(), nullable=False, server_default='0'))
        batch_op.add_column(
            sa.Column('drift_risk', sa.String(length=16), nullable=False, server_default='learning')
        )
        batch_op.add_column(sa.Column('drift_signals', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('drift_activity', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('drift_scored_at', sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column('drift_event_at', sa.DateTime(), nullable=True))
    op.create_table('drift_events',
    sa.Column('event_id', sa.String(length=64), nullable=False),
    sa.Column('client_id', sa.String(length=64), nullable=False),
    sa.Column('agent_id', sa.String(length=256), nullable=False),
    sa.Column('detected_at', sa.DateTime(), nullable=False),
    sa.Column('drift_score', sa.Float(), nullable=False),
    sa.Column('risk_level', sa.String(length=16), nullable=False),
    sa.Column('signals', sa.JSON(), nullable=False),
    sa.Column('action', sa.String(length=16), nullable=False),
    sa.ForeignKeyConstraint(['client_id'], ['tenants.client_id'], name=op.f('fk_drift_events_client_id_tenants'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('event_id', name=op.f('pk_drift_events'))
    )
    op.create_index(
        'ix_drift_events_tenant_detected', 'drift_events', ['client_id', 'detected_at', 'event_id'],
        unique=False,
    )


def downgrade():
    op.drop_index('ix_drift_events_tenant_detected', table_name='drift_events')
    op.drop_table('drift_events')
    with op.batch_alter_table('agent_states', schema=None) as batch_op:
        batch_op.drop_column('drift_event_at')
        batch_op.drop_column('drift_scored_at')
        batch_op.drop_column('drift_activity')
        batch_op.drop_column('drift_signals')
        batch_op.drop_column('drift_risk')
        batch_op.drop_column('drift_score')
        batch_op.drop_column('release_reason')
