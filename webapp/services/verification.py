"""Full verification of a tenant's ledger, and the verification summary.

`verify_ledger` recomputes everything from what is stored: each event's hash from its decrypted
content, its leaf hash and signed receipt; the Merkle tree from the leaves in `leaf_index` order
(`ledger_leaves` joined to the events they name, and every stored node that proofs are read
from); each checkpoint's payload, hash, signature and link to the one before; and each
checkpoint's root against the recomputed tree. Each broken link is reported once, against the
`seq` or `checkpoint_id` it belongs to, with what is wrong.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from nacl.exceptions import BadSignatureError, CryptoError
from nacl.signing import VerifyKey
from sqlalchemy import Connection, and_, exists, select, text

from webapp.extensions import db
from webapp.ledger import cbor, merkle
from webapp.ledger import events as ledger_events
from webapp.ledger.errors import InvalidEventError
from webapp.ledger.verify import confidence_bucket
from webapp.models import (
    Checkpoint,
    LedgerEvent,
    LedgerVerification,
    SigningKey,
    iso,
    utcnow,
)
from webapp.models.ledger import LedgerLeaf
from webapp.runtime import vault
from webapp.services import anchoring, sealing
from webapp.services.at_rest import SealedDataError, ledger_associated_data, open_sealed
from webapp.services.canonical import intent_hash
from webapp.services.checkpoints import checkpoint_view, latest_checkpoint
from webapp.services.ledger import SEALED_FIELDS
from webapp.services.tree_store import read_node_ranges

log = logging.getLogger(__name__)

MAX_ERRORS = 1000  # a wholesale corruption must not turn the answer into megabytes
PAGE = 2000  # events read per query
FLUSH = 4096  # leaves hashed into the tree (and compared with stored nodes) at a time

_EVENTS = LedgerEvent.__table__
_LEAVES = LedgerLeaf.__table__
_CHECKPOINTS = Checkpoint.__table__
_EVENT_COLUMNS = [
    _EVENTS.c[name]
    for name in (
        "seq",
        "event_uuid",
        "request_id",
        "agent_id",
        "tool_name",
        "action_category",
        "policy_id",
        "policy_version_id",
        "policy_content_hash",
        "intent_hash",
        "confidence",
        "confidence_bucket",
        "decision_status",
        "approved",
        "accepted_at",
        "canonical_version",
        "sealed",
        "event_hash",
        "leaf_hash",
        "receipt_key_id",
        "receipt_signature",
        "receipt_payload",
    )
]
# A sealed event's place: the leaf row, and the event it names (columns None when it is gone).
_LEAF_COLUMNS = [
    _LEAVES.c.leaf_index,
    _LEAVES.c.checkpoint_id,
    _LEAVES.c.seq.label("leaf_seq"),
    _LEAVES.c.hash.label("stored_leaf"),
]
_LEAVES_TO_EVENTS = _LEAVES.outerjoin(
    _EVENTS, and_(_EVENTS.c.seq == _LEAVES.c.seq, _EVENTS.c.client_id == _LEAVES.c.client_id)
)
_HAS_LEAF = exists().where(
    _LEAVES.c.seq == _EVENTS.c.seq, _LEAVES.c.client_id == _EVENTS.c.client_id
)
_DECISION_STATUSES = {"approved", "denied"}
_INDEX_ORDER_ONLY = text(
    "SELECT set_config('enable_bitmapscan', 'off', true), "
    "set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)"
)


def verify_ledger(client_id: str) -> dict[str, Any]:
    """CONTRACT §11 `GET /ledger/verify`; the outcome is recorded for the summary."""
    connection = db.session.connection()
    if connection.dialect.name == "postgresql":
        # Until this request's transaction ends (SET LOCAL): every read below is a page of
        # primary-key order joined row by row. Without fresh statistics the planner guesses a
        # handful of rows per tenant and hashes, or bitmap-scans and sorts, the whole tenant for
        # every page, which makes a full verification quadratic.
        connection.execute(_INDEX_ORDER_ONLY)
    result = _Verifier(connection, client_id).run()
    db.session.add(
        LedgerVerification(
            client_id=client_id, ran_at=utcnow(), intact=result["intact"], result=result
        )
    )
    db.session.commit()
    log.info(
        "ledger verified: %s",
        "intact" if result["intact"] else f"{len(result['errors'])} problem(s)",
        extra={"client_id": client_id},
    )
    return result


def verification_summary(client_id: str) -> dict[str, Any]:
    """Anchor state, key versions, the last verification, the latest checkpoint, and how long
    the oldest unsealed event has waited (flagged once that exceeds `mmd_seconds`)."""
    config = vault().config
    latest = latest_checkpoint(client_id)
    last = db.session.scalar(
        LedgerVerification.for_tenant(client_id).order_by(LedgerVerification.id.desc()).limit(1)
    )
    oldest = sealing.oldest_unsealed_at(client_id)
    status = sealing.seal_status(client_id)
    now = utcnow()
    age = max(0.0, (now - oldest).total_seconds()) if oldest else None
    mmd = latest.mmd_seconds if latest else config.anchor_interval_seconds
    signer = vault().signer.key_id
    return {
        "client_id": client_id,
        "generated_at": iso(now),
        "tree_size": latest.tree_size if latest else 0,
        "latest_checkpoint": checkpoint_view(latest) if latest else None,
        "sealing": {
            "unsealed_events": sealing.unsealed_count(client_id),
            "oldest_unsealed_at": iso(oldest),
            "oldest_unsealed_age_seconds": round(age, 3) if age is not None else None,
            "mmd_seconds": mmd,
            "overdue": age is not None and age > mmd,
            "last_sealed_at": iso(status.last_sealed_at) if status else None,
            "refused": status.failure if status else "",
            "refused_at": iso(status.failed_at) if status else None,
        },
        "anchor": anchoring.export_state(client_id),
        "keys": [
            {
                "key_id": row.key_id,
                "algorithm": row.algorithm,
                "active_from": iso(row.active_from),
                "retired_at": iso(row.retired_at),
                "signing": row.key_id == signer and row.retired_at is None,
            }
            for row in db.session.scalars(select(SigningKey).order_by(SigningKey.active_from))
        ],
        "last_verified_at": iso(last.ran_at) if last else None,
        "last_verification": (
            {
                "ran_at": iso(last.ran_at),
                "intact": last.intact,
                "verified_entries": last.result.get("verified_entries"),
                "verified_checkpoints": last.result.get("verified_checkpoints"),
                "tree_size": last.result.get("tree_size"),
                "error_count": len(last.result.get("errors", []))
                + last.result.get("errors_omitted", 0),
            }
            if last
            else None
        ),
    }


# --- the verifier ------------------------------------------------------------------------------


@dataclass
class _StoredCheckpoint:
    checkpoint_id: int
    tree_size: int
    root_hash: str
    ok: bool = True


@dataclass
class _MissingCheckpoint:
    seqs: list[int] = field(default_factory=list)


class _Verifier:
    def __init__(self, connection: Connection, client_id: str) -> None:
        self.connection = connection
        self.client_id = client_id
        self.key = vault().transport_key
        self.errors: list[dict[str, Any]] = []
        self.omitted = 0
        self.verify_keys = {
            row.key_id: VerifyKey(row.public_key) for row in db.session.scalars(select(SigningKey))
        }
        self.verified_entries = 0
        # The tree recomputed so far: its size, its frontier, and leaves not yet hashed in.
        self.size = 0
        self.frontier: dict[merkle.NodeKey, bytes] = {}
        self.pending: list[bytes] = []
        self.tree_usable = True

    # --- reporting ---

    def problem(
        self, problem: str, *, seq: int | None = None, checkpoint_id: int | None = None
    ) -> None:
        if len(self.errors) >= MAX_ERRORS:
            self.omitted += 1
            return
        where: dict[str, Any] = (
            {"seq": seq} if seq is not None else {"checkpoint_id": checkpoint_id}
        )
        self.errors.append({**where, "problem": problem})

    def checkpoint_problem(self, checkpoint_id: int, problem: str) -> None:
        stored = self.by_id.get(checkpoint_id)
        if stored is not None:
            stored.ok = False
        self.problem(problem, checkpoint_id=checkpoint_id)

    # --- the run ---

    def run(self) -> dict[str, Any]:
        self.checkpoints = self.check_checkpoint_chain()
        self.by_id = {c.checkpoint_id: c for c in self.checkpoints}
        self.by_size: dict[int, _StoredCheckpoint] = {}
        for checkpoint in self.checkpoints:
            self.by_size.setdefault(checkpoint.tree_size, checkpoint)
        self.boundaries = [c for c in self.checkpoints if c.tree_size > 0]
        self.missing_checkpoints: dict[int, _MissingCheckpoint] = {}
        self.next_boundary = 0
        self.previous: tuple[int, int] | None = None  # (leaf_index, seq) of the last leaf
        self.sealed_through = 0  # the seq of the last leaf row: the sealer's high-water mark
        self.explained: set[int] = set()  # events without a leaf row, already reported

        for page in self.sealed_pages():
            self.sealed_through = page[-1].leaf_seq
            for row in page:
                if row.seq is None:
                    continue  # the event is gone: its leaf is filled in, and reported, as a gap
                if row.leaf_index > self.placed:
                    self.fill_missing_leaves(row.leaf_index, next_seq=row.seq)
                problems = self.event_problems(row)
                stored = bytes(row.stored_leaf) if row.stored_leaf is not None else None
                problems += self.place_leaf(row, stored)
                self.report_event(row, problems)
        latest_size = self.checkpoints[-1].tree_size if self.checkpoints else 0
        if self.placed < latest_size:
            self.fill_missing_leaves(latest_size, next_seq=None)
        self.flush()
        self.report_missing_checkpoints()

        for row in self.events_without_leaf():
            if row.seq in self.explained:
                continue
            problems = self.event_problems(row)
            if row.seq < self.sealed_through:
                problems.append(
                    f"has no leaf, yet later events are sealed (up to seq {self.sealed_through}): "
                    "its leaf row was removed, or sealing skipped it"
                )
            self.report_event(row, problems)

        root = ""
        if self.size and self.tree_usable:
            root = merkle.root_from_nodes(self.size, self.get_frontier).hex()
        latest = self.checkpoints[-1] if self.checkpoints else None
        errors = sorted(
            self.errors,
            key=lambda e: (0, e["checkpoint_id"]) if "checkpoint_id" in e else (1, e["seq"]),
        )
        return {
            "intact": not errors and not self.omitted,
            "verified_entries": self.verified_entries,
            "verified_checkpoints": sum(1 for c in self.checkpoints if c.ok),
            "tree_size": self.size,
            "root_hash": root,
            "latest_checkpoint_id": latest.checkpoint_id if latest else None,
            "errors": errors,
            "errors_omitted": self.omitted,
        }

    # --- checkpoints ---

    def check_checkpoint_chain(self) -> list[_StoredCheckpoint]:
        rows = self.connection.execute(
            select(_CHECKPOINTS)
            .where(_CHECKPOINTS.c.client_id == self.client_id)
            .order_by(_CHECKPOINTS.c.checkpoint_id)
        ).all()
        stored: list[_StoredCheckpoint] = []
        hashes = {row.checkpoint_hash for row in rows}
        expected_id, previous = 1, None
        for row in rows:
            problems: list[str] = []
            if row.checkpoint_id > expected_id:
                for missing in range(expected_id, row.checkpoint_id):
                    link = row.prev_checkpoint_hash
                    self.problem(
                        f"missing from the chain: checkpoint {row.checkpoint_id} follows "
                        f"checkpoint {expected_id - 1 or 'none'} and links to {link or '(nothing)'}"
                        + ("" if link in hashes else ", which no stored checkpoint has"),
                        checkpoint_id=missing,
                    )
            problems += self.checkpoint_record_problems(row)
            if row.checkpoint_id == 1:
                if row.prev_checkpoint_hash != "":
                    problems.append("the first checkpoint must have an empty prev_checkpoint_hash")
            elif previous is not None and row.checkpoint_id == previous.checkpoint_id + 1:
                if row.prev_checkpoint_hash != previous.checkpoint_hash:
                    problems.append(
                        f"prev_checkpoint_hash {row.prev_checkpoint_hash} is not the hash of "
                        f"checkpoint {previous.checkpoint_id} ({previous.checkpoint_hash})"
                    )
            if row.tree_size < 1:
                problems.append("tree_size is 0: a checkpoint is never empty")
            if previous is not None and row.tree_size <= previous.tree_size:
                problems.append(
                    f"tree_size {row.tree_size} does not grow from checkpoint "
                    f"{previous.checkpoint_id}'s {previous.tree_size}"
                )
            # Leaves are checked against the root the checkpoint signed, when it can be read.
            signed_root = _signed_root(row.payload) or row.root_hash
            entry = _StoredCheckpoint(row.checkpoint_id, row.tree_size, signed_root, not problems)
            for problem in problems:
                self.problem(problem, checkpoint_id=row.checkpoint_id)
            stored.append(entry)
            expected_id, previous = row.checkpoint_id + 1, row
        return stored

    def checkpoint_record_problems(self, row: Any) -> list[str]:
        payload = bytes(row.payload)
        problems = []
        computed = ledger_events.checkpoint_hash(payload)
        if computed != row.checkpoint_hash:
            problems.append(
                f"checkpoint_hash {row.checkpoint_hash} is not the hash of its payload ({computed})"
            )
        try:
            decoded = cbor.decode(payload)
        except ValueError as error:
            return problems + [f"payload does not decode: {error}"]
        expected = {
            "export_targets": [row.export_target] if row.export_target else [],
            "key_id": row.signer_key_id,
            "mmd_seconds": row.mmd_seconds,
            "prev_checkpoint_hash": row.prev_checkpoint_hash,
            "root_hash": row.root_hash,
            "signed_at": row.signed_at,
            "tree_size": row.tree_size,
            "type": "checkpoint",
            "version": 1,
        }
        if not isinstance(decoded, dict) or set(decoded) != set(expected):
            problems.append("payload does not have exactly the checkpoint keys")
        else:
            changed = [name for name, value in expected.items() if decoded[name] != value]
            if changed:
                verb = "differs" if len(changed) == 1 else "differ"
                problems.append(f"stored {', '.join(changed)} {verb} from the signed payload")
        signature_problem = self.signature_problem(
            row.signer_key_id, payload, bytes(row.signature), row.signature_algorithm
        )
        if signature_problem:
            problems.append(f"checkpoint signature {signature_problem}")
        return problems

    def report_missing_checkpoints(self) -> None:
        for checkpoint_id, missing in sorted(self.missing_checkpoints.items()):
            seqs = missing.seqs
            already = any(e.get("checkpoint_id") == checkpoint_id for e in self.errors)
            what = (
                f"{len(seqs)} event(s) (seq {min(seqs)}..{max(seqs)}) were sealed by it "
                "but it is not stored"
            )
            if already:
                continue  # the chain walk already named it, with its neighbours
            latest = self.checkpoints[-1].checkpoint_id if self.checkpoints else 0
            where = f"; the chain ends at checkpoint {latest}" if checkpoint_id > latest else ""
            self.problem(f"missing: {what}{where}", checkpoint_id=checkpoint_id)

    # --- events ---

    def sealed_pages(self) -> Iterator[list[Any]]:
        """Leaf rows in leaf_index order with the events they name, a page at a time."""
        after = -1
        while True:
            rows = self.connection.execute(
                select(*_LEAF_COLUMNS, *_EVENT_COLUMNS)
                .select_from(_LEAVES_TO_EVENTS)
                .where(_LEAVES.c.client_id == self.client_id, _LEAVES.c.leaf_index > after)
                .order_by(_LEAVES.c.leaf_index)
                .limit(PAGE)
            ).all()
            if rows:
                yield rows
            if len(rows) < PAGE:
                return
            after = rows[-1].leaf_index

    def events_without_leaf(
        self, after: int | None = None, before: int | None = None, limit: int | None = None
    ) -> Iterator[Any]:
        """The tenant's events with no leaf row and `after < seq < before`, in seq order: those
        waiting for sealing, and any whose leaf row is missing."""
        taken = 0
        while limit is None or taken < limit:
            page = PAGE if limit is None else min(PAGE, limit - taken)
            query = select(*_EVENT_COLUMNS).where(_EVENTS.c.client_id == self.client_id, ~_HAS_LEAF)
            if after is not None:
                query = query.where(_EVENTS.c.seq > after)
            if before is not None:
                query = query.where(_EVENTS.c.seq < before)
            rows = self.connection.execute(query.order_by(_EVENTS.c.seq).limit(page)).all()
            yield from rows
            taken += len(rows)
            if len(rows) < page:
                return
            after = rows[-1].seq

    def report_event(self, row: Any, problems: list[str]) -> None:
        for problem in problems:
            self.problem(problem, seq=row.seq)
        if not problems:
            self.verified_entries += 1

    def event_problems(self, row: Any) -> list[str]:
        problems: list[str] = []
        try:
            content = open_sealed(
                self.key, ledger_associated_data(self.client_id, row.event_uuid), bytes(row.sealed)
            )
            if not isinstance(content, dict) or set(content) != set(SEALED_FIELDS):
                raise SealedDataError("sealed content does not hold the sealed fields")
        except (SealedDataError, ValueError) as error:
            problems.append(
                f"sealed content cannot be opened ({error}): it was altered, moved from another "
                "row or tenant, or the transport key is wrong"
            )
            content = None
        if content is not None:
            event = {
                "accepted_at": row.accepted_at,
                "action_category": row.action_category,
                "action_metadata": content["action_metadata"],
                "agent_id": row.agent_id,
                "approved": row.approved,
                "canonical_version": row.canonical_version,
                "citations": content["citations"],
                "confidence": row.confidence,
                "event_uuid": row.event_uuid,
                "evidence_chunks": content["evidence_chunks"],
                "intent_hash": row.intent_hash,
                "policy_id": row.policy_id,
                "policy_version_id": row.policy_version_id,
                "policy_content_hash": row.policy_content_hash,
                "reason": content["reason"],
                "request_id": row.request_id,
                "tool_args": content["tool_args"],
                "tool_name": row.tool_name,
            }
            try:
                computed = ledger_events.event_hash(event)
            except InvalidEventError as error:
                problems.append(f"stored fields do not form a valid event: {error}")
            else:
                if computed != row.event_hash:
                    problems.append(
                        f"event_hash recomputed from the stored content is {computed}, not the "
                        f"stored {row.event_hash}: the event was altered after it was written"
                    )
            if row.action_category in ledger_events.DECISION_CATEGORIES:
                try:
                    expected_intent = intent_hash(content["tool_args"])
                except (TypeError, ValueError):
                    expected_intent = ""
                if row.intent_hash != expected_intent:
                    problems.append("intent_hash is not the SHA-256 of the JCS of tool_args")
        problems += self.field_problems(row)
        leaf = self.leaf_of(row.event_hash)
        if leaf != row.leaf_hash:
            problems.append(f"leaf_hash is not SHA-256(0x00 || event_hash) ({leaf})")
        try:
            expected_receipt = ledger_events.receipt_payload(
                accepted_at=row.accepted_at,
                event_hash=row.event_hash,
                event_uuid=row.event_uuid,
                leaf_hash=row.leaf_hash,
                receipt_key_id=row.receipt_key_id,
                request_id=row.request_id,
            )
        except ValueError as error:
            problems.append(f"receipt cannot be rebuilt: {error}")
        else:
            if bytes(row.receipt_payload) != expected_receipt:
                problems.append("receipt payload does not bind this event's stored fields")
        signature_problem = self.signature_problem(
            row.receipt_key_id, bytes(row.receipt_payload), bytes(row.receipt_signature)
        )
        if signature_problem:
            problems.append(f"receipt signature {signature_problem}")
        return problems

    @staticmethod
    def field_problems(row: Any) -> list[str]:
        if row.canonical_version != ledger_events.CANONICAL_VERSION:
            return [f"canonical_version is {row.canonical_version}, not 2"]
        if row.action_category not in ledger_events.ACTION_CATEGORIES:
            return [f"unknown action_category {row.action_category!r}"]
        if row.action_category in ledger_events.DECISION_CATEGORIES:
            problems = []
            expected_status = "approved" if row.approved else "denied"
            if row.decision_status != expected_status:
                problems.append(f"decision_status {row.decision_status!r} contradicts approved")
            try:
                bucket = confidence_bucket(row.confidence)
            except ValueError:
                bucket = None
            if row.confidence_bucket != bucket:
                problems.append(
                    f"confidence_bucket {row.confidence_bucket!r} contradicts confidence"
                )
            return problems
        if row.approved or row.confidence != 0 or row.decision_status or row.confidence_bucket:
            return [
                f"{row.action_category} is not a decision: approved false, confidence 0 and no "
                "decision_status or confidence_bucket"
            ]
        return []

    @staticmethod
    def leaf_of(event_hash: str) -> str:
        try:
            return ledger_events.leaf_hash_hex(event_hash)
        except ValueError:
            return "(event_hash is not a SHA-256 hex digest)"

    def signature_problem(
        self, key_id: str, payload: bytes, signature: bytes, algorithm: str = "Ed25519"
    ) -> str | None:
        if algorithm != ledger_events.SIGNATURE_ALGORITHM:
            return f"uses {algorithm!r}, not Ed25519"
        verify_key = self.verify_keys.get(key_id)
        if verify_key is None:
            return f"names key {key_id!r}, which is not registered"
        try:
            verify_key.verify(payload, signature)
        except (BadSignatureError, CryptoError, ValueError):
            return f"does not verify with key {key_id}"
        return None

    # --- the tree ---

    def place_leaf(self, row: Any, stored: bytes | None) -> list[str]:
        """Take a sealed event's leaf into the tree; its problems of order and placement."""
        problems = []
        index = row.leaf_index
        if self.previous is not None and row.seq < self.previous[1]:
            problems.append(
                f"out of seq order: has leaf_index {index} but its seq is lower than seq "
                f"{self.previous[1]} at leaf_index {self.previous[0]} (rows swapped or reordered)"
            )
        problems += self.sealed_by_problems(row)
        leaf = _hash_bytes(row.leaf_hash)
        if stored is None:
            checkpoint = self.covering_checkpoint_for_node(0, index)
            self.checkpoint_problem(
                checkpoint, f"stored tree node (level 0, index {index}) is not stored"
            )
        elif stored != leaf:
            problems.append(
                f"leaf_hash is not leaf {index} of the sealed tree ({stored.hex()}): the row was "
                "changed, or moved to another leaf_index, after it was sealed"
            )
            leaf = stored  # the tree the checkpoints signed; the event is reported on its own
        self.append_leaf(leaf)
        self.previous = (index, row.seq)
        return problems

    def sealed_by_problems(self, row: Any) -> list[str]:
        covering = self.covering_checkpoint(row.leaf_index)
        if row.checkpoint_id is None:
            return [f"has leaf_index {row.leaf_index} but no checkpoint_id"]
        if row.checkpoint_id not in self.by_id:
            missing = self.missing_checkpoints.setdefault(row.checkpoint_id, _MissingCheckpoint())
            missing.seqs.append(row.seq)
            return []  # reported once, against the missing checkpoint
        if covering is None or covering.checkpoint_id != row.checkpoint_id:
            where = f"checkpoint {covering.checkpoint_id}" if covering else "no stored checkpoint"
            return [
                f"checkpoint_id {row.checkpoint_id} does not match: leaf_index {row.leaf_index} "
                f"was first covered by {where}"
            ]
        return []

    def covering_checkpoint(self, index: int) -> _StoredCheckpoint | None:
        """The first stored checkpoint whose tree holds `index` (leaves arrive in order)."""
        while (
            self.next_boundary < len(self.boundaries)
            and self.boundaries[self.next_boundary].tree_size <= index
        ):
            self.next_boundary += 1
        if self.next_boundary < len(self.boundaries):
            return self.boundaries[self.next_boundary]
        return None

    def fill_missing_leaves(self, upto: int, next_seq: int | None) -> None:
        """Leaves [size, upto) have no leaf row, or name an event that is gone: report them, and
        carry on with the stored nodes.

        An event with no leaf row whose seq lies in the gap is the leaf whose row was removed:
        it is named itself and its leaf_hash stands in for the lost stored leaf (the nodes and
        roots above then confirm it, or report the checkpoint). Where a leaf row remains, such
        an event is matched only by an equal leaf hash."""
        start = self.placed
        stored = self.read_level_range(0, start, upto - 1)
        low = self.previous[1] if self.previous else None
        orphans = list(self.events_without_leaf(low, next_seq, limit=upto - start))
        unexplained: list[int] = []
        for index in range(start, upto):
            value = stored.get((0, index))
            orphan = orphans[0] if orphans else None
            if orphan is not None and (value is None or orphan.leaf_hash == value.hex()):
                orphans.pop(0)
                self.explained.add(orphan.seq)
                sealed_by = self.covering_checkpoint_for_node(0, index)
                self.report_event(
                    orphan,
                    self.event_problems(orphan)
                    + [
                        f"has no leaf row, yet it is leaf_index {index} of the sealed tree "
                        f"(checkpoint {sealed_by}): its row in ledger_leaves was removed"
                    ],
                )
                value = value if value is not None else _hash_bytes(orphan.leaf_hash)
            else:
                unexplained.append(index)
            if value is None:
                self.tree_usable = False
                value = b"\x00" * 32
            self.append_leaf(value)
        after = f" after seq {low}" if self.previous else ""
        before = f" before seq {next_seq}" if next_seq is not None else ""
        for first, last in _runs(unexplained):
            for checkpoint_id, low_index, high_index in self.split_by_checkpoint(first, last + 1):
                span = (
                    f"leaf_index {low_index}"
                    if low_index == high_index
                    else f"leaf_index {low_index}..{high_index}"
                )
                self.checkpoint_problem(
                    checkpoint_id,
                    f"{span} (sealed by this checkpoint) has no event{after}{before}: "
                    "a sealed event was deleted",
                )

    def split_by_checkpoint(self, start: int, end: int) -> list[tuple[int, int, int]]:
        spans = []
        lower = 0
        for checkpoint in self.checkpoints:
            low, high = max(start, lower), min(end, checkpoint.tree_size) - 1
            if low <= high:
                spans.append((checkpoint.checkpoint_id, low, high))
            lower = max(lower, checkpoint.tree_size)
        if end > lower:
            latest = self.checkpoints[-1].checkpoint_id + 1 if self.checkpoints else 1
            spans.append((latest, max(start, lower), end - 1))
        return spans

    @property
    def placed(self) -> int:
        """Leaves taken in so far, hashed into the tree or waiting to be."""
        return self.size + len(self.pending)

    def append_leaf(self, leaf: bytes) -> None:
        self.pending.append(leaf)
        boundary = self.boundary_at(self.placed)
        if boundary is not None or len(self.pending) >= FLUSH:
            self.flush()
            if boundary is not None:
                self.check_root(boundary)

    def boundary_at(self, size: int) -> _StoredCheckpoint | None:
        return self.by_size.get(size)

    def flush(self) -> None:
        if not self.pending:
            return
        old_size, leaves = self.size, self.pending
        self.pending = []
        new_nodes = merkle.new_nodes_for_append(old_size, leaves, self.get_frontier)
        self.size = old_size + len(leaves)
        if self.tree_usable:
            self.compare_stored_nodes(old_size, new_nodes)
        known = dict(self.frontier)
        known.update({(level, index): value for level, index, value in new_nodes})
        self.frontier = {key: known[key] for key in merkle.nodes_needed_for_append(self.size)}

    def get_frontier(self, level: int, index: int) -> bytes:
        return self.frontier[(level, index)]

    def compare_stored_nodes(self, old_size: int, new_nodes: list[tuple[int, int, bytes]]) -> None:
        ranges: dict[int, tuple[int, int]] = {}
        for level, index, _ in new_nodes:
            low, high = ranges.get(level, (index, index))
            ranges[level] = (min(low, index), max(high, index))
        ranges.pop(0, None)  # leaves were compared with their events as they came in
        stored = self.read_ranges(ranges)
        for level, index, value in new_nodes:
            if level == 0:
                continue
            found = stored.get((level, index))
            if found == value:
                continue
            checkpoint = self.covering_checkpoint_for_node(level, index)
            state = "is not stored" if found is None else "differs from the recomputed tree"
            self.checkpoint_problem(
                checkpoint,
                f"stored tree node (level {level}, index {index}) {state}: proofs read from it "
                "would not verify",
            )

    def covering_checkpoint_for_node(self, level: int, index: int) -> int:
        last_leaf = ((index + 1) << level) - 1
        for checkpoint in self.checkpoints:
            if checkpoint.tree_size > last_leaf:
                return checkpoint.checkpoint_id
        return (self.checkpoints[-1].checkpoint_id + 1) if self.checkpoints else 1

    def check_root(self, checkpoint: _StoredCheckpoint) -> None:
        if not self.tree_usable:
            return
        computed = merkle.root_from_nodes(self.size, self.get_frontier).hex()
        if computed != checkpoint.root_hash:
            self.checkpoint_problem(
                checkpoint.checkpoint_id,
                f"root_hash {checkpoint.root_hash} is not the root of the {self.size} stored "
                f"leaves ({computed}): the leaves it signed were changed, removed or reordered",
            )

    def read_level_range(self, level: int, low: int, high: int) -> dict[merkle.NodeKey, bytes]:
        return self.read_ranges({level: (low, high)})

    def read_ranges(self, ranges: dict[int, tuple[int, int]]) -> dict[merkle.NodeKey, bytes]:
        return read_node_ranges(self.connection, self.client_id, ranges)


def _runs(indexes: list[int]) -> list[tuple[int, int]]:
    """Sorted integers as (first, last) runs of consecutive values."""
    runs: list[tuple[int, int]] = []
    for index in indexes:
        if runs and runs[-1][1] == index - 1:
            runs[-1] = (runs[-1][0], index)
        else:
            runs.append((index, index))
    return runs


def _signed_root(payload: bytes) -> str | None:
    try:
        root = cbor.decode(bytes(payload)).get("root_hash")
    except (ValueError, AttributeError):
        return None
    return root if isinstance(root, str) else None


def _hash_bytes(value: str) -> bytes:
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raw = b""
    # A malformed stored hash is reported by the event checks; the tree still needs 32 bytes.
    return raw if len(raw) == 32 else hashlib.sha256(value.encode()).digest()
