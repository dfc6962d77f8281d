"""What a SOX 404 evidence pack holds, gathered for one tenant and period.

Every population figure is an aggregate computed by the database (GROUP BY, COUNT, MIN/MAX);
only the rows an auditor must see one by one (manual reviews, governance events, access
changes, token misuse) are read, and those are streamed. The ledger attestation checks the
checkpoints that cover the period and a sample of events drawn from a seed written in the
report, so that an auditor can draw the same sample again.
"""

from __future__ import annotations

import hashlib
import statistics
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, select

from webapp.extensions import db
from webapp.ledger import merkle
from webapp.ledger.encoding import b64url_encode
from webapp.ledger.errors import VerificationError
from webapp.ledger.events import checkpoint_hash
from webapp.ledger.keys import verify_signature
from webapp.models import (
    APPROVED,
    DENIED,
    PENDING_REVIEW,
    PROCESSING,
    ApiKey,
    BurnedToken,
    Checkpoint,
    ClearanceRequest,
    LedgerEvent,
    LedgerVerification,
    SigningKey,
    User,
    iso,
    utcnow,
)
from webapp.models.ledger import LedgerLeaf
from webapp.runtime import vault
from webapp.services.checkpoints import latest_checkpoint
from webapp.services.ledger import open_event
from webapp.services.sealing import sealed_through
from webapp.services.tree_store import MissingNode, node_reader, read_nodes

SCHEMA_VERSION = 1
SAMPLE_SIZE = 20
MAX_LISTED = 5000  # rows listed one by one per section; the counts are always complete
MAX_CHECKPOINTS = 500
# How long reviews took, for the chart: upper bounds in seconds, and their labels.
DURATION_BUCKETS = (
    (60, "< 1 min"),
    (300, "1-5 min"),
    (3600, "5-60 min"),
    (4 * 3600, "1-4 h"),
    (24 * 3600, "4-24 h"),
    (None, "> 24 h"),
)
GOVERNANCE = ("policy_registered", "settings_changed", "agent_lockdown", "agent_release")
CONTROLS = (
    {
        "id": "ITGC-1",
        "name": "Automated authorisation of sensitive actions",
        "objective": "Every guarded tool call is cleared by policy before it runs.",
        "evidence": ["population", "exceptions"],
    },
    {
        "id": "ITGC-2",
        "name": "Manual review",
        "objective": "Calls the policy cannot clear are decided by a person, not the requester.",
        "evidence": ["manual_reviews"],
    },
    {
        "id": "ITGC-3",
        "name": "Change management of policies",
        "objective": "Every policy change is versioned, hashed and attributed.",
        "evidence": ["policy_changes", "settings_changes"],
    },
    {
        "id": "ITGC-4",
        "name": "Logical access",
        "objective": "Users, API keys and agent lockdowns are granted and withdrawn on record.",
        "evidence": ["access", "lockdowns"],
    },
    {
        "id": "ITGC-5",
        "name": "Integrity of the log",
        "objective": "The decision log is complete and unaltered under signed checkpoints.",
        "evidence": ["attestation"],
    },
)

Progress = Callable[[str, int], None]


