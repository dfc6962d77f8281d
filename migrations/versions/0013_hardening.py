"""session generations, hardening (issue 16)

Revision ID: 0013_hardening
Revises: 0012_review_quorum
Create Date: 2026-11-23 16:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0013_hardening'
down_revision = '0012_review_quorum'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
