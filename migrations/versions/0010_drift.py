"""drift baselines, scores and events (issue 13)

Revision ID: 0010_drift
Revises: 0009_reports
Create Date: 2026-11-23 16:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0010_drift'
down_revision = '0009_reports'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
