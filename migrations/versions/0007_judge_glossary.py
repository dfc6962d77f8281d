"""judge glossary and policy examples (issue 10)

Revision ID: 0007_judge_glossary
Revises: 0006_ledger_leaves
Create Date: 2026-11-23 16:10:00.000000

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0007_judge_glossary"
down_revision = "0006_ledger_leaves"
branch_labels = None
depends_on = None


def upgrade():
    # Policy examples (CONTRACT §6) are stored with their version, outside its content hash.
    # The glossary needs no table: it is the tenant's "glossary" settings document.
    with op.batch_alter_table("policy_versions") as batch:
        batch.add_column(sa.Column("examples", sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table("policy_versions") as batch:
        batch.drop_column("examples")
