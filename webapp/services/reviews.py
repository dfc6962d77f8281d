"""The review queue (CONTRACT §8) and reviewer decisions, through the clearance state machine.

A review is a request that entered ``pending_review`` (it has ``review_started_at``). The
queue filters partition them: ``pending_review``; ``approved`` (by a reviewer); ``denied`` (by
a reviewer); ``expired`` (denied with ``review_expired`` because nobody decided in time);
``all``. The pending queue lists the oldest first (closest to expiry); the others the newest.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, or_

from webapp.errors import InvalidInput
from webapp.extensions import db
from webapp.models import APPROVED, DENIED, PENDING_REVIEW, ClearanceRequest, iso
from webapp.services import clearance, idempotency
from webapp.services.notifications import is_valid_email, parse_position

STATUS_FILTERS = ("pending_review", "approved", "denied", "expired", "all")
MAX_REASON_CHARS = 2000


def list_reviews(
    client_id: str, *, status: str, limit: int, cursor: dict[str, Any] | None
) -> tuple[list[ClearanceRequest], dict[str, Any] | None]:
    """One page of the queue; returns (requests, next cursor position or None)."""
    if status not in STATUS_FILTERS:
        raise InvalidInput(
            f"status must be one of {', '.join(STATUS_FILTERS)}",
            errors=[{"field": "status", "message": f"must be one of {', '.join(STATUS_FILTERS)}"}],
        )
    started = ClearanceRequest.review_started_at
    query = ClearanceRequest.for_tenant(client_id).where(started.is_not(None))
    if status == "pending_review":
        query = query.where(ClearanceRequest.status == PENDING_REVIEW)
    elif status == "approved":
        query = query.where(ClearanceRequest.status == APPROVED)
    elif status == "denied":
        query = query.where(
            ClearanceRequest.status == DENIED, ClearanceRequest.reason_code != "review_expired"
        )
    elif status == "expired":
        query = query.where(
            ClearanceRequest.status == DENIED, ClearanceRequest.reason_code == "review_expired"
        )
    oldest_first = status == "pending_review"
    if cursor is not None:
        if cursor.get("s") != status:
            raise InvalidInput(
                "cursor belongs to another status filter",
                errors=[{"field": "cursor", "message": "belongs to another status filter"}],
            )
        at, last = parse_position(cursor)
        if oldest_first:
            query = query.where(
                or_(started > at, and_(started == at, ClearanceRequest.request_id > last))
            )
        else:
            query = query.where(
                or_(started < at, and_(started == at, ClearanceRequest.request_id < last))
            )
    order = (
        (started.asc(), ClearanceRequest.request_id.asc())
        if oldest_first
        else (started.desc(), ClearanceRequest.request_id.desc())
    )
    rows = list(db.session.scalars(query.order_by(*order).limit(limit + 1)))
    following = None
    if len(rows) > limit:
        rows = rows[:limit]
        following = {"s": status, "t": iso(rows[-1].review_started_at), "id": rows[-1].request_id}
    return rows, following


def review_item(request: ClearanceRequest) -> dict[str, Any]:
    """A queue item: exactly the fields of CONTRACT §8."""
    return {
        "request_id": request.request_id,
        "status": request.status,
        "tool_name": request.tool_name,
        "tool_args": request.tool_args,
        "agent_id": request.agent_id,
        "session_id": request.session_id or "",
        "policy_id": request.policy_id or "",
        "confidence": request.confidence,
        "confidence_bucket": clearance.confidence_bucket(request.confidence),
        "reason": request.reason or "",
        "reason_code": request.reason_code or "",
        "citations": request.citations or [],
        "created_at": iso(request.created_at),
        "decided_at": iso(request.decided_at),
        "reviewer_email": request.reviewer_email or "",
        "review_reason": request.review_reason or "",
    }


def decision_view(request: ClearanceRequest) -> dict[str, Any]:
    """The answer to a decision: the clearance response plus who decided and why."""
    return {
        **clearance.response_view(request),
        "reviewer_email": request.reviewer_email or "",
        "review_reason": request.review_reason or "",
    }


def parse_decision(body: dict[str, Any]) -> tuple[bool, str, str]:
    """Validate a decision body: ``approved`` (required bool), ``review_reason``, ``reviewer_email``."""
    errors = []
    approved = body.get("approved")
    if not isinstance(approved, bool):
        errors.append({"field": "approved", "message": "is required and must be true or false"})
    reason = body.get("review_reason")
    if reason is None:
        reason = ""
    if not isinstance(reason, str):
        errors.append({"field": "review_reason", "message": "must be a string"})
        reason = ""
    elif len(reason) > MAX_REASON_CHARS:
        errors.append(
            {"field": "review_reason", "message": f"must be at most {MAX_REASON_CHARS} characters"}
        )
    email = body.get("reviewer_email")
    if email is None:
        email = ""
    if not isinstance(email, str):
        errors.append({"field": "reviewer_email", "message": "must be a string"})
        email = ""
    elif email.strip() and not is_valid_email(email.strip()):
        errors.append({"field": "reviewer_email", "message": "is not a valid email address"})
    if errors:
        raise InvalidInput(f"{errors[0]['field']} {errors[0]['message']}", errors=errors)
    return bool(approved), reason.strip(), email.strip()


def decide(
    client_id: str,
    request_id: str,
    *,
    approved: bool,
    review_reason: str,
    reviewer_email: str,
    reviewer_verified: bool,
    idempotency_key: str | None = None,
) -> tuple[dict[str, Any], int]:
    """Approve or deny a pending request once; returns (decision view, 200).

    Over the API the reviewer's address is asserted by the caller (``reviewer_verified``
    false); the dashboard passes the signed-in user's address as verified. 409 when the
    request is no longer pending, 403 when the reviewer is the requesting agent.
    """
    # The same request id 404s for another tenant before any idempotency record is written.
    clearance.get_request(client_id, request_id)

    def work() -> tuple[dict[str, Any], int]:
        request = clearance.decide_review(
            client_id,
            request_id,
            approved=approved,
            reviewer_email=reviewer_email,
            review_reason=review_reason,
            reviewer_verified=reviewer_verified,
        )
        return decision_view(request), 200

    body = {
        "request_id": request_id,
        "approved": approved,
        "review_reason": review_reason,
        "reviewer_email": reviewer_email,
    }
    return idempotency.once(client_id, "review-decision", idempotency_key, body, work)
