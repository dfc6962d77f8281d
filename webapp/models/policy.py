"""Policies: a stable policy id with immutable versions, their chunks, and uploaded originals."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from webapp.extensions import db
from webapp.models.base import TenantScoped, UTCDateTime, utcnow


class Policy(TenantScoped, db.Model):
    __tablename__ = "policies"
    __table_args__ = (UniqueConstraint("client_id", "policy_id", name="uq_policies_client_policy"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tenants.client_id", ondelete="CASCADE"), index=True
    )
    policy_id: Mapped[str] = mapped_column(String(128))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    current_version_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    deactivated_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class PolicyVersion(TenantScoped, db.Model):
    """One immutable version. ``status`` is ``indexing`` until its chunks are searchable."""

    __tablename__ = "policy_versions"
    __table_args__ = (
        UniqueConstraint("client_id", "policy_id", "version", name="uq_policy_versions_number"),
        Index("ix_policy_versions_lookup", "client_id", "policy_id", "content_hash"),
    )

    policy_version_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tenants.client_id", ondelete="CASCADE"), index=True
    )
    policy_id: Mapped[str] = mapped_column(String(128))
    version: Mapped[int] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(Text, default="")
    rules: Mapped[list] = mapped_column(JSON)
    tools: Mapped[list] = mapped_column(JSON)
    content_hash: Mapped[str] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(
        String(16), default="api"
    )  # api | form | paste | upload | wiki
    source_ref: Mapped[str] = mapped_column(String(2048), default="")  # file name or wiki URL
    status: Mapped[str] = mapped_column(String(16), default="active")  # indexing | active | failed
    status_detail: Mapped[str] = mapped_column(Text, default="")
    document_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # Tool calls with their expected outcome, run at registration (not part of content_hash).
    examples: Mapped[list | None] = mapped_column(JSON, nullable=True)


class PolicyChunk(TenantScoped, db.Model):
    """A retrievable piece of a policy version, with provenance for citations."""

    __tablename__ = "policy_chunks"
    __table_args__ = (Index("ix_policy_chunks_version", "policy_version_id", "ordinal"),)

    chunk_id: Mapped[str] = mapped_column(String(96), primary_key=True)
    client_id: Mapped[str] = mapped_column(String(64), index=True)
    policy_id: Mapped[str] = mapped_column(String(128))
    policy_version_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("policy_versions.policy_version_id", ondelete="CASCADE")
    )
    ordinal: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    heading: Mapped[str] = mapped_column(String(1000), default="")
    page: Mapped[int | None] = mapped_column(Integer, nullable=True)
    is_rule: Mapped[bool] = mapped_column(Boolean, default=False)
    embedding_model: Mapped[str] = mapped_column(String(64), default="")
    embedding: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)


class PolicyDocument(TenantScoped, db.Model):
    """An uploaded original, kept so a version can always be traced to its source bytes."""

    __tablename__ = "policy_documents"

    document_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tenants.client_id", ondelete="CASCADE"), index=True
    )
    policy_id: Mapped[str] = mapped_column(String(128))
    filename: Mapped[str] = mapped_column(String(512))
    content_type: Mapped[str] = mapped_column(String(128), default="")
    size_bytes: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
