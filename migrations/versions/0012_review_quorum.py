"""review quorum, votes, key scopes (issue 15)

Revision ID: 0012_review_quorum
Revises: 0011_clients
Create Date: 2026-11-23 16:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0012_review_quorum'
down_revision = '0011_clients'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
