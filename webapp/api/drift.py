"""Agent lockdown (spec §3, CONTRACT §10). Drift detection itself is not built yet."""

from __future__ import annotations

from flask import Blueprint, jsonify

from webapp.api import openapi
from webapp.api.auth import current_client_id, protect_with_tenant_key
from webapp.api.openapi import Op
from webapp.api.parsing import json_body, validated
from webapp.api.schemas import LockdownBody, LockdownReply, reply
from webapp.services import agents

drift = Blueprint("drift", __name__)
protect_with_tenant_key(drift)


@drift.post("/drift/agents/<path:agent_id>/lockdown")
def lock_down(agent_id: str):
    body = validated(LockdownBody, json_body(required=False))
    state = agents.lock_down(current_client_id(), agent_id, actor="api", reason=body.reason or "")
    return jsonify(reply(LockdownReply, agents.lock_view(state)))


@drift.delete("/drift/agents/<path:agent_id>/lockdown")
def release(agent_id: str):
    state = agents.release(current_client_id(), agent_id, actor="api")
    return jsonify(reply(LockdownReply, agents.lock_view(state)))


openapi.register(
    Op(
        "post",
        "/drift/agents/{agent_id}/lockdown",
        "Lock an agent down (idempotent)",
        "Drift",
        body=LockdownBody,
        body_optional=True,
        reply=LockdownReply,
    ),
    Op(
        "delete",
        "/drift/agents/{agent_id}/lockdown",
        "Release an agent's lockdown (idempotent)",
        "Drift",
        reply=LockdownReply,
    ),
)
