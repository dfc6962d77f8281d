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
    # Requests already waiting need one approval, as before.
    with op.batch_alter_table("clearance_requests") as batch:
        batch.add_column(
            sa.Column("required_approvals", sa.Integer(), nullable=False, server_default="1")
        )
        batch.add_column(sa.Column("judge_reason", sa.Text(), nullable=False, server_default=""))
        batch.add_column(
            sa.Column("decision_channel", sa.String(240), nullable=False, server_default="")
        )
    op.create_table(
        "review_votes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("client_id", sa.String(length=64), nullable=False),
        sa.Column("request_id", sa.String(length=64), nullable=False),
        sa.Column("voter", sa.String(length=320), nullable=False),
        sa.Column("reviewer_email", sa.String(length=320), nullable=False),
        sa.Column("approved", sa.Boolean(), nullable=False),
        sa.Column("review_reason", sa.Text(), nullable=False),
        sa.Column("channel", sa.String(length=240), nullable=False),
        sa.Column("verified", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"],
            ["tenants.client_id"],
            name=op.f("fk_review_votes_client_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["request_id"],
            ["clearance_requests.request_id"],
            name=op.f("fk_review_votes_request_id_clearance_requests"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_review_votes")),
        sa.UniqueConstraint("request_id", "voter", name="uq_review_votes_request_voter"),
    )
    with op.batch_alter_table("review_votes") as batch:
        batch.create_index(
            "ix_review_votes_tenant_request", ["client_id", "request_id"], unique=False
        )


def downgrade():
    with op.batch_alter_table("review_votes") as batch:
        batch.drop_index("ix_review_votes_tenant_request")
    op.drop_table("review_votes")
    with op.batch_alter_table("clearance_requests") as batch:
        batch.drop_column("decision_channel")
        batch.drop_column("judge_reason")
        batch.drop_column("required_approvals")
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("scopes")
