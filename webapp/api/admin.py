"""Operator endpoints (CONTRACT §12): tenants, API keys, users, and sealing on demand."""

from __future__ import annotations

from flask import Blueprint, jsonify

from webapp.api.auth import protect_with_admin_key
from webapp.api.parsing import json_body, validated
from webapp.api.schemas import (
    ApiKeyListReply,
    NewApiKey,
    NewApiKeyReply,
    NewTenant,
    NewTenantReply,
    NewUser,
    SealReply,
    TenantListReply,
    UserListReply,
    UserReply,
    reply,
)
from webapp.services import tenants

admin = Blueprint("admin", __name__, url_prefix="/admin")
protect_with_admin_key(admin)


@admin.post("/tenants")
def create_tenant():
    body = validated(NewTenant, json_body())
    tenant, raw_key = tenants.create_tenant(body.name)
    return jsonify(reply(NewTenantReply, {**tenants.tenant_view(tenant), "api_key": raw_key})), 201


@admin.get("/tenants")
def list_tenants():
    return jsonify(
        reply(
            TenantListReply, {"tenants": [tenants.tenant_view(t) for t in tenants.list_tenants()]}
        )
    )


@admin.post("/tenants/<client_id>/api-keys")
def create_api_key(client_id: str):
    label, scopes = validated(NewApiKey, json_body(required=False)).command()
    key, raw = tenants.create_api_key(client_id, label, scopes)
    view = {"key_id": key.key_id, "api_key": raw, "prefix": key.prefix, "scopes": key.scope_list}
    return jsonify(reply(NewApiKeyReply, view)), 201


@admin.get("/tenants/<client_id>/api-keys")
def list_api_keys(client_id: str):
    keys = [tenants.api_key_view(k) for k in tenants.list_api_keys(client_id)]
    return jsonify(reply(ApiKeyListReply, {"api_keys": keys}))


@admin.delete("/tenants/<client_id>/api-keys/<key_id>")
def revoke_api_key(client_id: str, key_id: str):
    tenants.revoke_api_key(client_id, key_id)
    return "", 204


@admin.post("/tenants/<client_id>/users")
def create_user(client_id: str):
    body = validated(NewUser, json_body())
    user = tenants.create_user(client_id, body.email, body.password, body.role)
    return jsonify(reply(UserReply, tenants.user_view(user))), 201


@admin.get("/tenants/<client_id>/users")
def list_users(client_id: str):
    tenants.get_tenant(client_id)
    users = [tenants.user_view(u) for u in tenants.list_users(client_id)]
    return jsonify(reply(UserListReply, {"users": users}))


@admin.post("/ledger/seal")
def seal_ledger():
    from webapp.api.ledger import SealRequest
    from webapp.services import checkpoints, sealing

    body = validated(SealRequest, json_body(required=False))
    if body.client_id is not None:
        tenants.get_tenant(body.client_id)
    sealed = sealing.seal_and_queue_exports(body.client_id)
    views = [{"client_id": c.client_id, **checkpoints.checkpoint_view(c)} for c in sealed]
    return jsonify(reply(SealReply, {"checkpoints": views}))
