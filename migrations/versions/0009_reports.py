"""compliance reports and share links (issue 12)

Revision ID: 0009_reports
Revises: 0007_judge_glossary
Create Date: 2026-11-23 16:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0009_reports'
down_revision = '0007_judge_glossary'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'reports',
        sa.Column('report_id', sa.String(length=64), nullable=False),
        sa.Column('client_id', sa.String(length=64), nullable=False),
        sa.Column('type', sa.String(length=32), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('stage', sa.String(length=64), nullable=False),
        sa.Column('progress', sa.Integer(), nullable=False),
        sa.Column('error', sa.Text(), nullable=False),
        sa.Column('period_start', sa.DateTime(), nullable=False),
        sa.Column('period_end', sa.DateTime(), nullable=False),
        sa.Column('formats', sa.JSON(), nullable=False),
        sa.Column('summary', sa.JSON(), nullable=False),
        sa.Column('trigger', sa.String(length=16), nullable=False),
        sa.Column('created_by', sa.String(length=320), nullable=False),
        sa.Column('ledger_event_uuid', sa.String(length=36), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('started_at', sa.DateTime(), nullable=True),
        sa.Column('completed_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['client_id'], ['tenants.client_id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('report_id'),
    )
    op.create_index('ix_reports_tenant_created', 'reports', ['client_id', 'created_at'])
    op.create_table(
        'report_artifacts',
        sa.Column('report_id', sa.String(length=64), nullable=False),
        sa.Column('format', sa.String(length=16), nullable=False),
        sa.Column('client_id', sa.String(length=64), nullable=False),
        sa.Column('content_type', sa.String(length=64), nullable=False),
        sa.Column('size_bytes', sa.Integer(), nullable=False),
        sa.Column('sha256', sa.String(length=64), nullable=False),
        sa.Column('data', sa.LargeBinary(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['report_id'], ['reports.report_id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('report_id', 'format'),
    )
    op.create_index('ix_report_artifacts_client_id', 'report_artifacts', ['client_id'])
    op.create_table(
        'report_shares',
        sa.Column('token_id', sa.String(length=64), nullable=False),
        sa.Column('client_id', sa.String(length=64), nullable=False),
        sa.Column('report_id', sa.String(length=64), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('created_by', sa.String(length=320), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('expires_at', sa.DateTime(), nullable=False),
        sa.Column('revoked_at', sa.DateTime(), nullable=True),
        sa.Column('revoked_by', sa.String(length=320), nullable=False),
        sa.ForeignKeyConstraint(['report_id'], ['reports.report_id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('token_id'),
    )
    op.create_index('ix_report_shares_report', 'report_shares', ['client_id', 'report_id'])


def downgrade():
    op.drop_index('ix_report_shares_report', table_name='report_shares')
    op.drop_table('report_shares')
    op.drop_index('ix_report_artifacts_client_id', table_name='report_artifacts')
    op.drop_table('report_artifacts')
    op.drop_index('ix_reports_tenant_created', table_name='reports')
    op.drop_table('reports')
