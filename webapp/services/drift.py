"""Drift detection (spec §3, §4.1; CONTRACT §7, §10): per-agent counters, scores, events and the
graduated response.

- **Counting** (the decision path, O(1)): after a decision commits, ``record_decision`` adds a
  handful of counters to the agent's bucket for the current hour, a Redis hash, in one
  pipelined round trip. Token burns and replays add theirs through ``record_token_event``.
  Counting never raises: a lost counter weakens detection, it never changes a decision.
- **Scoring** (the periodic job): ``score_all_tenants`` reads each active agent's buckets,
  runs the signals of ``webapp.drift`` and stores the assessment on the agent's row. Crossing
  into high risk writes a drift event and sends ``drift.detected``; with ``auto_lockdown`` the
  agent is also locked (ledger ``agent_lockdown``, ``locked_by`` ``drift``).
- **The ladder** (the decision path again): ``forced_review_reason`` tells the state machine
  that an agent at medium or high risk must have every request reviewed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import redis
from sqlalchemy import or_, select

from webapp.drift import features
from webapp.drift.scoring import HIGH, LEARNING, MEDIUM, Assessment, assess, split_history
from webapp.extensions import db
from webapp.models import (
    APPROVED,
    AgentState,
    ApiKey,
    ClearanceRequest,
    DriftEvent,
    Tenant,
    iso,
    new_id,
    utcnow,
)
from webapp.runtime import vault
from webapp.services import agents, paging, settings

log = logging.getLogger(__name__)

KIND = "drift"
DEFAULTS: dict[str, Any] = {
    "enabled": True,
    "baseline_days": 7,
    "window_hours": 24,
    "score_threshold": 0.7,
    "min_events": 20,
    "auto_lockdown": False,
}
INTEGER_RANGES = {"baseline_days": (1, 90), "window_hours": (1, 168), "min_events": (1, 10_000)}
DETECTED = "drift.detected"
DRIFT_ACTOR = "drift"
BUCKET_KEY = "vault:drift:{client_id}:{hour}:{agent_id}"
# Per agent: tool or counterparty key → the hour it was first seen (HSETNX keeps the first).
FIRST_SEEN_KEY = "vault:drift:first:{client_id}:{agent_id}"
MAX_FIRST_SEEN = 50_000
# Buckets outlive the longest baseline plus the longest window.
BUCKET_TTL_SECONDS = (90 + 7 + 1) * 86400
SPARKLINE_DAYS = 14
# Reason codes of transitions that are not an agent's first decision (a reviewer's, an expiry).
_LATER_DECISIONS = ("approved_by_reviewer", "reviewer_denied", "review_expired")
_OUTCOME_OF_CODE = {
    "approved_by_policy": "allow",
    "rule_violated": "deny",
    "no_matching_policy": "deny",
    "below_confidence_threshold": "review",
    "review_required_by_rule": "review",
}


# --- settings --------------------------------------------------------------------------------


def drift_settings(client_id: str) -> dict[str, Any]:
    """CONTRACT §7: the stored settings merged over their defaults."""
    stored = settings.read(client_id, KIND, DEFAULTS)
    return {name: stored[name] for name in DEFAULTS}


@dataclass(frozen=True)
class DriftSettingsChange:
    """A validated partial update (``DriftSettingsUpdate`` at the API, ``DriftSettingsForm`` in
    the dashboard): CONTRACT §7's fields and ranges; None leaves a setting as it is."""

    enabled: bool | None = None
    baseline_days: int | None = None
    window_hours: int | None = None
    score_threshold: float | None = None
    min_events: int | None = None
    auto_lockdown: bool | None = None


def update_drift_settings(
    client_id: str, change: DriftSettingsChange, actor: str
) -> dict[str, Any]:
    """Apply a partial update; commits with a settings_changed event when anything changed."""
    current = drift_settings(client_id)
    updated = settings.merged(current, change, DEFAULTS)
    audit = settings.changed(current, updated, updated)
    if audit:
        settings.write(client_id, KIND, updated, actor=actor, audit=audit)
    return updated


# --- counting (the decision path) --------------------------------------------------------------