def collect(
    client_id: str,
    *,
    report_id: str,
    period_start: datetime,
    period_end: datetime,
    seed: str,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The whole report content as a JSON-ready document (schema in docs/reports.md)."""
    step = progress or (lambda _stage, _percent: None)
    window = (period_start, period_end)
    step("population", 10)
    population = _population(client_id, window)
    step("manual_reviews", 25)
    reviews = _manual_reviews(client_id, window)
    step("governance", 40)
    governance = _governance_events(client_id, window)
    step("access", 50)
    access = _access(client_id, window)
    step("exceptions", 55)
    exceptions = _exceptions(client_id, window, reviews, population)
    step("attestation", 65)
    attestation = _attestation(client_id, window, seed)
    controls = [dict(control) for control in CONTROLS]
    document = {
        "schema": "clearance-vault.sox404.v1",
        "schema_version": SCHEMA_VERSION,
        "report_id": report_id,
        "type": "sox_404",
        "client_id": client_id,
        "period": {"start": iso(period_start), "end": iso(period_end)},
        "generated_at": iso(utcnow()),
        "controls": controls,
        "population": population,
        "manual_reviews": reviews,
        "policy_changes": governance["policy_registered"],
        "settings_changes": governance["settings_changed"],
        "lockdowns": governance["lockdowns"],
        "access": access,
        "exceptions": exceptions,
        "attestation": attestation,
    }
    document["summary"] = summary_of(document)
    return document


def summary_of(document: dict[str, Any]) -> dict[str, Any]:
    """The headline figures, shown in the report record and on the first page."""
    population = document["population"]
    reviews = document["manual_reviews"]
    exceptions = document["exceptions"]
    attestation = document["attestation"]
    return {
        "decisions": population["total"],
        "approved": population["by_outcome"].get(APPROVED, 0),
        "denied": population["by_outcome"].get(DENIED, 0),
        "manual_reviews": reviews["count"],
        "self_approvals": reviews["self_approvals"],
        "expired_reviews": reviews["expired"],
        "policy_changes": document["policy_changes"]["count"],
        "settings_changes": document["settings_changes"]["count"],
        "exceptions": exceptions["total"],
        "ledger_intact": attestation["verification"]["intact"],
        "tree_size": attestation["tree_size"],
        "root_hash": attestation["root_hash"],
    }


def sample_indexes(seed: str, lo: int, hi: int, size: int = SAMPLE_SIZE) -> list[int]:
    """Leaf indexes in [lo, hi] drawn from `seed`: the i-th draw is
    lo + int(SHA-256(bytes(seed) || uint32_be(i))) mod (hi - lo + 1), repeats skipped."""
    if hi < lo:
        return []
    count = hi - lo + 1
    wanted = min(size, count)
    chosen: list[int] = []
    seen: set[int] = set()
    draw = 0
    raw = bytes.fromhex(seed)
    while len(chosen) < wanted:
        digest = hashlib.sha256(raw + draw.to_bytes(4, "big")).digest()
        index = lo + int.from_bytes(digest, "big") % count
        draw += 1
        if index not in seen:
            seen.add(index)
            chosen.append(index)
    return sorted(chosen)


# --- sections ----------------------------------------------------------------------------------


def _in(column: Any, window: tuple[datetime, datetime]) -> Any:
    return and_(column >= window[0], column < window[1])


def _day(value: Any) -> str:
    # SQLite answers date() with text, PostgreSQL with a date.
    return value if isinstance(value, str) else value.isoformat()


def _population(client_id: str, window: tuple[datetime, datetime]) -> dict[str, Any]:
    """Terminal decisions of the period by day, outcome and reason code, and who authorised."""
    request = ClearanceRequest
    day = func.date(request.decided_at)
    terminal = (
        select(request.status, request.reason_code, request.decided_by, day, func.count())
        .where(
            request.client_id == client_id,
            request.status.in_((APPROVED, DENIED)),
            _in(request.decided_at, window),
        )
        .group_by(day, request.status, request.reason_code, request.decided_by)
    )
    per_day: dict[str, dict[str, int]] = {}
    by_reason: dict[str, dict[str, int]] = {}
    by_outcome = {APPROVED: 0, DENIED: 0}
    by_authority: dict[str, dict[str, int]] = {}
    rows = []
    for status, reason_code, decided_by, when, count in db.session.execute(terminal):
        when = _day(when)
        rows.append(
            {
                "day": when,
                "outcome": status,
                "reason_code": reason_code,
                "decided_by": decided_by,
                "count": count,
            }
        )
        per_day.setdefault(when, {APPROVED: 0, DENIED: 0})[status] += count
        by_reason.setdefault(reason_code or "(none)", {APPROVED: 0, DENIED: 0})[status] += count
        by_authority.setdefault(_authority(decided_by), {APPROVED: 0, DENIED: 0})[status] += count
        by_outcome[status] += count
    rows.sort(key=lambda r: (r["day"], r["outcome"], r["reason_code"], r["decided_by"]))
    pending = db.session.scalar(
        select(func.count()).where(
            request.client_id == client_id,
            request.status.in_((PROCESSING, PENDING_REVIEW)),  # ix_clearance_tenant_status
            _in(request.created_at, window),
        )
    )
    return {
        "total": sum(by_outcome.values()),
        "by_outcome": by_outcome,
        "by_reason_code": dict(sorted(by_reason.items())),
        "by_authority": dict(sorted(by_authority.items())),
        "per_day": [{"day": d, **counts} for d, counts in sorted(per_day.items())],
        "rows": rows,
        "undecided_at_generation": pending or 0,
    }


def _authority(decided_by: str) -> str:
    """Who authorised: the policy (rules or model), a person, or the system (failures)."""
    return {"rules": "policy", "model": "policy", "reviewer": "person"}.get(decided_by, "system")


def _manual_reviews(client_id: str, window: tuple[datetime, datetime]) -> dict[str, Any]:
    """Every review decided in the period: who, when, why, how long; flags self-approval."""
    request = ClearanceRequest
    query = (
        select(
            request.request_id,
            request.tool_name,
            request.agent_id,
            request.status,
            request.reason_code,
            request.reviewer_email,
            request.review_reason,
            request.review_started_at,
            request.decided_at,
            request.action_metadata,
        )
        .where(
            request.client_id == client_id,
            request.review_started_at.is_not(None),
            request.status.in_((APPROVED, DENIED)),
            _in(request.decided_at, window),
        )
        .order_by(request.decided_at, request.request_id)
        .execution_options(yield_per=1000)
    )
    listed: list[dict[str, Any]] = []
    durations: list[float] = []
    buckets = [0] * len(DURATION_BUCKETS)
    counts = {"count": 0, "approved": 0, "denied": 0, "expired": 0, "self_approvals": 0}
    for row in db.session.execute(query):
        expired = row.reason_code == "review_expired"
        principal = str((row.action_metadata or {}).get("human_principal") or "")
        reviewer = row.reviewer_email or ""
        self_approval = (
            row.status == APPROVED and bool(reviewer) and reviewer.lower() == principal.lower()
        )
        seconds = max(0.0, (row.decided_at - row.review_started_at).total_seconds())
        counts["count"] += 1
        counts["expired"] += expired
        counts["self_approvals"] += self_approval
        counts[row.status] += 1
        if not expired:
            durations.append(seconds)
            buckets[_bucket(seconds)] += 1
        if len(listed) < MAX_LISTED:
            listed.append(
                {
                    "request_id": row.request_id,
                    "tool_name": row.tool_name,
                    "agent_id": row.agent_id,
                    "outcome": row.status,
                    "reason_code": row.reason_code,
                    "reviewer_email": reviewer,
                    "human_principal": principal,
                    "review_reason": row.review_reason,
                    "review_started_at": iso(row.review_started_at),
                    "decided_at": iso(row.decided_at),
                    "duration_seconds": round(seconds, 3),
                    "expired": expired,
                    "self_approval": self_approval,
                }
            )
    return {
        **counts,
        "duration_seconds": {
            "min": round(min(durations), 3) if durations else None,
            "median": round(statistics.median(durations), 3) if durations else None,
            "max": round(max(durations), 3) if durations else None,
        },
        "duration_histogram": [
            {"bucket": label, "count": buckets[i]} for i, (_, label) in enumerate(DURATION_BUCKETS)
        ],
        "items": listed,
        "truncated": counts["count"] > len(listed),
    }


def _bucket(seconds: float) -> int:
    for index, (bound, _) in enumerate(DURATION_BUCKETS):
        if bound is None or seconds < bound:
            return index
    return len(DURATION_BUCKETS) - 1


def _governance_events(client_id: str, window: tuple[datetime, datetime]) -> dict[str, Any]:
    """Policy, settings and lockdown events of the period, from the ledger (decrypted: the
    actor and what changed are sealed fields)."""
    event = LedgerEvent
    query = (
        event.for_tenant(client_id)
        .where(event.action_category.in_(GOVERNANCE), _in(event.created_at, window))
        .order_by(event.seq)
        .execution_options(yield_per=500)
    )
    sections: dict[str, dict[str, Any]] = {
        name: {"count": 0, "items": [], "truncated": False}
        for name in ("policy_registered", "settings_changed", "lockdowns")
    }
    for row in db.session.scalars(query):
        name = row.action_category if row.action_category in sections else "lockdowns"
        section = sections[name]
        section["count"] += 1
        if len(section["items"]) >= MAX_LISTED:
            section["truncated"] = True
            continue
        content = open_event(row)
        metadata = content.get("action_metadata") or {}
        item: dict[str, Any] = {
            "event_uuid": row.event_uuid,
            "accepted_at": row.accepted_at,
            "actor": str(metadata.get("actor", "")),
            "reason": content.get("reason", ""),
        }
        if name == "policy_registered":
            item.update(
                policy_id=row.policy_id,
                policy_version_id=row.policy_version_id,
                content_hash=row.policy_content_hash,
                version=metadata.get("version"),
                change=str(metadata.get("change", "")),
            )
        elif name == "settings_changed":
            item.update(settings=str(metadata.get("settings", "")), changes=metadata.get("changes"))
        else:
            item.update(
                action="lockdown" if row.action_category == "agent_lockdown" else "release",
                agent_id=row.agent_id,
            )
        section["items"].append(item)
    return sections


def _access(client_id: str, window: tuple[datetime, datetime]) -> dict[str, Any]:
    """Users and API keys created or withdrawn in the period (never a key or a hash)."""
    events: list[dict[str, Any]] = []
    users = db.session.execute(
        select(User.email, User.role, User.created_at, User.disabled_at).where(
            User.client_id == client_id,
            _in(User.created_at, window) | _in(User.disabled_at, window),
        )
    )
    for email, role, created, disabled in users:
        if window[0] <= created < window[1]:
            events.append(
                {"at": iso(created), "kind": "user_created", "subject": email, "role": role}
            )
        if disabled is not None and window[0] <= disabled < window[1]:
            events.append(
                {"at": iso(disabled), "kind": "user_disabled", "subject": email, "role": role}
            )
    keys = db.session.execute(
        select(ApiKey.prefix, ApiKey.label, ApiKey.created_at, ApiKey.revoked_at).where(
            ApiKey.client_id == client_id,
            _in(ApiKey.created_at, window) | _in(ApiKey.revoked_at, window),
        )
    )
    for prefix, label, created, revoked in keys:
        subject = f"{prefix}… {label}".strip()
        if window[0] <= created < window[1]:
            events.append({"at": iso(created), "kind": "api_key_created", "subject": subject})
        if revoked is not None and window[0] <= revoked < window[1]:
            events.append({"at": iso(revoked), "kind": "api_key_revoked", "subject": subject})
    events.sort(key=lambda e: (e["at"], e["kind"], e["subject"]))
    counts: dict[str, int] = {}
    for item in events:
        counts[item["kind"]] = counts.get(item["kind"], 0) + 1
    return {"count": len(events), "by_kind": counts, "items": events[:MAX_LISTED]}


def _exceptions(
    client_id: str,
    window: tuple[datetime, datetime],
    reviews: dict[str, Any],
    population: dict[str, Any],
) -> dict[str, Any]:
    """Judge failures, expired reviews, approvals whose token was never used, and burns of a
    token with other arguments than it was issued for."""
    request = ClearanceRequest
    # Already counted by the population's GROUP BY (same rows: decided in the period).
    failed = population["by_reason_code"].get("judge_unavailable", {})
    judge_unavailable = sum(failed.values())
    # Only tokens that can no longer be used count: an approval younger than the token's
    # lifetime may still be consumed.
    usable_until = utcnow() - timedelta(seconds=vault().config.jwt_ttl)
    burned = select(BurnedToken.jti).where(
        BurnedToken.client_id == client_id, BurnedToken.jti == request.token_jti
    )
    unconsumed_query = select(request.request_id, request.tool_name, request.decided_at).where(
        request.client_id == client_id,
        request.status == APPROVED,
        request.token_jti.is_not(None),
        _in(request.decided_at, window),
        request.decided_at < usable_until,
        ~burned.exists(),
    )
    unconsumed_count = db.session.scalar(
        select(func.count()).select_from(unconsumed_query.subquery())
    )
    unconsumed = [
        {"request_id": rid, "tool_name": tool, "decided_at": iso(at)}
        for rid, tool, at in db.session.execute(
            unconsumed_query.order_by(request.decided_at).limit(MAX_LISTED)
        )
    ]
    mismatch_query = select(BurnedToken.jti, BurnedToken.request_id, BurnedToken.consumed_at).where(
        BurnedToken.client_id == client_id,
        BurnedToken.outcome == "args_mismatch",
        _in(BurnedToken.consumed_at, window),
    )
    mismatch_count = db.session.scalar(select(func.count()).select_from(mismatch_query.subquery()))
    mismatches = [
        {"jti": jti, "request_id": rid, "burned_at": iso(at)}
        for jti, rid, at in db.session.execute(
            mismatch_query.order_by(BurnedToken.consumed_at).limit(MAX_LISTED)
        )
    ]
    counts = {
        "judge_unavailable": judge_unavailable or 0,
        "expired_reviews": reviews["expired"],
        "unconsumed_approvals": unconsumed_count or 0,
        "args_mismatch_burns": mismatch_count or 0,
    }
    return {
        **counts,
        "total": sum(counts.values()),
        "unconsumed_approval_items": unconsumed,
        "args_mismatch_items": mismatches,
    }


# --- attestation -------------------------------------------------------------------------------


def _attestation(client_id: str, window: tuple[datetime, datetime], seed: str) -> dict[str, Any]:
    """The ledger as it stands at generation: the latest signed tree, the checkpoints that
    cover the period (each re-verified), and a seeded sample of the period's events, each with
    an inclusion proof checked against the latest checkpoint."""
    latest = latest_checkpoint(client_id)
    keys = {row.key_id: row.public_key for row in db.session.scalars(select(SigningKey))}
    errors: list[str] = []
    covering = _covering_checkpoints(client_id, window)
    checkpoint_items = []
    for row in covering[:MAX_CHECKPOINTS]:
        problem = _checkpoint_problem(row, keys)
        if problem:
            errors.append(f"checkpoint {row.checkpoint_id}: {problem}")
        checkpoint_items.append(
            {
                "checkpoint_id": row.checkpoint_id,
                "tree_size": row.tree_size,
                "root_hash": row.root_hash,
                "checkpoint_hash": row.checkpoint_hash,
                "prev_checkpoint_hash": row.prev_checkpoint_hash,
                "signed_at": row.signed_at,
                "signer_key_id": row.signer_key_id,
                "signature_algorithm": row.signature_algorithm,
                "checkpoint_signature": b64url_encode(row.signature),
                "checkpoint_payload": b64url_encode(row.payload),
                "verified": not problem,
            }
        )
    if latest is not None and latest.checkpoint_id not in {c.checkpoint_id for c in covering}:
        problem = _checkpoint_problem(latest, keys)
        if problem:
            errors.append(f"checkpoint {latest.checkpoint_id}: {problem}")
    lo, hi = _period_leaf_range(client_id, window, latest.tree_size if latest else 0)
    sample = []
    if latest is not None:
        sample = _sample(client_id, latest, sample_indexes(seed, lo, hi), errors)
    last = db.session.scalar(
        LedgerVerification.for_tenant(client_id).order_by(LedgerVerification.id.desc()).limit(1)
    )
    # Events are sealed in seq order: only those above the high-water mark wait (an index range).
    unsealed = db.session.scalar(
        select(func.count())
        .select_from(LedgerEvent)
        .where(
            LedgerEvent.client_id == client_id,
            LedgerEvent.seq > sealed_through(client_id),
            _in(LedgerEvent.created_at, window),
        )
    )
    return {
        "attested_at": iso(utcnow()),
        "tree_size": latest.tree_size if latest else 0,
        "root_hash": latest.root_hash if latest else "",
        "latest_checkpoint_id": latest.checkpoint_id if latest else None,
        "verification": {
            "intact": not errors,
            "method": "covering checkpoints re-verified (payload, hash, chain, Ed25519) and "
            "a seeded sample of the period's events proven included in the latest checkpoint",
            "checkpoints_verified": len(checkpoint_items),
            "sample_verified": sum(1 for item in sample if item["verified"]),
            "errors": errors[:100],
            "last_full_verification": (
                {
                    "ran_at": iso(last.ran_at),
                    "intact": last.intact,
                    "verified_entries": last.result.get("verified_entries"),
                    "tree_size": last.result.get("tree_size"),
                }
                if last
                else None
            ),
        },
        "unsealed_events_in_period": unsealed or 0,
        "checkpoints": checkpoint_items,
        "checkpoints_truncated": len(covering) > MAX_CHECKPOINTS,
        "sample": {
            "seed": seed,
            "size": len(sample),
            "leaf_range": [lo, hi] if hi >= lo else None,
            "algorithm": "index_i = lo + int(SHA-256(bytes.fromhex(seed) || uint32_be(i))) "
            "mod (hi - lo + 1), for i = 0, 1, 2, ..., skipping repeats, "
            f"until min({SAMPLE_SIZE}, hi - lo + 1) distinct indexes; sorted",
            "proven_against_checkpoint": latest.checkpoint_id if latest else None,
            "events": sample,
        },
    }


def _covering_checkpoints(client_id: str, window: tuple[datetime, datetime]) -> list[Checkpoint]:
    """Checkpoints signed in the period, and the first one signed after it (which seals the
    period's last events). `signed_at` is fixed-width RFC 3339, so text order is time order."""
    start, end = iso(window[0]), iso(window[1])
    inside = list(
        db.session.scalars(
            Checkpoint.for_tenant(client_id)
            .where(Checkpoint.signed_at >= start, Checkpoint.signed_at < end)
            .order_by(Checkpoint.checkpoint_id)
            .limit(MAX_CHECKPOINTS + 1)
        )
    )
    after = db.session.scalar(
        Checkpoint.for_tenant(client_id)
        .where(Checkpoint.signed_at >= end)
        .order_by(Checkpoint.checkpoint_id)
        .limit(1)
    )
    return inside + ([after] if after is not None else [])


def _checkpoint_problem(row: Checkpoint, keys: dict[str, bytes]) -> str:
    """What is wrong with a stored checkpoint, or "" when its hash and signature hold."""
    if checkpoint_hash(row.payload) != row.checkpoint_hash:
        return "checkpoint_hash does not match its payload"
    public_key = keys.get(row.signer_key_id)
    if public_key is None:
        return f"signer key {row.signer_key_id} is not registered"
    try:
        verify_signature(public_key, row.payload, row.signature)
    except VerificationError:
        return "Ed25519 signature does not verify"
    return ""


def _period_leaf_range(
    client_id: str, window: tuple[datetime, datetime], tree_size: int
) -> tuple[int, int]:
    """The leaf indexes of the period's sealed events (events are sealed in seq order)."""
    first, last = db.session.execute(
        select(func.min(LedgerEvent.seq), func.max(LedgerEvent.seq)).where(
            LedgerEvent.client_id == client_id, _in(LedgerEvent.created_at, window)
        )
    ).one()
    if first is None or tree_size == 0:
        return 0, -1
    # The first leaf at or after the period's first event, the last at or before its last one
    # (point lookups on the seq index), within the attested tree.
    lo = db.session.scalar(
        select(func.min(LedgerLeaf.leaf_index)).where(
            LedgerLeaf.client_id == client_id,
            LedgerLeaf.seq
            == select(func.min(LedgerLeaf.seq))
            .where(LedgerLeaf.client_id == client_id, LedgerLeaf.seq >= first)
            .scalar_subquery(),
        )
    )
    hi = db.session.scalar(
        select(func.max(LedgerLeaf.leaf_index)).where(
            LedgerLeaf.client_id == client_id,
            LedgerLeaf.seq
            == select(func.max(LedgerLeaf.seq))
            .where(LedgerLeaf.client_id == client_id, LedgerLeaf.seq <= last)
            .scalar_subquery(),
        )
    )
    if lo is None or hi is None:
        return 0, -1
    return int(lo), min(int(hi), tree_size - 1)


def _sample(
    client_id: str, checkpoint: Checkpoint, indexes: list[int], errors: list[str]
) -> list[dict[str, Any]]:
    if not indexes:
        return []
    leaves = {
        leaf_index: seq
        for leaf_index, seq in db.session.execute(
            select(LedgerLeaf.leaf_index, LedgerLeaf.seq).where(
                LedgerLeaf.client_id == client_id, LedgerLeaf.leaf_index.in_(indexes)
            )
        )
    }
    events = {
        row.seq: row
        for row in db.session.execute(
            select(
                LedgerEvent.seq,
                LedgerEvent.event_uuid,
                LedgerEvent.request_id,
                LedgerEvent.action_category,
                LedgerEvent.accepted_at,
                LedgerEvent.event_hash,
                LedgerEvent.leaf_hash,
            ).where(LedgerEvent.client_id == client_id, LedgerEvent.seq.in_(list(leaves.values())))
        )
    }
    wanted: list[merkle.NodeKey] = []
    for index in indexes:
        wanted += merkle.nodes_needed_for_inclusion(index, checkpoint.tree_size)
    nodes = read_nodes(db.session.connection(), client_id, sorted(set(wanted)))
    root = bytes.fromhex(checkpoint.root_hash)
    items = []
    for index in indexes:
        event = events.get(leaves.get(index, -1))
        if event is None:
            errors.append(f"leaf {index}: no event")
            continue
        verified = True
        path: list[bytes] = []
        try:
            path = merkle.inclusion_path_from_nodes(index, checkpoint.tree_size, node_reader(nodes))
            merkle.verify_inclusion(
                bytes.fromhex(event.leaf_hash), index, checkpoint.tree_size, path, root
            )
        except (MissingNode, VerificationError, ValueError) as error:
            verified = False
            errors.append(f"leaf {index}: {error}")
        items.append(
            {
                "leaf_index": index,
                "event_uuid": event.event_uuid,
                "request_id": event.request_id,
                "action_category": event.action_category,
                "accepted_at": event.accepted_at,
                "event_hash": event.event_hash,
                "leaf_hash": event.leaf_hash,
                "tree_size": checkpoint.tree_size,
                "path": [node.hex() for node in path],
                "verified": verified,
            }
        )
    return items
