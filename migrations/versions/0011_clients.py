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
    pass


def downgrade():
    pass
