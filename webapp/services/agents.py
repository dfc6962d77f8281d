"""Agents as the vault sees them: last activity and lockdown (spec §3, CONTRACT §10)."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite

from webapp.errors import InvalidInput
from webapp.extensions import db
from webapp.models import AgentState, iso, utcnow
from webapp.services import tenant_cache
from webapp.services.ledger import EventContent, append_event

log = logging.getLogger(__name__)
MAX_AGENT_ID = 256
ACTIVITY_INTERVAL_SECONDS = 1.0


@dataclass(frozen=True)
class Standing:
    """What the decision path needs to know of an agent before judging it."""

    agent_id: str
    locked_down: bool
    # The latest drift assessment (webapp/services/drift.py): medium or high forces review.
    drift_risk: str = ""
    drift_score: float = 0.0
    drift_signals: tuple[str, ...] = ()


def standing(client_id: str, agent_id: str) -> Standing:
    """The agent's lockdown, from this process's cache while no lockdown changed (no SQL)."""
    return tenant_cache.cached(
        client_id, "agent", agent_id, lambda: _load_standing(client_id, agent_id)
    )


def record_activity(client_id: str, agent_id: str) -> None:
    """Set last_seen_at in the caller's transaction, at most once a second per agent.

    One upsert whether or not the agent has a row: a new agent's first requests can arrive
    together, and the conflict clause lets them all go on.
    """
    now = time.monotonic()
    key = (client_id, agent_id)
    with _activity_lock:
        last = _last_activity.get(key)
        if last is not None and now - last < ACTIVITY_INTERVAL_SECONDS:
            return
        _last_activity[key] = now
        if len(_last_activity) > 100_000:
            _last_activity.clear()
    dialect = db.session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(AgentState.__table__).values(
        client_id=client_id, agent_id=agent_id, locked_down=False, last_seen_at=utcnow()
    )
    db.session.execute(
        statement.on_conflict_do_update(
            index_elements=["client_id", "agent_id"],
            set_={"last_seen_at": statement.excluded.last_seen_at},
        )
    )


_activity_lock = threading.Lock()
_last_activity: dict[tuple[str, str], float] = {}


def _load_standing(client_id: str, agent_id: str) -> Standing:
    row = db.session.execute(
        select(
            AgentState.locked_down,
            AgentState.drift_risk,
            AgentState.drift_score,
            AgentState.drift_signals,
        ).where(AgentState.client_id == client_id, AgentState.agent_id == agent_id)
    ).first()
    if row is None:
        return Standing(agent_id=agent_id, locked_down=False)
    firing = sorted(
        ((k, v.get("score", 0)) for k, v in (row.drift_signals or {}).items() if v.get("score")),
        key=lambda item: -item[1],
    )
    return Standing(
        agent_id=agent_id,
        locked_down=bool(row.locked_down),
        drift_risk=row.drift_risk or "",
        drift_score=float(row.drift_score or 0.0),
        drift_signals=tuple(kind for kind, _ in firing[:3]),
    )


def check_agent_id(agent_id: str) -> str:
    if not agent_id or not agent_id.strip() or len(agent_id) > MAX_AGENT_ID:
        raise InvalidInput(
            "agent id must be 1 to 256 characters",
            errors=[{"field": "agent_id", "message": "must be 1 to 256 characters"}],
        )
    return agent_id


def current_state(client_id: str, agent_id: str) -> AgentState | None:
    """The agent's row, if it has one. Callers keep it and pass it to ``touch``: the session
    holds loaded rows only weakly, so a second lookup would read the row again."""
    return db.session.get(AgentState, (client_id, agent_id))


def is_locked_down(state: AgentState | None) -> bool:
    return bool(state and state.locked_down)


def lock_down(client_id: str, agent_id: str, actor: str, reason: str = "") -> AgentState:
    """Lock the agent; idempotent: a second lock changes nothing and writes no event."""
    state = _state(client_id, check_agent_id(agent_id), for_update=True)
    newly_locked = not state.locked_down
    if newly_locked:
        state.locked_down = True
        state.locked_at = utcnow()
        state.locked_by = actor
        state.lock_reason = reason
        state.released_at = None
        state.released_by = ""
        append_event(
            client_id,
            EventContent(
                action_category="agent_lockdown",
                agent_id=agent_id,
                reason=reason or f"agent locked down by {actor}",
                action_metadata={"actor": actor, "locked_by": actor},
            ),
        )
    db.session.commit()
    if newly_locked:
        for hook in _ON_LOCK_DOWN:
            try:
                hook(state)
            except Exception:  # noqa: BLE001 - a failed side effect never undoes the lock
                log.exception("lockdown hook failed for %s", agent_id)
    return state


_ON_LOCK_DOWN: list = []


def on_lock_down(hook) -> None:  # noqa: ANN001
    """Register a side effect (webhooks) run after an agent is newly locked down."""
    if hook not in _ON_LOCK_DOWN:
        _ON_LOCK_DOWN.append(hook)


def release(client_id: str, agent_id: str, actor: str, reason: str = "") -> AgentState:
    """Release the lock, recording who and why; idempotent like ``lock_down``.

    A lock set automatically by drift detection is released only with a reason: spec §3 asks
    for a human review first, and the reason is its record.
    """
    state = _state(client_id, check_agent_id(agent_id), for_update=True)
    if state.locked_down:
        if state.locked_by == "drift" and not reason.strip():
            db.session.rollback()
            raise InvalidInput(
                "a reason is required to release an agent locked down by drift detection",
                errors=[{"field": "reason", "message": "is required for a drift lockdown"}],
            )
        state.locked_down = False
        state.released_at = utcnow()
        state.released_by = actor
        state.release_reason = reason
        append_event(
            client_id,
            EventContent(
                action_category="agent_release",
                agent_id=agent_id,
                reason=reason or f"agent released by {actor}",
                action_metadata={"actor": actor, "released_by": actor},
            ),
        )
    db.session.commit()
    return state


def touch(client_id: str, agent_id: str, state: AgentState | None) -> None:
    """Record activity (in the caller's transaction) on the row ``current_state`` loaded."""
    if state is not None:
        state.last_seen_at = utcnow()
        return
    # A new agent: its first requests can arrive together, and all but one would fail on the
    # primary key. ON CONFLICT DO NOTHING lets the first insert win and the others go on.
    dialect = db.session.get_bind().dialect.name
    upsert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    db.session.execute(
        upsert(AgentState)
        .values(client_id=client_id, agent_id=agent_id, last_seen_at=utcnow())
        .on_conflict_do_nothing()
    )


def list_agents(client_id: str) -> list[AgentState]:
    return list(
        db.session.scalars(
            AgentState.for_tenant(client_id).order_by(AgentState.last_seen_at.desc())
        )
    )


def lock_view(state: AgentState) -> dict[str, Any]:
    if state.locked_down:
        return {
            "agent_id": state.agent_id,
            "locked_down": True,
            "locked_at": iso(state.locked_at),
            "locked_by": state.locked_by,
            "reason": state.lock_reason,
        }
    return {
        "agent_id": state.agent_id,
        "locked_down": False,
        "released_at": iso(state.released_at),
        "released_by": state.released_by,
        "reason": state.release_reason or "",
    }


def _state(client_id: str, agent_id: str, for_update: bool = False) -> AgentState:
    query = select(AgentState).where(
        AgentState.client_id == client_id, AgentState.agent_id == agent_id
    )
    if for_update:
        query = query.with_for_update()
    state = db.session.scalar(query)
    if state is None:
        state = AgentState(client_id=client_id, agent_id=agent_id, locked_down=False)
        db.session.add(state)
        db.session.flush()
    return state
