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
    PolicyDetailReply,
    PolicyListReply,
    PolicyReply,
    RegisterPolicyBody,
    RegisterPolicyReply,
    reply,
)
from webapp.errors import NotFound
from webapp.judge.types import PolicyVersion as JudgePolicy
from webapp.services import glossary, judging, policies, policy_trials

policies_api = Blueprint("policies", __name__)
protect_with_tenant_key(policies_api)


@policies_api.post("/register-policy")
def register_policy():
    content, examples = validated(RegisterPolicyBody, json_body()).command()
    payload, status = policy_trials.register(
        current_client_id(), content, examples, idempotency_key()
    )
    return jsonify(reply(RegisterPolicyReply, payload)), status


@policies_api.post("/policies/dry-run")
def dry_run():
    content, policy_id, call = validated(DryRunBody, json_body()).command()
    client_id = current_client_id()
    if content is not None:
        draft = JudgePolicy(
            content.policy_id,
            f"dry-run:{content.content_hash[:16]}",
            content.content_hash,
            content.description,
            tuple(content.rules),
            tuple(content.tools),
        )
    else:
        policy, versions = policies.get_policy(client_id, policy_id)
        current = next(
            (v for v in versions if v.policy_version_id == policy.current_version_id), None
        )
        if current is None or not policy.active:
            raise NotFound("no active version of this policy")
        draft = judging.to_judge_policy(current)
    outcome = policy_trials.dry_run(client_id, draft, call)
    return jsonify(reply(DryRunReply, outcome))


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
        body=RegisterPolicyBody,
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
