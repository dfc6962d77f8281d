"""notification deliveries: the delivery log of review notifications

Revision ID: 0003_notification_deliveries
Revises: 0002_decision_path
Create Date: 2026-11-22 02:19:18.306522

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0003_notification_deliveries'
down_revision = '0002_decision_path'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('notification_deliveries',
    sa.Column('delivery_id', sa.String(length=64), nullable=False),
    sa.Column('client_id', sa.String(length=64), nullable=False),
    sa.Column('request_id', sa.String(length=64), nullable=False),
    sa.Column('event', sa.String(length=32), nullable=False),
    sa.Column('channel', sa.String(length=16), nullable=False),
    sa.Column('target', sa.String(length=1024), nullable=False),
    sa.Column('recipients', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('max_attempts', sa.Integer(), nullable=False),
    sa.Column('attempt_log', sa.JSON(), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.Column('delivered_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['client_id'], ['tenants.client_id'], name=op.f('fk_notification_deliveries_client_id_tenants'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('delivery_id', name=op.f('pk_notification_deliveries'))
    )
    with op.batch_alter_table('notification_deliveries', schema=None) as batch_op:
        batch_op.create_index('ix_notification_deliveries_tenant_created', ['client_id', 'created_at'], unique=False)
        batch_op.create_index('ix_notification_deliveries_tenant_request', ['client_id', 'request_id'], unique=False)



def downgrade():
    with op.batch_alter_table('notification_deliveries', schema=None) as batch_op:
        batch_op.drop_index('ix_notification_deliveries_tenant_request')
        batch_op.drop_index('ix_notification_deliveries_tenant_created')

    op.drop_table('notification_deliveries')
