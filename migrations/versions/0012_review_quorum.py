"""review quorum, votes, key scopes (issue 15)

Revision ID: 0012_review_quorum
Revises: 0011_clients
Create Date: 2026-11-23 16:10:00.000000

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0012_review_quorum"
down_revision = "0011_clients"
branch_labels = None
depends_on = None


ALL_SCOPES = "agent review manage"


def upgrade():
    # Keys made before scopes existed keep all three (CONTRACT §12).
    with op.batch_alter_table("api_keys") as batch:
        batch.add_column(
            sa.Column("scopes", sa.String(64), nullable=False, server_default=ALL_SCOPES)
        )


def downgrade():
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("scopes")