def record_decision(request: ClearanceRequest, now: float | None = None) -> None:
    """After a committed transition: count the agent's first decision (or a reviewer's
    approval, which mints a token). O(1): one pipelined round trip. Never raises."""
    try:
        counters: dict[str, int] = {}
        if (
            request.reason_code not in _LATER_DECISIONS
            and request.reason_code != "agent_locked_down"
        ):
            verdict = (request.judge_verdict or {}).get("decision", "")
            outcome = {"allow": "allow", "deny": "deny", "review": "review"}.get(
                verdict, _OUTCOME_OF_CODE.get(request.reason_code, "")
            )
            counters = features.decision_counters(
                request.tool_name,
                request.tool_args or {},
                request.action_metadata or {},
                outcome,
                at=time.time() if now is None else now,
            )
        if request.status == APPROVED:
            counters[features.token_counter("minted")] = 1
        if counters:
            write_counters(request.client_id, request.agent_id, counters, now)
    except Exception:  # noqa: BLE001 - counting must never disturb a decision
        log.warning("drift counters not recorded for %s", request.request_id, exc_info=True)


def record_token_event(client_id: str, agent_id: str, event: str) -> None:
    """A token was consumed, burned for ``args_mismatch``, or replayed. Never raises."""
    try:
        write_counters(client_id, agent_id, {features.token_counter(event): 1})
    except Exception:  # noqa: BLE001 - a burn's answer must not depend on drift counting
        log.warning("drift token counter not recorded for %s", agent_id, exc_info=True)


def write_counters(
    client_id: str,
    agent_id: str,
    counters: Mapping[str, int],
    now: float | None = None,
    connection: redis.Redis | None = None,
) -> None:
    """Add ``counters`` to the agent's bucket of the hour, and remember first sightings, in
    one command (a Lua script: cheaper to send than a pipeline of a dozen)."""
    hour = features.hour_of(time.time() if now is None else now)
    firsts = features.first_seen_keys(counters)
    args: list[Any] = [BUCKET_TTL_SECONDS, hour, len(counters)]
    for name, amount in counters.items():
        args += (name, amount)
    args += firsts
    _count_script()(
        keys=[
            BUCKET_KEY.format(client_id=client_id, hour=hour, agent_id=agent_id),
            FIRST_SEEN_KEY.format(client_id=client_id, agent_id=agent_id),
        ],
        args=args,
        client=connection or vault().redis,
    )


_COUNT = """
local n = tonumber(ARGV[3])
local i = 4
for _ = 1, n do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
if i <= #ARGV then
  for j = i, #ARGV do
    redis.call('HSETNX', KEYS[2], ARGV[j], ARGV[2])
  end
  redis.call('EXPIRE', KEYS[2], ARGV[1])
end
return n
"""
_script: Any = None


def _count_script() -> Any:
    # Created once; each call names its client, and redis-py reloads the script (EVALSHA →
    # EVAL) on a server that has not seen it.
    global _script
    if _script is None:
        from redis.commands.core import Script

        _script = Script(None, _COUNT.encode())
    return _script


def load_first_seen(client_id: str, agent_id: str) -> dict[str, int] | None:
    """When the agent first used each tool and counterparty (None when too many to read)."""
    connection = vault().redis
    key = FIRST_SEEN_KEY.format(client_id=client_id, agent_id=agent_id)
    if connection.hlen(key) > MAX_FIRST_SEEN:
        return None  # judge by the baseline alone rather than read an unbounded hash
    return {
        k.decode("utf-8", "replace"): int(v)
        for k, v in connection.hgetall(key).items()
        if v.isdigit()
    }


def load_buckets(
    client_id: str, agent_id: str, first_hour: int, last_hour: int
) -> dict[int, dict[str, int]]:
    """The agent's non-empty buckets from ``first_hour`` to ``last_hour`` inclusive."""
    hours = list(range(first_hour, last_hour + 1))
    pipe = vault().redis.pipeline(transaction=False)
    for hour in hours:
        pipe.hgetall(BUCKET_KEY.format(client_id=client_id, hour=hour, agent_id=agent_id))
    buckets: dict[int, dict[str, int]] = {}
    for hour, raw in zip(hours, pipe.execute(), strict=True):
        if raw:
            buckets[hour] = {
                k.decode("utf-8", "replace"): int(v) for k, v in raw.items() if v.isdigit()
            }
    return buckets


# --- the ladder (the decision path) ------------------------------------------------------------


def forced_review_reason(client_id: str, agent: agents.Standing) -> str:
    """Why this agent's request must go to a reviewer because of drift, or "" when it need not.

    Medium and high risk force review (the first rung of the ladder); learning and low do not.
    ``agent`` is the decision path's cached standing, so this reads nothing for most agents.
    """
    if agent.drift_risk not in (MEDIUM, HIGH):
        return ""
    if not drift_settings(client_id)["enabled"]:
        return ""
    signals = f": {', '.join(agent.drift_signals)}" if agent.drift_signals else ""
    return (
        f"drift: agent {agent.agent_id} is at {agent.drift_risk} drift risk "
        f"(score {agent.drift_score:.2f}{signals}); every request of this agent goes to a reviewer"
    )


