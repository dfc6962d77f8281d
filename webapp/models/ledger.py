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
    select,
)
from sqlalchemy.orm import Mapped, column_property, mapped_column
from sqlalchemy.sql.selectable import ScalarSelect

from webapp.extensions import db
from webapp.models.base import TenantScoped, UTCDateTime, utcnow

# SQLite only autoincrements INTEGER PRIMARY KEY; PostgreSQL gets a BIGINT identity.
SeqType = BigInteger().with_variant(Integer(), "sqlite")


class LedgerLeaf(db.Model):
    """One leaf of a tenant's Merkle tree, and the tree nodes it completes.

    Which event the leaf is (`seq`), the checkpoint that first signed it, the leaf hash (the
    tree's level-0 node) and `nodes`: the hashes of the complete subtrees whose last leaf this
    is, level 1 upwards, 32 bytes each. Leaf i completes one subtree per trailing 1 bit of i
    (node (level, index) ends at leaf ((index + 1) << level) - 1), so every node of the tree is
    stored exactly once, beside the leaf that completed it: one row per sealed event holds the
    whole tree. Written once, in bulk, by the sealing batch that appends the leaf; never updated.

    Leaves follow `seq` (events are sealed in seq order, under the tenant's seal lock), so the
    seq of the tenant's last leaf is its sealed high-water mark: every event above it waits for
    sealing, every event at or below it has a leaf.
    """

    __tablename__ = "ledger_leaves"
    __table_args__ = (
        # seq is unique across tenants (it is ledger_events' key): an event has one leaf at most.
        Index("uq_ledger_leaves_seq", "seq", unique=True),
        # On SQLite the primary key is the table itself (no rowid plus a separate key index).
        {"sqlite_with_rowid": False},
    )

    client_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    leaf_index: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    seq: Mapped[int] = mapped_column(BigInteger)
    # Sealing always sets both; they are nullable only so that a ledger migrated from the
    # columns on ledger_events keeps exactly what it had, gaps included, for verify to report.
    checkpoint_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    hash: Mapped[bytes | None] = mapped_column(LargeBinary(32), nullable=True)
    nodes: Mapped[bytes] = mapped_column(LargeBinary, default=b"")


class LedgerEvent(TenantScoped, db.Model):
    """One event. Sensitive fields live only in ``sealed`` (AEAD; tenant and event as AD)."""

    __tablename__ = "ledger_events"
    # Insert-only: sealing never updates an event (its place in the tree is in ledger_leaves),
    # so the row and its indexes are written once, by the transaction that records it.
    __table_args__ = (
        Index("ix_ledger_events_tenant_seq", "client_id", "seq"),
        Index("ix_ledger_events_tenant_request", "client_id", "request_id"),
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
    receipt_key_id: Mapped[str] = mapped_column(String(64))
    receipt_signature: Mapped[bytes] = mapped_column(LargeBinary)
    receipt_payload: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


def _leaf_column(name: str) -> ScalarSelect:
    leaves = LedgerLeaf.__table__
    events = LedgerEvent.__table__
    return (
        select(leaves.c[name])
        .where(leaves.c.seq == events.c.seq, leaves.c.client_id == events.c.client_id)
        .correlate_except(leaves)
        .scalar_subquery()
    )


# Read-only views of the event's leaf (None until sealed), loaded with the row by primary-key
# lookups into ledger_leaves: every reader of an event (entry view, proofs, dashboard) keeps
# reading `event.leaf_index` and `event.checkpoint_id` as before.
LedgerEvent.leaf_index = column_property(_leaf_column("leaf_index"))
LedgerEvent.checkpoint_id = column_property(_leaf_column("checkpoint_id"))


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
