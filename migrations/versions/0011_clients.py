"""webhooks, decision cache (issue 14)

Revision ID: 0011_clients
Revises: 0010_drift
Create Date: 2026-11-23 16:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0011_clients'
down_revision = '0010_drift'
branch_labels = None
depends_on = None


def upgrade():
    # The decision cache (/mint-token) needs no table: a minted approval is a clearance request.
    op.create_table('webhook_endpoints',
    sa.Column('webhook_id', sa.String(length=64), nullable=False),
    sa.Column('client_id', sa.String(length=64), nullable=False),
    sa.Column('url', sa.String(length=2048), nullable=False),
    sa.Column('events', sa.JSON(), nullable=False),
    sa.Column('description', sa.String(length=500), nullable=False),
    sa.Column('secret_sealed', sa.Text(), nullable=False),
    sa.Column('enabled', sa.Boolean(), nullable=False),
    sa.Column('consecutive_failures', sa.Integer(), nullable=False),
    sa.Column('disabled_reason', sa.String(length=500), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.Column('disabled_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['client_id'], ['tenants.client_id'], name=op.f('fk_webhook_endpoints_client_id_tenants'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('webhook_id', name=op.f('pk_webhook_endpoints'))
    )
    with op.batch_alter_table('webhook_endpoints', schema=None) as batch_op:
        batch_op.create_index('ix_webhook_endpoints_tenant_created', ['client_id', 'created_at'], unique=False)

    op.create_table('webhook_deliveries',
    sa.Column('delivery_id', sa.String(length=64), nullable=False),
    sa.Column('client_id', sa.String(length=64), nullable=False),
    sa.Column('webhook_id', sa.String(length=64), nullable=False),
    sa.Column('event_id', sa.String(length=64), nullable=False),
    sa.Column('event_type', sa.String(length=32), nullable=False),
    sa.Column('created_at_text', sa.String(length=40), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('max_attempts', sa.Integer(), nullable=False),
    sa.Column('attempt_log', sa.JSON(), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.Column('delivered_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['client_id'], ['tenants.client_id'], name=op.f('fk_webhook_deliveries_client_id_tenants'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['webhook_id'], ['webhook_endpoints.webhook_id'], name=op.f('fk_webhook_deliveries_webhook_id_webhook_endpoints'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('delivery_id', name=op.f('pk_webhook_deliveries'))
    )
    with op.batch_alter_table('webhook_deliveries', schema=None) as batch_op:
        batch_op.create_index('ix_webhook_deliveries_endpoint_created', ['webhook_id', 'created_at'], unique=False)
        batch_op.create_index('ix_webhook_deliveries_tenant_created', ['client_id', 'created_at'], unique=False)


def downgrade():
    with op.batch_alter_table('webhook_deliveries', schema=None) as batch_op:
        batch_op.drop_index('ix_webhook_deliveries_tenant_created')
        batch_op.drop_index('ix_webhook_deliveries_endpoint_created')

    op.drop_table('webhook_deliveries')
    with op.batch_alter_table('webhook_endpoints', schema=None) as batch_op:
        batch_op.drop_index('ix_webhook_endpoints_tenant_created')

    op.drop_table('webhook_endpoints')
