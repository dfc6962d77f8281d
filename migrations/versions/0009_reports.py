"""compliance reports and share links (issue 12)

Revision ID: 0009_reports
Revises: 0008_fast_lane
Create Date: 2026-11-23 16:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0009_reports'
down_revision = '0008_fast_lane'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
