"""Notification settings (spec §2.6, CONTRACT §7), the test message, and the delivery log."""

from __future__ import annotations

from flask import Blueprint, jsonify, request

from webapp.api import openapi
from webapp.api.auth import current_client_id, protect_with_tenant_key
from webapp.api.openapi import Op
from webapp.api.parsing import cursor_arg, encode_cursor, json_body, limit_arg, validated
from webapp.api.schemas import (
    DeliveryGroupListReply,
    DeliveryListReply,
    NotificationSettingsReply,
    NotificationSettingsUpdate,
    TestDeliveriesReply,
    reply,
)
from webapp.services import notifications

notifications_api = Blueprint("notifications", __name__)
protect_with_tenant_key(notifications_api)


@notifications_api.get("/notification-settings")
def get_settings():
    return jsonify(
        reply(NotificationSettingsReply, notifications.notification_settings(current_client_id()))
    )


@notifications_api.put("/notification-settings")
def put_settings():
    change = validated(NotificationSettingsUpdate, json_body()).command()
    updated = notifications.update_notification_settings(current_client_id(), change, actor="api")
    return jsonify(reply(NotificationSettingsReply, updated))


@notifications_api.post("/notification-settings/test")
def send_test():
    json_body(required=False)
    deliveries = notifications.send_test(current_client_id())
    views = [notifications.delivery_view(d) for d in deliveries]
    return jsonify(reply(TestDeliveriesReply, {"deliveries": views})), 202


@notifications_api.get("/notifications/deliveries")
def list_deliveries():
    rows, following = notifications.list_deliveries(
        current_client_id(),
        limit=limit_arg(),
        cursor=cursor_arg(),
        request_id=request.args.get("request_id", ""),
        status=request.args.get("status", ""),
    )
    page = {
        "deliveries": [notifications.delivery_view(row) for row in rows],
        "next_cursor": encode_cursor(following) if following else None,
    }
    return jsonify(reply(DeliveryListReply, page))


@notifications_api.get("/notifications/delivery-groups")
def list_delivery_groups():
    entries, following = notifications.delivery_groups(
        current_client_id(), limit=limit_arg(), cursor=cursor_arg()
    )
    page = {
        "groups": [notifications.delivery_group_view(entry) for entry in entries],
        "next_cursor": encode_cursor(following) if following else None,
    }
    return jsonify(reply(DeliveryGroupListReply, page))


openapi.register(
    Op(
        "get",
        "/notification-settings",
        "Email and chat-webhook notification settings (webhook URL masked)",
        "Settings",
        reply=NotificationSettingsReply,
    ),
    Op(
        "put",
        "/notification-settings",
        "Change notification settings; omit slack_webhook_url to keep it. Email switched "
        "on without an SMTP server is saved, with a warning in `warnings`",
        "Settings",
        body=NotificationSettingsUpdate,
        reply=NotificationSettingsReply,
    ),
    Op(
        "post",
        "/notification-settings/test",
        "Send a test message on each enabled channel",
        "Settings",
        ok=202,
        body_optional=True,
        reply=TestDeliveriesReply,
        responses={400: "No channel is enabled"},
    ),
    Op(
        "get",
        "/notifications/deliveries",
        "The notification delivery log, newest first",
        "Settings",
        query=("limit", "cursor", "request_id", "status"),
        reply=DeliveryListReply,
    ),
    Op(
        "get",
        "/notifications/delivery-groups",
        "The delivery log for people: newest first, each run of repeated failures (same "
        "channel, target and error) folded into one entry with its count and time span",
        "Settings",
        query=("limit", "cursor"),
        reply=DeliveryGroupListReply,
    ),
)
