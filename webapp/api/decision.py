"""The decision path: request clearance, poll its status, consume the token (spec §4.1)."""

from __future__ import annotations

from flask import Blueprint, jsonify

from webapp.api import openapi
from webapp.api.auth import current_client_id, protect_with_tenant_key
from webapp.api.openapi import Op
from webapp.api.parsing import idempotency_key, json_body, validated
from webapp.api.schemas import (
    ClearanceReply,
    ClearanceRequestBody,
    ConsumeTokenBody,
    ConsumeTokenReply,
    reply,
)
from webapp.models import PROCESSING
from webapp.runtime import vault
from webapp.services import clearance, tokens

decision = Blueprint("decision", __name__)
protect_with_tenant_key(decision)


@decision.post("/request-clearance")
def request_clearance():
    new = validated(ClearanceRequestBody, json_body()).command()
    request = clearance.request_clearance(current_client_id(), new, idempotency_key())
    # Only the slow lane leaves the request processing; the fast lane answered already.
    request = clearance.wait_for_decision(request, vault().config.clearance_sync_wait_ms)
    view = reply(ClearanceReply, clearance.response_view(request))
    return jsonify(view), 202 if request.status == PROCESSING else 200


@decision.get("/clearance-status/<request_id>")
def clearance_status(request_id: str):
    request = clearance.get_request(current_client_id(), request_id)
    return jsonify(reply(ClearanceReply, clearance.response_view(request)))


@decision.post("/consume-token")
def consume_token():
    body = validated(ConsumeTokenBody, json_body())
    burned = tokens.consume(current_client_id(), body.token, body.tool_name, body.tool_args)
    return jsonify(reply(ConsumeTokenReply, burned))


openapi.register(
    Op(
        "post",
        "/request-clearance",
        "Ask for clearance of one exact tool call",
        "Decision",
        body=ClearanceRequestBody,
        idempotent_key=True,
        reply=ClearanceReply,
        responses={
            202: "Still processing; poll /clearance-status",
            422: "Idempotency-Key reused with another body",
            503: "Queue unavailable; retry after Retry-After",
        },
    ),
    Op(
        "get",
        "/clearance-status/{request_id}",
        "Current state of a clearance request",
        "Decision",
        reply=ClearanceReply,
    ),
    Op(
        "post",
        "/consume-token",
        "Verify and burn an approval token at the tool boundary",
        "Decision",
        body=ConsumeTokenBody,
        reply=ConsumeTokenReply,
        responses={
            409: "Token already used (replay): do not run the action",
            422: "token_invalid, token_expired or args_mismatch",
        },
    ),
)
