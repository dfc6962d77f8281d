"""decision fast lane (issue 11)

Revision ID: 0008_fast_lane
Revises: 0007_judge_glossary
Create Date: 2026-11-23 16:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0008_fast_lane'
down_revision = '0007_judge_glossary'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
