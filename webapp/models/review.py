"""Reviewers' votes on requests waiting for review (issue 15: quorum and separation of duties)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from webapp.extensions import db
from webapp.models.base import TenantScoped, UTCDateTime, utcnow


class ReviewVote(TenantScoped, db.Model):
    """One reviewer's approve or deny of one request. ``voter`` is the reviewer's address in
    lower case ("" for a cancellation without a reviewer); the unique pair makes each reviewer
    count once even when two of their votes race."""

    __tablename__ = "review_votes"
    __table_args__ = (
        UniqueConstraint("request_id", "voter", name="uq_review_votes_request_voter"),
        Index("ix_review_votes_tenant_request", "client_id", "request_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tenants.client_id", ondelete="CASCADE")
    )
    request_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("clearance_requests.request_id", ondelete="CASCADE")
    )
    voter: Mapped[str] = mapped_column(String(320))
    reviewer_email: Mapped[str] = mapped_column(String(320), default="")
    approved: Mapped[bool] = mapped_column(Boolean)
    review_reason: Mapped[str] = mapped_column(Text, default="")
    channel: Mapped[str] = mapped_column(String(240), default="")
    verified: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
