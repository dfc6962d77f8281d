"""Read-only, tenant-scoped queries that only pages need: counts, history, ledger search.

Nothing here decides or changes anything; every transition still goes through the services.
These reads have no API counterpart yet; if one grows, they move to a service.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import func, select

from webapp.extensions import db
from webapp.ledger.events import DECISION_CATEGORIES
from webapp.models import APPROVED, DENIED, PENDING_REVIEW, ClearanceRequest, LedgerEvent, utcnow

# The outcome filter of the ledger search: a name, and the events it keeps.
OUTCOMES = {
    "": "Any event",
    "approved": "Approved",
    "denied": "Denied",
    "agent": "Lockdowns and releases",
    "policy": "Policy changes",
    "settings": "Settings changes",
    "token": "Tokens used",
}
_CATEGORIES = {
    "agent": ("agent_lockdown", "agent_release"),
    "policy": ("policy_registered",),
    "settings": ("settings_changed",),
    "token": ("token_consumed",),
}
PAGE_SIZE = 50


@dataclass(frozen=True)
class OutcomeCount:
    key: str
    label: str
    count: int


@dataclass(frozen=True)
class LedgerSearch:
    """What the ledger page searches by; empty fields do not filter."""

    request_id: str = ""
    agent_id: str = ""
    tool_name: str = ""
    outcome: str = ""
    since: date | None = None
    until: date | None = None
    before_seq: int | None = None


def pending_review_count(client_id: str) -> int:
    return (
        db.session.scalar(
            select(func.count())
            .select_from(ClearanceRequest)
            .where(
                ClearanceRequest.client_id == client_id, ClearanceRequest.status == PENDING_REVIEW
            )
        )
        or 0
    )


def decisions_since(
    client_id: str, hours: int = 24, now: datetime | None = None
) -> list[OutcomeCount]:
    """Terminal decisions of the last ``hours``, by outcome and by who decided."""
    since = (now or utcnow()) - timedelta(hours=hours)
    rows = db.session.execute(
        select(ClearanceRequest.status, ClearanceRequest.decided_by, func.count())
        .where(
            ClearanceRequest.client_id == client_id,
            ClearanceRequest.status.in_((APPROVED, DENIED)),
            ClearanceRequest.decided_at >= since,
        )
        .group_by(ClearanceRequest.status, ClearanceRequest.decided_by)
    ).all()
    counts = {
        key: 0
        for key in (
            "approved_auto",
            "approved_reviewer",
            "denied_auto",
            "denied_reviewer",
            "denied_system",
        )
    }
    for status, decided_by, count in rows:
        if decided_by == "reviewer":
            who = "reviewer"
        elif decided_by == "system" and status == DENIED:
            who = "system"
        else:
            who = "auto"
        counts[f"{status}_{who}"] = counts.get(f"{status}_{who}", 0) + count
    labels = {
        "approved_auto": "Approved by policy",
        "approved_reviewer": "Approved by a reviewer",
        "denied_auto": "Denied by policy",
        "denied_reviewer": "Denied by a reviewer",
        "denied_system": "Denied by the system",
    }
    return [OutcomeCount(key, labels[key], counts[key]) for key in labels]


def agent_history(
    client_id: str, agent_id: str, *, exclude: str = "", limit: int = 10
) -> list[ClearanceRequest]:
    """The agent's latest requests, newest first."""
    query = ClearanceRequest.for_tenant(client_id).where(ClearanceRequest.agent_id == agent_id)
    if exclude:
        query = query.where(ClearanceRequest.request_id != exclude)
    return list(db.session.scalars(query.order_by(ClearanceRequest.created_at.desc()).limit(limit)))


def search_ledger(
    client_id: str, search: LedgerSearch, limit: int = PAGE_SIZE
) -> tuple[list[LedgerEvent], int | None]:
    """Ledger events matching ``search``, newest first; returns the page and the seq to go on before."""
    query = LedgerEvent.for_tenant(client_id)
    if search.request_id:
        query = query.where(LedgerEvent.request_id == search.request_id)
    if search.agent_id:
        query = query.where(LedgerEvent.agent_id == search.agent_id)
    if search.tool_name:
        query = query.where(LedgerEvent.tool_name == search.tool_name)
    decisions = sorted(DECISION_CATEGORIES)
    if search.outcome in ("approved", "denied"):
        query = query.where(
            LedgerEvent.action_category.in_(decisions),
            LedgerEvent.approved.is_(search.outcome == "approved"),
        )
    elif search.outcome in _CATEGORIES:
        query = query.where(LedgerEvent.action_category.in_(_CATEGORIES[search.outcome]))
    if search.since:
        query = query.where(LedgerEvent.created_at >= _start_of(search.since))
    if search.until:
        query = query.where(LedgerEvent.created_at < _start_of(search.until + timedelta(days=1)))
    if search.before_seq is not None:
        query = query.where(LedgerEvent.seq < search.before_seq)
    rows = list(db.session.scalars(query.order_by(LedgerEvent.seq.desc()).limit(limit + 1)))
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, (rows[-1].seq if more and rows else None)


def _start_of(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)
