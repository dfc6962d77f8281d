"""report build attempts: the reaper re-queues a report whose build was lost

Revision ID: 0014_report_attempts
Revises: 0013_hardening
Create Date: 2026-11-23 19:30:00.000000

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0014_report_attempts"
down_revision = "0013_hardening"
branch_labels = None
depends_on = None


def upgrade():
    # How often the reaper queued the build again (its job was lost or died with its worker),
    # and when it last did: after MAX_REPORT_REQUEUES the report is failed with a reason.
    with op.batch_alter_table("reports") as batch:
        batch.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("requeued_at", sa.DateTime(), nullable=True))


def downgrade():
    with op.batch_alter_table("reports") as batch:
        batch.drop_column("requeued_at")
        batch.drop_column("attempts")
