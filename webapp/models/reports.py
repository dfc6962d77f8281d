"""Compliance reports, their rendered artifacts, and the share links that serve them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from webapp.extensions import db
from webapp.models.base import TenantScoped, UTCDateTime, utcnow

# Report statuses (CONTRACT §9): queued → running → ready | failed.
REPORT_QUEUED = "queued"
REPORT_RUNNING = "running"
REPORT_READY = "ready"
REPORT_FAILED = "failed"


class Report(TenantScoped, db.Model):
    """One SOX 404 evidence pack for a period; ``summary`` holds the headline figures."""

    __tablename__ = "reports"
    __table_args__ = (Index("ix_reports_tenant_created", "client_id", "created_at"),)

    report_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tenants.client_id", ondelete="CASCADE")
    )
    type: Mapped[str] = mapped_column(String(32), default="sox_404")
    status: Mapped[str] = mapped_column(String(16), default=REPORT_QUEUED)
    stage: Mapped[str] = mapped_column(String(64), default="queued")
    progress: Mapped[int] = mapped_column(Integer, default=0)  # 0..100
    error: Mapped[str] = mapped_column(Text, default="")
    period_start: Mapped[datetime] = mapped_column(UTCDateTime())
    period_end: Mapped[datetime] = mapped_column(UTCDateTime())
    formats: Mapped[list] = mapped_column(JSON)
    summary: Mapped[dict] = mapped_column(JSON, default=dict)
    trigger: Mapped[str] = mapped_column(String(16), default="api")  # api | dashboard | schedule
    created_by: Mapped[str] = mapped_column(String(320), default="")
    ledger_event_uuid: Mapped[str] = mapped_column(String(36), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # Builds queued again by the reaper (services.reaper.reap_reports), and the last time.
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    requeued_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class ReportArtifact(TenantScoped, db.Model):
    """One rendered format of a report, with the SHA-256 recorded in the ledger."""

    __tablename__ = "report_artifacts"

    report_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("reports.report_id", ondelete="CASCADE"), primary_key=True
    )
    format: Mapped[str] = mapped_column(String(16), primary_key=True)
    client_id: Mapped[str] = mapped_column(String(64), index=True)
    content_type: Mapped[str] = mapped_column(String(64))
    size_bytes: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ReportShare(TenantScoped, db.Model):
    """A share link: the token itself is never stored, only its id and a hash of it."""

    __tablename__ = "report_shares"
    __table_args__ = (Index("ix_report_shares_report", "client_id", "report_id"),)

    token_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(String(64))
    report_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("reports.report_id", ondelete="CASCADE")
    )
    token_hash: Mapped[str] = mapped_column(String(64))
    created_by: Mapped[str] = mapped_column(String(320), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    revoked_by: Mapped[str] = mapped_column(String(320), default="")
