"""The review queue and reviewer decisions (spec §2.7, CONTRACT §8)."""

from __future__ import annotations

from flask import Blueprint, jsonify, request

from webapp.api import openapi
from webapp.api.auth import current_client_id, current_key_channel, protect_with_tenant_key
from webapp.api.openapi import Op
from webapp.api.parsing import (
    cursor_arg,
    encode_cursor,
    idempotency_key,
    json_body,
    limit_arg,
    validated,
)
from webapp.api.schemas import ReviewDecisionBody, ReviewDecisionReply, ReviewListReply, reply
from webapp.services import reviews

reviews_api = Blueprint("reviews", __name__)
protect_with_tenant_key(reviews_api)


@reviews_api.get("/reviews")
def list_reviews():
    status = request.args.get("status") or "pending_review"
    rows, following = reviews.list_reviews(
        current_client_id(),
        status=status,
        limit=limit_arg(),
        cursor=cursor_arg(),
        filters=reviews.parse_queue_filter(request.args),
    )
    page = {
        "reviews": reviews.review_items(rows),
        "next_cursor": encode_cursor(following) if following else None,
    }
    return jsonify(reply(ReviewListReply, page))


@reviews_api.post("/reviews/<request_id>/decision")
def decide(request_id: str):
    # The key's label is recorded as the channel.
    vote = validated(ReviewDecisionBody, json_body()).command(current_key_channel())
    payload, status = reviews.decide(
        current_client_id(), request_id, vote, idempotency_key=idempotency_key()
    )
    return jsonify(reply(ReviewDecisionReply, payload)), status


openapi.register(
    Op(
        "get",
        "/reviews",
        "The review queue (status pending_review|approved|denied|expired|all)",
        "Review",
        query=(
            "status",
            "limit",
            "cursor",
            "agent_id",
            "tool_name",
            "policy_id",
            "created_before",
            "created_after",
            "request_id",
            "min_amount",
            "max_amount",
            "min_age_minutes",
            "max_age_minutes",
        ),
        reply=ReviewListReply,
    ),
    Op(
        "post",
        "/reviews/{request_id}/decision",
        "Approve or deny a request waiting for review",
        "Review",
        body=ReviewDecisionBody,
        idempotent_key=True,
        reply=ReviewDecisionReply,
        responses={
            400: "Bad body, or under a quorum reviewer_email names no active reviewer",
            403: "The key lacks the review scope, or the reviewer is the requester",
            409: "The request is no longer pending review, or this reviewer already voted",
            422: "Idempotency-Key reused with another body",
        },
    ),
)
