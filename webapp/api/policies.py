"""Policy registration and the policy list (spec §2.4, CONTRACT §6)."""

from __future__ import annotations

from flask import Blueprint, jsonify

from webapp.api import openapi
from webapp.api.auth import current_client_id, protect_with_tenant_key
from webapp.api.openapi import Op
from webapp.api.parsing import idempotency_key, json_body
from webapp.api.schemas import (
    PolicyBody,
    PolicyDetailReply,
    PolicyListReply,
    PolicyReply,
    RegisterPolicyReply,
    reply,
)
from webapp.services import idempotency, policies

policies_api = Blueprint("policies", __name__)
protect_with_tenant_key(policies_api)


@policies_api.post("/register-policy")
def register_policy():
    body = json_body()
    payload, status = idempotency.once(
        current_client_id(), "register-policy", idempotency_key(), body, lambda: _register(body)
    )
    return jsonify(reply(RegisterPolicyReply, payload)), status


def _register(body: dict) -> tuple[dict, int]:
    content = policies.parse_content(body)
    result = policies.register(current_client_id(), content)
    version = result.version
    if result.created:
        status, message = "registered", f"version {version.version} registered"
    elif result.reactivated:
        status, message = "unchanged", "content unchanged; policy reactivated"
    else:
        status, message = "unchanged", "content unchanged; no new version"
    payload = {
        "policy_id": version.policy_id,
        "status": status,
        "message": message,
        "policy_version_id": version.policy_version_id,
        "policy_content_hash": version.content_hash,
        "version": version.version,
        "chunks": result.chunks,
    }
    return payload, 201 if result.created else 200


@policies_api.get("/policies")
def list_policies():
    items = [policies.policy_view(p, v) for p, v in policies.list_policies(current_client_id())]
    return jsonify(reply(PolicyListReply, {"policies": items, "next_cursor": None}))


@policies_api.get("/policies/<policy_id>")
def get_policy(policy_id: str):
    policy, versions = policies.get_policy(current_client_id(), policy_id)
    current = next((v for v in versions if v.policy_version_id == policy.current_version_id), None)
    view = {
        **policies.policy_view(policy, current),
        "versions": [policies.version_view(v) for v in versions],
    }
    return jsonify(reply(PolicyDetailReply, view))


@policies_api.delete("/policies/<policy_id>")
def deactivate_policy(policy_id: str):
    policy = policies.deactivate(current_client_id(), policy_id)
    return jsonify(
        reply(PolicyReply, policies.policy_view(policy, None) | {"active": policy.active})
    )


openapi.register(
    Op(
        "post",
        "/register-policy",
        "Register a policy or a new version of one",
        "Policy",
        body=PolicyBody,
        ok=201,
        idempotent_key=True,
        reply=RegisterPolicyReply,
        responses={
            200: "Content unchanged; no new version",
            422: "Idempotency-Key reused with another body",
        },
    ),
    Op(
        "get",
        "/policies",
        "List policies with their current versions",
        "Policy",
        reply=PolicyListReply,
    ),
    Op(
        "get",
        "/policies/{policy_id}",
        "One policy with every version",
        "Policy",
        reply=PolicyDetailReply,
    ),
    Op(
        "delete",
        "/policies/{policy_id}",
        "Deactivate a policy (history stays)",
        "Policy",
        reply=PolicyReply,
    ),
)