# --- scoring (the periodic job) ----------------------------------------------------------------


def score_all_tenants(now: datetime | None = None) -> dict[str, int]:
    """Score every active agent of every tenant with drift enabled; returns events per tenant."""
    now = now or utcnow()
    written: dict[str, int] = {}
    for client_id in list(db.session.scalars(select(Tenant.client_id))):
        try:
            events = score_tenant(client_id, now)
        except Exception:  # noqa: BLE001 - one tenant's failure must not starve the others
            db.session.rollback()
            log.exception("drift scoring failed for tenant %s", client_id)
            continue
        if events:
            written[client_id] = len(events)
    return written


def score_tenant(client_id: str, now: datetime | None = None) -> list[DriftEvent]:
    """Score the tenant's agents seen within the window, and those still at risk."""
    now = now or utcnow()
    current = drift_settings(client_id)
    if not current["enabled"]:
        return []
    since = now - timedelta(hours=current["window_hours"] + 1)
    ids = list(
        db.session.scalars(
            select(AgentState.agent_id).where(
                AgentState.client_id == client_id,
                or_(
                    AgentState.last_seen_at >= since,
                    AgentState.drift_risk.in_((MEDIUM, HIGH)),
                ),
            )
        )
    )
    events = []
    for agent_id in ids:
        event = score_agent(client_id, agent_id, current, now)
        if event is not None:
            events.append(event)
    return events


def score_agent(
    client_id: str, agent_id: str, current: Mapping[str, Any], now: datetime
) -> DriftEvent | None:
    """Assess one agent, store the assessment, and climb the ladder on a crossing into high."""
    now_hour = features.hour_of(now.timestamp())
    first = now_hour - current["window_hours"] + 1 - current["baseline_days"] * 24
    buckets = load_buckets(
        client_id, agent_id, min(first, now_hour - SPARKLINE_DAYS * 24), now_hour
    )
    quarter = features.quarter_of(now.timestamp())
    history = split_history(
        buckets, now_hour, current, quarter, load_first_seen(client_id, agent_id)
    )
    assessment = assess(history, current)
    state = db.session.get(AgentState, (client_id, agent_id))
    if state is None:
        return None
    crossed = assessment.risk_level == HIGH and state.drift_risk != HIGH
    state.drift_score = assessment.drift_score
    state.drift_risk = assessment.risk_level
    state.drift_signals = assessment.signals_view()
    state.drift_activity = sparkline(buckets, now_hour)
    state.drift_scored_at = now
    if not crossed:
        db.session.commit()
        return None
    lock = current["auto_lockdown"] and not state.locked_down
    event = DriftEvent(
        event_id=new_id("drift"),
        client_id=client_id,
        agent_id=agent_id,
        detected_at=now,
        drift_score=assessment.drift_score,
        risk_level=assessment.risk_level,
        signals=[s.view() for s in assessment.firing()],
        action="lockdown" if lock else "none",
    )
    db.session.add(event)
    state.drift_event_at = now
    if lock:
        # lock_down writes the agent_lockdown ledger event and commits everything together.
        agents.lock_down(client_id, agent_id, actor=DRIFT_ACTOR, reason=_lock_reason(assessment))
    else:
        db.session.commit()
    _notify(event)
    return event


def sparkline(buckets: Mapping[int, Mapping[str, int]], now_hour: int) -> list[int]:
    """Requests per day over the last SPARKLINE_DAYS days, oldest first."""
    days = [0] * SPARKLINE_DAYS
    for hour, bucket in buckets.items():
        age = (now_hour - hour) // 24
        if 0 <= age < SPARKLINE_DAYS:
            days[SPARKLINE_DAYS - 1 - age] += bucket.get(features.TOTAL, 0)
    return days


# --- reading -----------------------------------------------------------------------------------


def summary(client_id: str) -> dict[str, Any]:
    """CONTRACT §10: every agent with its latest score, risk, lockdown and signals."""
    return {
        "generated_at": iso(utcnow()),
        "agents": [agent_view(s) for s in ranked_agents(client_id)],
    }


