"""session generations, hardening (issue 16)

Revision ID: 0013_hardening
Revises: 0012_review_quorum
Create Date: 2026-11-23 16:10:00.000000

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0013_hardening"
down_revision = "0012_review_quorum"
branch_labels = None
depends_on = None


def upgrade():
    # How often a request's terminal transition failed: the reaper denies it through a path
    # that reads none of its content once this reaches its limit (a poison request).
    with op.batch_alter_table("clearance_requests") as batch:
        batch.add_column(
            sa.Column("transition_failures", sa.Integer(), nullable=False, server_default="0")
        )
    # Bumped at sign-out, password change and disabling: every older session stops working.
    with op.batch_alter_table("users") as batch:
        batch.add_column(
            sa.Column("session_generation", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade():
    with op.batch_alter_table("users") as batch:
        batch.drop_column("session_generation")
    with op.batch_alter_table("clearance_requests") as batch:
        batch.drop_column("transition_failures")
