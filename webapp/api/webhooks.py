"""Outbound webhook endpoints and their delivery log (CONTRACT §14)."""

from __future__ import annotations

from flask import Blueprint, jsonify

from webapp.api import openapi
from webapp.api.auth import current_client_id, protect_with_tenant_key
from webapp.api.openapi import Op
from webapp.api.parsing import cursor_arg, encode_cursor, json_body, limit_arg, validated
from webapp.api.schemas import (
    NewWebhook,
    WebhookDeliveryListReply,
    WebhookListReply,
    WebhookReply,
    reply,
)
from webapp.services import webhooks

webhooks_api = Blueprint("webhooks", __name__)
protect_with_tenant_key(webhooks_api)


@webhooks_api.get("/webhooks")
def list_webhooks():
    endpoints = webhooks.list_endpoints(current_client_id())
    views = [webhooks.endpoint_view(e) for e in endpoints]
    return jsonify(reply(WebhookListReply, {"webhooks": views}))


@webhooks_api.post("/webhooks")
def create_webhook():
    new = validated(NewWebhook, json_body()).command()
    endpoint, secret = webhooks.create_endpoint(current_client_id(), new, actor="api")
    return jsonify(reply(WebhookReply, webhooks.endpoint_view(endpoint, secret))), 201


@webhooks_api.delete("/webhooks/<webhook_id>")
def delete_webhook(webhook_id: str):
    webhooks.delete_endpoint(current_client_id(), webhook_id, actor="api")
    return "", 204


@webhooks_api.get("/webhooks/<webhook_id>/deliveries")
def list_deliveries(webhook_id: str):
    rows, following = webhooks.list_deliveries(
        current_client_id(), webhook_id, limit=limit_arg(), cursor=cursor_arg()
    )
    page = {
        "deliveries": [webhooks.delivery_view(row) for row in rows],
        "next_cursor": encode_cursor(following) if following else None,
    }
    return jsonify(reply(WebhookDeliveryListReply, page))


openapi.register(
    Op(
        "get",
        "/webhooks",
        "The tenant's outbound webhook endpoints",
        "Settings",
        reply=WebhookListReply,
    ),
    Op(
        "post",
        "/webhooks",
        "Add an endpoint for signed events; its secret is in this answer only",
        "Settings",
        ok=201,
        body=NewWebhook,
        reply=WebhookReply,
        responses={400: "Not an https URL, a private address, or an unknown event type"},
    ),
    Op(
        "delete",
        "/webhooks/{webhook_id}",
        "Remove an endpoint and its delivery log",
        "Settings",
        ok=204,
        responses={404: "Unknown webhook_id"},
    ),
    Op(
        "get",
        "/webhooks/{webhook_id}/deliveries",
        "An endpoint's delivery log, newest first",
        "Settings",
        query=("limit", "cursor"),
        reply=WebhookDeliveryListReply,
        responses={404: "Unknown webhook_id"},
    ),
)
