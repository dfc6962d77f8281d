"""Drift detection and agent lockdown (spec §3, §4.1; CONTRACT §7, §10)."""

from __future__ import annotations

from flask import Blueprint, g, jsonify, request

from webapp.api import openapi
from webapp.api.auth import current_client_id, protect_with_tenant_key
from webapp.api.openapi import Op
from webapp.api.parsing import cursor_arg, encode_cursor, json_body, limit_arg, validated
from webapp.api.schemas import (
    DriftEventListReply,
    DriftSettingsReply,
    DriftSettingsUpdate,
    DriftSummaryReply,
    LockdownBody,
    LockdownReply,
    reply,
)
from webapp.services import agents
from webapp.services import drift as drift_service

drift = Blueprint("drift", __name__)
protect_with_tenant_key(drift)


@drift.get("/drift/settings")
def get_settings():
    return jsonify(reply(DriftSettingsReply, drift_service.drift_settings(current_client_id())))


@drift.put("/drift/settings")
def put_settings():
    change = validated(DriftSettingsUpdate, json_body()).command()
    client_id = current_client_id()
    actor = drift_service.key_actor(client_id, g.key_id)
    updated = drift_service.update_drift_settings(client_id, change, actor=actor)
    return jsonify(reply(DriftSettingsReply, updated))


@drift.get("/drift/summary")
def summary():
    return jsonify(reply(DriftSummaryReply, drift_service.summary(current_client_id())))


@drift.get("/drift/events")
def events():
    rows, following = drift_service.list_events(
        current_client_id(),
        limit=limit_arg(),
        cursor=cursor_arg(),
        agent_id=request.args.get("agent_id", ""),
    )
    page = {
        "events": [drift_service.event_view(row) for row in rows],
        "next_cursor": encode_cursor(following) if following else None,
    }
    return jsonify(reply(DriftEventListReply, page))


@drift.post("/drift/agents/<path:agent_id>/lockdown")
def lock_down(agent_id: str):
    body = validated(LockdownBody, json_body(required=False))
    client_id = current_client_id()
    actor = drift_service.key_actor(client_id, g.key_id)
    state = agents.lock_down(client_id, agent_id, actor=actor, reason=body.reason or "")
    return jsonify(reply(LockdownReply, agents.lock_view(state)))


@drift.delete("/drift/agents/<path:agent_id>/lockdown")
def release(agent_id: str):
    body = validated(LockdownBody, json_body(required=False))
    client_id = current_client_id()
    actor = drift_service.key_actor(client_id, g.key_id)
    state = agents.release(client_id, agent_id, actor=actor, reason=(body.reason or "").strip())
    return jsonify(reply(LockdownReply, agents.lock_view(state)))


openapi.register(
    Op(
        "get",
        "/drift/settings",
        "Drift detection settings",
        "Drift",
        reply=DriftSettingsReply,
    ),
    Op(
        "put",
        "/drift/settings",
        "Change drift settings (any field alone); out of range → 400 naming the field",
        "Drift",
        body=DriftSettingsUpdate,
        reply=DriftSettingsReply,
    ),
    Op(
        "get",
        "/drift/summary",
        "Every agent's drift score, risk level, lockdown and signals with evidence",
        "Drift",
        reply=DriftSummaryReply,
    ),
    Op(
        "get",
        "/drift/events",
        "Drift events (a score crossing score_threshold), newest first",
        "Drift",
        query=("limit", "cursor", "agent_id"),
        reply=DriftEventListReply,
    ),
    Op(
        "post",
        "/drift/agents/{agent_id}/lockdown",
        "Lock an agent down (idempotent; an agent never seen may be locked in advance)",
        "Drift",
        body=LockdownBody,
        body_optional=True,
        reply=LockdownReply,
    ),
    Op(
        "delete",
        "/drift/agents/{agent_id}/lockdown",
        "Release an agent's lockdown with a reason (idempotent; a drift lockdown needs one)",
        "Drift",
        body=LockdownBody,
        body_optional=True,
        reply=LockdownReply,
    ),
)
