"""The review queue and reviewer decisions (spec §2.7, CONTRACT §8)."""

from __future__ import annotations

from flask import Blueprint, jsonify, request

from webapp.api import openapi
from webapp.api.auth import current_client_id, protect_with_tenant_key
from webapp.api.openapi import Op
from webapp.api.parsing import cursor_arg, encode_cursor, idempotency_key, json_body, limit_arg
from webapp.api.schemas import Body, ReviewDecisionReply, ReviewListReply, reply
from webapp.services import reviews

reviews_api = Blueprint("reviews", __name__)
protect_with_tenant_key(reviews_api)


class ReviewDecisionBody(Body):
    """Spec §2.7. Validated by the reviews service; this model documents it."""

    approved: bool
    review_reason: str | None = None
    reviewer_email: str | None = None


@reviews_api.get("/reviews")
def list_reviews():
    status = request.args.get("status") or "pending_review"
    rows, following = reviews.list_reviews(
        current_client_id(), status=status, limit=limit_arg(), cursor=cursor_arg()
    )
    page = {
        "reviews": [reviews.review_item(row) for row in rows],
        "next_cursor": encode_cursor(following) if following else None,
    }
    return jsonify(reply(ReviewListReply, page))


@reviews_api.post("/reviews/<request_id>/decision")
def decide(request_id: str):
    approved, reason, email = reviews.parse_decision(json_body())
    payload, status = reviews.decide(
        current_client_id(),
        request_id,
        approved=approved,
        review_reason=reason,
        reviewer_email=email,
        reviewer_verified=False,
        idempotency_key=idempotency_key(),
    )
    return jsonify(reply(ReviewDecisionReply, payload)), status


openapi.register(
    Op(
        "get",
        "/reviews",
        "The review queue (status pending_review|approved|denied|expired|all)",
        "Review",
        query=("status", "limit", "cursor"),
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
            403: "The reviewer is the requesting agent",
            409: "The request is no longer pending review",
            422: "Idempotency-Key reused with another body",
        },
    ),
)
