"""The delivery log: one row per notification sent to one channel, with every attempt."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from webapp.extensions import db
from webapp.models.base import TenantScoped, UTCDateTime, utcnow

# Delivery statuses: queued → delivered | retrying → … → delivered | failed.
QUEUED = "queued"
RETRYING = "retrying"
DELIVERED = "delivered"
FAILED = "failed"
DELIVERY_STATUSES = (QUEUED, RETRYING, DELIVERED, FAILED)


class NotificationDelivery(TenantScoped, db.Model):
    """A notification to one channel; ``attempt_log`` keeps each try and its outcome."""

    __tablename__ = "notification_deliveries"
    __table_args__ = (
        Index("ix_notification_deliveries_tenant_created", "client_id", "created_at"),
        Index("ix_notification_deliveries_tenant_request", "client_id", "request_id"),
    )

    delivery_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tenants.client_id", ondelete="CASCADE")
    )
    request_id: Mapped[str] = mapped_column(String(64), default="")  # "" for a test message
    event: Mapped[str] = mapped_column(String(32))  # review.pending | test
    channel: Mapped[str] = mapped_column(String(16))  # email | slack
    target: Mapped[str] = mapped_column(String(1024), default="")  # shown to the tenant; no secret
    recipients: Mapped[list] = mapped_column(JSON, default=list)  # email addresses (email only)
    status: Mapped[str] = mapped_column(String(16), default=QUEUED)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, default=1)
    attempt_log: Mapped[list] = mapped_column(JSON, default=list)
    last_error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