def ranked_agents(client_id: str) -> list[AgentState]:
    """The tenant's agents, highest drift score first."""
    return sorted(agents.list_agents(client_id), key=lambda s: (-(s.drift_score or 0), s.agent_id))


def agent_view(state: AgentState) -> dict[str, Any]:
    return {
        "agent_id": state.agent_id,
        "drift_score": round(state.drift_score or 0.0, 4),
        "risk_level": state.drift_risk or LEARNING,
        "locked_down": bool(state.locked_down),
        "locked_at": iso(state.locked_at) if state.locked_down else None,
        "last_event_at": iso(state.drift_event_at),
        "signals": state.drift_signals or {},
    }


def at_risk(client_id: str) -> list[AgentState]:
    """Agents at medium or high risk, highest score first (the overview's panel)."""
    return list(
        db.session.scalars(
            AgentState.for_tenant(client_id)
            .where(AgentState.drift_risk.in_((MEDIUM, HIGH)))
            .order_by(AgentState.drift_score.desc(), AgentState.agent_id)
        )
    )


def list_events(
    client_id: str,
    *,
    limit: int,
    cursor: dict[str, Any] | None = None,
    agent_id: str = "",
) -> tuple[list[DriftEvent], dict[str, Any] | None]:
    """Drift events, newest first; returns (rows, next cursor position)."""
    query = DriftEvent.for_tenant(client_id)
    if agent_id:
        query = query.where(DriftEvent.agent_id == agent_id)
    return paging.newest_first(
        query, DriftEvent.detected_at, DriftEvent.event_id, limit=limit, cursor=cursor
    )


def event_view(event: DriftEvent) -> dict[str, Any]:
    return {
        "event_id": event.event_id,
        "agent_id": event.agent_id,
        "detected_at": iso(event.detected_at),
        "drift_score": round(event.drift_score, 4),
        "risk_level": event.risk_level,
        "signals": list(event.signals or []),
        "action": event.action,
    }


def get_event(client_id: str, event_id: str) -> DriftEvent:
    return DriftEvent.get_for_tenant(client_id, event_id, "drift event")


def key_actor(client_id: str, key_id: str) -> str:
    """Who an API call acts as (CONTRACT §10): the key's label, else its displayable prefix."""
    key = db.session.get(ApiKey, key_id)
    if key is None or key.client_id != client_id:
        return "api"
    return key.label.strip() or f"api key {key.prefix}"


# --- helpers ---------------------------------------------------------------------------------


def _lock_reason(assessment: Assessment) -> str:
    kinds = ", ".join(s.kind for s in assessment.firing()[:3])
    return f"drift score {assessment.drift_score:.2f} reached high risk ({kinds})"


def _notify(event: DriftEvent) -> None:
    # Imported here: notifications imports the clearance state machine, which imports this.
    from webapp.services import notifications

    try:
        notifications.queue_event(event.client_id, DETECTED, event.event_id)
    except Exception:  # noqa: BLE001 - the event is stored; a lost notice is logged, not fatal
        db.session.rollback()
        log.exception("could not queue %s for %s", DETECTED, event.event_id)
    try:
        # The signed webhook of CONTRACT §14, to the endpoints that want it.
        from webapp.services import webhooks

        webhooks.emit(
            event.client_id,
            DETECTED,
            {
                "drift_event_id": event.event_id,
                "agent_id": event.agent_id,
                "detected_at": iso(event.detected_at),
                "drift_score": event.drift_score,
                "risk_level": event.risk_level,
                "action": event.action,
            },
        )
    except Exception:  # noqa: BLE001 - the event is stored; a lost webhook is logged
        log.exception("could not queue the %s webhook for %s", DETECTED, event.event_id)


# --- notifications -----------------------------------------------------------------------------


def register_notifications() -> None:
    """Give the notification subsystem the messages of ``drift.detected`` (called by
    create_app, so that nothing registers itself at import)."""
    from webapp.services import notifications

    notifications.register_messages(DETECTED, _detected_messages)


def _detected_messages(delivery: Any) -> tuple[Any, dict[str, Any]]:
    from webapp.notify import drift as drift_messages

    event = db.session.get(DriftEvent, delivery.request_id)
    if event is None or event.client_id != delivery.client_id:
        raise LookupError("the drift event no longer exists")
    notice = drift_messages.build_notice(event_view(event), vault().config.public_url)
    return (
        lambda sender, recipients: drift_messages.email_message(
            notice, sender=sender, recipients=recipients
        ),
        drift_messages.slack_payload(notice),
    )
