"""The ledger: events with receipts, the stored Merkle tree, and signed checkpoints."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from webapp.extensions import db
from webapp.models.base import TenantScoped, UTCDateTime, utcnow

# SQLite only autoincrements INTEGER PRIMARY KEY; PostgreSQL gets a BIGINT identity.
SeqType = BigInteger().with_variant(Integer(), "sqlite")


class LedgerEvent(TenantScoped, db.Model):
    """One event. Sensitive fields live only in ``sealed`` (AEAD; tenant and event as AD)."""

    __tablename__ = "ledger_events"
    __table_args__ = (
        # Unique over sealed events only: a query for unsealed events (leaf_index IS NULL) then
        # cannot wander into this index, and it holds nothing for the backlog.
        Index(
            "uq_ledger_events_leaf",
            "client_id",
            "leaf_index",
            unique=True,
            sqlite_where=text("leaf_index IS NOT NULL"),
            postgresql_where=text("leaf_index IS NOT NULL"),
        ),
        Index("ix_ledger_events_tenant_seq", "client_id", "seq"),
        Index("ix_ledger_events_tenant_request", "client_id", "request_id"),
        # Only the events still waiting for sealing, in seq order: the sealer's batches, the
        # oldest unsealed event and the tenants with work all read it, and it stays small.
        Index(
            "ix_ledger_events_pending",
            "client_id",
            "seq",
            sqlite_where=text("leaf_index IS NULL"),
            postgresql_where=text("leaf_index IS NULL"),
        ),
    )

    seq: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(String(64))
    event_uuid: Mapped[str] = mapped_column(String(36), unique=True)
    request_id: Mapped[str] = mapped_column(String(64), default="")
    agent_id: Mapped[str] = mapped_column(String(256), default="")
    tool_name: Mapped[str] = mapped_column(String(256), default="")
    action_category: Mapped[str] = mapped_column(String(32))
    policy_id: Mapped[str] = mapped_column(String(128), default="")
    policy_version_id: Mapped[str] = mapped_column(String(64), default="")
    policy_content_hash: Mapped[str] = mapped_column(String(64), default="")
    intent_hash: Mapped[str] = mapped_column(String(64), default="")
    confidence: Mapped[float] = mapped_column(Float, default=0.0)
    confidence_bucket: Mapped[str | None] = mapped_column(String(16), nullable=True)
    decision_status: Mapped[str | None] = mapped_column(String(32), nullable=True)
    approved: Mapped[bool] = mapped_column(Boolean, default=False)
    accepted_at: Mapped[str] = mapped_column(String(32))
    canonical_version: Mapped[int] = mapped_column(Integer, default=2)
    sealed: Mapped[bytes] = mapped_column(LargeBinary)
    event_hash: Mapped[str] = mapped_column(String(64))
    leaf_hash: Mapped[str] = mapped_column(String(64))
    leaf_index: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    checkpoint_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    receipt_key_id: Mapped[str] = mapped_column(String(64))
    receipt_signature: Mapped[bytes] = mapped_column(LargeBinary)
    receipt_payload: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class MerkleNode(db.Model):
    """A complete subtree hash: leaves [index·2^level, (index+1)·2^level) of one tenant."""

    __tablename__ = "merkle_nodes"
    # On SQLite the primary key is the table itself (no rowid plus a separate key index).
    __table_args__ = {"sqlite_with_rowid": False}

    client_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    level: Mapped[int] = mapped_column(Integer, primary_key=True)
    idx: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    hash: Mapped[bytes] = mapped_column(LargeBinary(32))


class Checkpoint(TenantScoped, db.Model):
    __tablename__ = "checkpoints"

    client_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    checkpoint_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    tree_size: Mapped[int] = mapped_column(BigInteger)
    root_hash: Mapped[str] = mapped_column(String(64))
    checkpoint_hash: Mapped[str] = mapped_column(String(64))
    prev_checkpoint_hash: Mapped[str] = mapped_column(String(64), default="")
    signature_algorithm: Mapped[str] = mapped_column(String(16), default="Ed25519")
    signer_key_id: Mapped[str] = mapped_column(String(64))
    signature: Mapped[bytes] = mapped_column(LargeBinary)
    payload: Mapped[bytes] = mapped_column(LargeBinary)
    signed_at: Mapped[str] = mapped_column(String(32))
    mmd_seconds: Mapped[int] = mapped_column(Integer)
    export_target: Mapped[str] = mapped_column(String(1024), default="")
    export_uri: Mapped[str] = mapped_column(String(2048), default="")
    export_status: Mapped[str] = mapped_column(
        String(16), default="pending"
    )  # pending | exported | failed
    export_attempts: Mapped[int] = mapped_column(Integer, default=0)
    export_error: Mapped[str] = mapped_column(Text, default="")
    exported_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class LedgerVerification(TenantScoped, db.Model):
    """The outcome of each full verification pass, so the summary can show the last one."""

    __tablename__ = "ledger_verifications"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(String(64), index=True)
    ran_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    intact: Mapped[bool] = mapped_column(Boolean)
    result: Mapped[dict] = mapped_column(JSON)


class LedgerSealStatus(db.Model):
    """Per tenant: when sealing last appended events, and why it last refused to, if it did."""

    __tablename__ = "ledger_seal_status"

    client_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    last_sealed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    last_checkpoint_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    failure: Mapped[str] = mapped_column(Text, default="")
    failed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
