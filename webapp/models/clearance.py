"""Clearance requests, burned tokens, idempotency records, settings and agent lockdowns."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from webapp.extensions import db
from webapp.models.base import TenantScoped, UTCDateTime, utcnow

PROCESSING = "processing"
PENDING_REVIEW = "pending_review"
APPROVED = "approved"
DENIED = "denied"
STATUSES = (PROCESSING, PENDING_REVIEW, APPROVED, DENIED)


class ClearanceRequest(TenantScoped, db.Model):
    __tablename__ = "clearance_requests"
    __table_args__ = (
        Index("ix_clearance_tenant_created", "client_id", "created_at"),
        Index("ix_clearance_tenant_status", "client_id", "status", "created_at"),
        Index("ix_clearance_tenant_agent", "client_id", "agent_id", "created_at"),
        Index("ix_clearance_status_updated", "status", "updated_at"),
    )

    request_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tenants.client_id", ondelete="CASCADE")
    )
    agent_id: Mapped[str] = mapped_column(String(256))
    session_id: Mapped[str] = mapped_column(String(256), default="")
    tool_name: Mapped[str] = mapped_column(String(256))
    tool_args: Mapped[dict] = mapped_column(JSON)
    tool_args_hash: Mapped[str] = mapped_column(String(64))
    policy_hint: Mapped[str] = mapped_column(String(128), default="")
    action_metadata: Mapped[dict] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(16), default=PROCESSING)
    approved: Mapped[bool] = mapped_column(Boolean, default=False)
    confidence: Mapped[float] = mapped_column(Float, default=0.0)
    threshold: Mapped[float] = mapped_column(Float, default=0.8)
    reason: Mapped[str] = mapped_column(Text, default="")
    reason_code: Mapped[str] = mapped_column(String(64), default="")
    policy_id: Mapped[str] = mapped_column(String(128), default="")
    policy_version_id: Mapped[str] = mapped_column(String(64), default="")
    policy_content_hash: Mapped[str] = mapped_column(String(64), default="")
    citations: Mapped[list] = mapped_column(JSON, default=list)
    evidence_chunks: Mapped[list] = mapped_column(JSON, default=list)
    decided_by: Mapped[str] = mapped_column(
        String(16), default=""
    )  # rules | model | reviewer | system
    judge_verdict: Mapped[dict] = mapped_column(JSON, default=dict)  # the judge's first verdict
    token: Mapped[str | None] = mapped_column(Text, nullable=True)
    token_jti: Mapped[str | None] = mapped_column(String(64), nullable=True)
    reviewer_email: Mapped[str] = mapped_column(String(320), default="")
    reviewer_verified: Mapped[bool] = mapped_column(Boolean, default=False)
    review_reason: Mapped[str] = mapped_column(Text, default="")
    # Review quorum and record (issue 15): how many distinct reviewers must approve, fixed when
    # the request enters review; the judge's reason, kept after a reviewer's decision replaces
    # `reason`; and how the terminal decision arrived (an API key's label or a dashboard user).
    required_approvals: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    judge_reason: Mapped[str] = mapped_column(Text, default="", server_default="")
    decision_channel: Mapped[str] = mapped_column(String(240), default="", server_default="")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # Failed terminal transitions; see services.reaper (a poison request is denied safely).
    transition_failures: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    review_started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class BurnedToken(TenantScoped, db.Model):
    """A consumed jti. The primary key makes the burn atomic: one insert wins."""

    __tablename__ = "burned_tokens"

    jti: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(String(64), index=True)
    request_id: Mapped[str] = mapped_column(String(64))
    outcome: Mapped[str] = mapped_column(String(16))  # consumed | args_mismatch
    consumed_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class IdempotencyRecord(TenantScoped, db.Model):
    __tablename__ = "idempotency_records"
    __table_args__ = (UniqueConstraint("client_id", "scope", "key", name="uq_idempotency_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(String(64), index=True)
    scope: Mapped[str] = mapped_column(String(64))
    key: Mapped[str] = mapped_column(String(255))
    body_hash: Mapped[str] = mapped_column(String(64))
    resource_id: Mapped[str] = mapped_column(String(128), default="")
    status_code: Mapped[int] = mapped_column(Integer, default=0)
    response: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, index=True)


class TenantSetting(TenantScoped, db.Model):
    """One settings document per tenant and kind (review, notification, report, drift)."""

    __tablename__ = "tenant_settings"

    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tenants.client_id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[dict] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class AgentState(TenantScoped, db.Model):
    """Per-agent lockdown state and the agent's latest drift assessment."""

    __tablename__ = "agent_states"

    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tenants.client_id", ondelete="CASCADE"), primary_key=True
    )
    agent_id: Mapped[str] = mapped_column(String(256), primary_key=True)
    locked_down: Mapped[bool] = mapped_column(Boolean, default=False)
    locked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    locked_by: Mapped[str] = mapped_column(String(320), default="")
    lock_reason: Mapped[str] = mapped_column(Text, default="")
    released_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    released_by: Mapped[str] = mapped_column(String(320), default="")
    release_reason: Mapped[str] = mapped_column(Text, default="")
    last_seen_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # Written by the drift scorer (webapp/services/drift.py); read on the decision path.
    drift_score: Mapped[float] = mapped_column(Float, default=0.0)
    drift_risk: Mapped[str] = mapped_column(String(16), default="learning")
    drift_signals: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    drift_activity: Mapped[list | None] = mapped_column(JSON, nullable=True)
    drift_scored_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    drift_event_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
