"""Outbound webhooks (CONTRACT §14): a tenant's endpoints and the delivery log of each event."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from webapp.extensions import db
from webapp.models.base import TenantScoped, UTCDateTime, utcnow


class WebhookEndpoint(TenantScoped, db.Model):
    """Where a tenant wants events sent. The signing secret is stored sealed, never in clear."""

    __tablename__ = "webhook_endpoints"
    __table_args__ = (Index("ix_webhook_endpoints_tenant_created", "client_id", "created_at"),)

    webhook_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tenants.client_id", ondelete="CASCADE")
    )
    url: Mapped[str] = mapped_column(String(2048))
    events: Mapped[list] = mapped_column(JSON, default=list)
    description: Mapped[str] = mapped_column(String(500), default="")
    secret_sealed: Mapped[str] = mapped_column(Text)  # base64 of the sealed secret
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    # Deliveries that failed for good since the last success; at the limit the endpoint is off.
    consecutive_failures: Mapped[int] = mapped_column(Integer, default=0)
    disabled_reason: Mapped[str] = mapped_column(String(500), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    disabled_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class WebhookDelivery(TenantScoped, db.Model):
    """One event to one endpoint: the exact signed body, and every attempt to deliver it."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        Index("ix_webhook_deliveries_endpoint_created", "webhook_id", "created_at"),
        Index("ix_webhook_deliveries_tenant_created", "client_id", "created_at"),
    )

    delivery_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tenants.client_id", ondelete="CASCADE")
    )
    webhook_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("webhook_endpoints.webhook_id", ondelete="CASCADE")
    )
    event_id: Mapped[str] = mapped_column(String(64))
    event_type: Mapped[str] = mapped_column(String(32))
    created_at_text: Mapped[str] = mapped_column(String(40))  # X-Ledgix-Timestamp, as signed
    body: Mapped[str] = mapped_column(Text)  # the bytes that are signed and sent, every attempt
    status: Mapped[str] = mapped_column(String(16), default="queued")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, default=1)
    attempt_log: Mapped[list] = mapped_column(JSON, default=list)
    last_error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
