"""Policy registration and the policy list (spec §2.4, CONTRACT §6)."""

from __future__ import annotations

from flask import Blueprint, jsonify

from webapp.api import openapi
from webapp.api.auth import current_client_id, protect_with_tenant_key
from webapp.api.openapi import Op
from webapp.api.parsing import idempotency_key, json_body, validated
from webapp.api.schemas import (
    DryRunBody,
    DryRunReply,
    GlossaryBody,
    GlossaryReply,
    PolicyBody,
    PolicyDetailReply,
    PolicyListReply,
    PolicyReply,
    RegisterPolicyReply,
    reply,
)
from webapp.errors import InvalidInput, NotFound
from webapp.judge.types import ClearanceQuery
from webapp.judge.types import PolicyVersion as JudgePolicy
from webapp.services import glossary, judging, policies, policy_trials

policies_api = Blueprint("policies", __name__)
protect_with_tenant_key(policies_api)


@policies_api.post("/register-policy")
def register_policy():
    body = json_body()
    content = policies.parse_content(body)
    examples = policy_trials.parse_examples(body.get("examples"))
    payload, status = policy_trials.register(
        current_client_id(), content, examples, idempotency_key()
    )
    return jsonify(reply(RegisterPolicyReply, payload)), status


@policies_api.post("/policies/dry-run")
def dry_run():
    body = json_body()
    client_id = current_client_id()
    if "policy" in body:
        if not isinstance(body["policy"], dict):
            raise InvalidInput(
                "policy must be an object",
                errors=[{"field": "policy", "message": "must be an object"}],
            )
        content = policies.parse_content(body["policy"])
        draft = JudgePolicy(
            content.policy_id,
            f"dry-run:{content.content_hash[:16]}",
            content.content_hash,
            content.description,
            tuple(content.rules),
            tuple(content.tools),
        )
    elif isinstance(body.get("policy_id"), str):
        policy, versions = policies.get_policy(client_id, body["policy_id"])
        current = next(
            (v for v in versions if v.policy_version_id == policy.current_version_id), None
        )
        if current is None or not policy.active:
            raise NotFound("no active version of this policy")
        draft = judging.to_judge_policy(current)
    else:
        raise InvalidInput(
            "send policy (a register-policy body) or policy_id",
            errors=[{"field": "policy", "message": "policy or policy_id is required"}],
        )
    outcome = policy_trials.dry_run(client_id, draft, _dry_run_query(body.get("request")))
    return jsonify(reply(DryRunReply, outcome))


def _dry_run_query(request_body: object) -> ClearanceQuery:
    if not isinstance(request_body, dict):
        raise InvalidInput(
            "request must be an object",
            errors=[{"field": "request", "message": "must be an object"}],
        )
    tool = request_body.get("tool_name")
    args = request_body.get("tool_args", {})
    agent = request_body.get("agent_id", "dry-run")
    if not isinstance(tool, str) or not 0 < len(tool) <= 256:
        raise InvalidInput(
            "request.tool_name must be a non-empty string",
            errors=[{"field": "request.tool_name", "message": "required"}],
        )
    if not isinstance(args, dict):
        raise InvalidInput(
            "request.tool_args must be an object",
            errors=[{"field": "request.tool_args", "message": "must be an object"}],
        )
    if not isinstance(agent, str) or len(agent) > 256:
        raise InvalidInput(
            "request.agent_id must be a string",
            errors=[{"field": "request.agent_id", "message": "must be a string"}],
        )
    return ClearanceQuery(tool, args, agent or "dry-run")


@policies_api.get("/glossary")
def get_glossary():
    return jsonify(reply(GlossaryReply, glossary.view(current_client_id())))


@policies_api.put("/glossary")
def put_glossary():
    terms = validated(GlossaryBody, json_body()).terms
    return jsonify(reply(GlossaryReply, glossary.replace(current_client_id(), terms, actor="api")))


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
        "post",
        "/policies/dry-run",
        "Judge a tool call against a draft or active policy; records nothing",
        "Policy",
        body=DryRunBody,
        reply=DryRunReply,
        responses={404: "No active version of the policy named"},
    ),
    Op(
        "get",
        "/glossary",
        "The tenant glossary and the built-in vocabularies",
        "Policy",
        reply=GlossaryReply,
    ),
    Op(
        "put",
        "/glossary",
        "Replace the tenant glossary",
        "Policy",
        body=GlossaryBody,
        reply=GlossaryReply,
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
