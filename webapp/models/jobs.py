"""Job-run rows: committed before a job is queued, read by the dashboard (never Job.fetch)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from webapp.extensions import db
from webapp.models.base import TenantScoped, UTCDateTime, utcnow


class JobRun(TenantScoped, db.Model):
    __tablename__ = "job_runs"
    __table_args__ = (Index("ix_job_runs_tenant_created", "client_id", "created_at"),)

    job_id: Mapped[str] = mapped_column(String(96), primary_key=True)
    client_id: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(32))  # index_policy | reindex
    subject: Mapped[str] = mapped_column(String(256), default="")  # e.g. the policy version id
    status: Mapped[str] = mapped_column(
        String(16), default="queued"
    )  # queued | running | done | failed
    stage: Mapped[str] = mapped_column(String(64), default="queued")
    progress: Mapped[int] = mapped_column(Integer, default=0)  # 0..100
    message: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
