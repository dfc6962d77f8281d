"""Drift events: an agent's score crossed the tenant's threshold (CONTRACT §10)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Float, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from webapp.extensions import db
from webapp.models.base import TenantScoped, UTCDateTime, utcnow


class DriftEvent(TenantScoped, db.Model):
    __tablename__ = "drift_events"
    __table_args__ = (
        Index("ix_drift_events_tenant_detected", "client_id", "detected_at", "event_id"),
    )

    event_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tenants.client_id", ondelete="CASCADE")
    )
    agent_id: Mapped[str] = mapped_column(String(256))
    detected_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    drift_score: Mapped[float] = mapped_column(Float)
    risk_level: Mapped[str] = mapped_column(String(16))
    signals: Mapped[list] = mapped_column(JSON, default=list)
    action: Mapped[str] = mapped_column(String(16), default="none")  # none | lockdown
