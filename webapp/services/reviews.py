"""The review queue (CONTRACT §8) and reviewer decisions, through the clearance state machine.

A review is a request that entered ``pending_review`` (it has ``review_started_at``). The
queue filters partition them: ``pending_review``; ``approved`` (by a reviewer); ``denied`` (by
a reviewer); ``expired`` (denied with ``review_expired`` because nobody decided in time);
``all``. The pending queue lists the oldest first (closest to expiry); the others the newest.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlalchemy.exc import IntegrityError

from webapp.errors import Conflict, Forbidden, InvalidInput
from webapp.extensions import db
from webapp.models import (
    APPROVED,
    DENIED,
    PENDING_REVIEW,
    ClearanceRequest,
    ReviewVote,
    User,
    iso,
)
from webapp.runtime import vault
from webapp.services import clearance, idempotency
from webapp.services.notifications import is_valid_email, parse_position

# Dashboard roles whose users may review (the dashboard's "review" ability).
REVIEWER_ROLES = ("owner", "reviewer")

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


@dataclass(frozen=True)
class Vote:
    """One reviewer's decision as it arrives. ``channel`` says how ("api key <label>" or
    "dashboard <email>"); ``verified`` is true when the address is a signed-in user's."""

    approved: bool
    review_reason: str
    reviewer_email: str
    channel: str
    verified: bool


def expires_at(request: ClearanceRequest) -> Any:
    """When a pending review is denied as expired (None if it never waited for review)."""
    if request.review_started_at is None:
        return None
    return request.review_started_at + timedelta(seconds=vault().config.review_ttl_seconds)


def judge_reason(request: ClearanceRequest) -> str:
    """The judge's reason for sending the request to review, even after a reviewer decided."""
    if request.judge_reason:
        return request.judge_reason
    # Rows from before the column existed: while pending, `reason` is still the judge's.
    return request.reason or "" if request.status == PENDING_REVIEW else ""


def approvals_of(request_ids: list[str]) -> dict[str, list[ReviewVote]]:
    """Approving votes per request, oldest first, in one query."""
    found: dict[str, list[ReviewVote]] = defaultdict(list)
    if not request_ids:
        return found
    rows = db.session.scalars(
        select(ReviewVote)
        .where(ReviewVote.request_id.in_(request_ids), ReviewVote.approved.is_(True))
        .order_by(ReviewVote.created_at, ReviewVote.id)
    )
    for vote in rows:
        found[vote.request_id].append(vote)
    return found


def approval_view(vote: ReviewVote) -> dict[str, Any]:
    return {
        "reviewer_email": vote.reviewer_email or "",
        "decided_at": iso(vote.created_at),
        "review_reason": vote.review_reason or "",
    }


def review_item(
    request: ClearanceRequest, approvals: list[ReviewVote] | None = None
) -> dict[str, Any]:
    """A queue item: exactly the fields of CONTRACT §8."""
    if approvals is None:
        approvals = approvals_of([request.request_id])[request.request_id]
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
        "judge_reason": judge_reason(request),
        "required_approvals": request.required_approvals or 1,
        "approvals": [approval_view(v) for v in approvals],
        "expires_at": iso(expires_at(request)),
    }


def review_items(requests: list[ClearanceRequest]) -> list[dict[str, Any]]:
    approvals = approvals_of([r.request_id for r in requests])
    return [review_item(r, approvals[r.request_id]) for r in requests]


def approvals_remaining(request: ClearanceRequest, approvals: list[ReviewVote]) -> int:
    if request.status != PENDING_REVIEW:
        return 0
    return max(0, (request.required_approvals or 1) - len(approvals))


def decision_view(request: ClearanceRequest) -> dict[str, Any]:
    """The answer to a decision: the clearance response plus who decided and why, and how many
    approvals are still missing (CONTRACT §8)."""
    approvals = approvals_of([request.request_id])[request.request_id]
    return {
        **clearance.response_view(request),
        "reviewer_email": request.reviewer_email or "",
        "review_reason": request.review_reason or "",
        "approvals": [approval_view(v) for v in approvals],
        "approvals_remaining": approvals_remaining(request, approvals),
    }


def ledger_record(request: ClearanceRequest) -> dict[str, Any]:
    """What the terminal ``review_decision`` event adds: the quorum, every approver with time
    and reason, the decision's channel, and who cancelled when a denial named no reviewer."""
    votes = list(
        db.session.scalars(
            select(ReviewVote)
            .where(ReviewVote.request_id == request.request_id)
            .order_by(ReviewVote.created_at, ReviewVote.id)
        )
    )
    record: dict[str, Any] = {
        "required_approvals": request.required_approvals or 1,
        "approvals": [
            {**approval_view(v), "channel": v.channel, "verified": v.verified}
            for v in votes
            if v.approved
        ],
        "channel": request.decision_channel or "",
    }
    cancellation = next((v for v in votes if not v.approved and not v.voter), None)
    if cancellation is not None:
        record["cancelled_by"] = cancellation.channel
    return record


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
    vote: Vote,
    *,
    idempotency_key: str | None = None,
) -> tuple[dict[str, Any], int]:
    """Cast a vote through the API; returns (decision view, 200). 409 when the request is no
    longer pending or the reviewer already voted, 403 when the reviewer is the requester, 400
    when a quorum needs a known reviewer and the address names none."""
    # The same request id 404s for another tenant before any idempotency record is written.
    clearance.get_request(client_id, request_id)

    def work() -> tuple[dict[str, Any], int]:
        return decision_view(cast_vote(client_id, request_id, vote)), 200

    body = {
        "request_id": request_id,
        "approved": vote.approved,
        "review_reason": vote.review_reason,
        "reviewer_email": vote.reviewer_email,
    }
    return idempotency.once(client_id, "review-decision", idempotency_key, body, work)


def cast_vote(client_id: str, request_id: str, vote: Vote) -> ClearanceRequest:
    """Record one vote and, when it decides the request, make the terminal transition; commits.

    Fails closed: every refusal rolls back and leaves the request as it was.
    """
    request = clearance.get_request(client_id, request_id)
    try:
        _lock_pending(request)
        email = vote.reviewer_email.strip()
        voter = email.lower()
        _refuse_self_review(request, voter)
        required = request.required_approvals or 1
        if required > 1 and voter:
            email = _reviewer_user(client_id, voter, required).email
        elif required > 1 and vote.approved:
            raise InvalidInput(
                f"reviewer_email is required: this request needs {required} approvals",
                errors=[
                    {
                        "field": "reviewer_email",
                        "message": f"is required when {required} approvals are needed",
                    }
                ],
            )
        reason = vote.review_reason.strip()
        if not vote.approved and not voter and not reason:
            reason = f"cancelled by {vote.channel}"
        already = db.session.scalar(
            select(ReviewVote.id).where(
                ReviewVote.request_id == request_id, ReviewVote.voter == voter
            )
        )
        if already is not None:
            raise Conflict(f"{email or 'this caller'} has already voted on this request")
        db.session.add(
            ReviewVote(
                client_id=client_id,
                request_id=request_id,
                voter=voter,
                reviewer_email=email,
                approved=vote.approved,
                review_reason=reason,
                channel=vote.channel[:240],
                verified=vote.verified,
            )
        )
        db.session.flush()
        if vote.approved:
            approvals = db.session.scalar(
                select(db.func.count(ReviewVote.id)).where(
                    ReviewVote.request_id == request_id, ReviewVote.approved.is_(True)
                )
            )
            if approvals < required:
                db.session.commit()
                return request
        request.decision_channel = vote.channel[:240]
        db.session.flush()
    except IntegrityError:
        db.session.rollback()
        raise Conflict("this reviewer has already voted on this request") from None
    except Exception:
        db.session.rollback()
        raise
    try:
        return clearance.decide_review(
            client_id,
            request_id,
            approved=vote.approved,
            reviewer_email=email,
            review_reason=reason,
            reviewer_verified=vote.verified,
        )
    except Exception:
        db.session.rollback()
        raise


def _lock_pending(request: ClearanceRequest) -> None:
    """Take the request's row lock with a guarded no-op UPDATE (the first write of the
    transaction, so SQLite's single write lock is taken here too); 409 unless pending."""
    locked = db.session.execute(
        update(ClearanceRequest)
        .where(
            ClearanceRequest.request_id == request.request_id,
            ClearanceRequest.status == PENDING_REVIEW,
        )
        .values(updated_at=ClearanceRequest.updated_at)
        .execution_options(synchronize_session=False)
    ).rowcount
    db.session.refresh(request)
    if not locked:
        raise Conflict(f"request is no longer pending review (it is {request.status})")


def _refuse_self_review(request: ClearanceRequest, voter: str) -> None:
    """Separation of duties: nobody decides a request made by them or on their behalf."""
    if not voter:
        return
    own = {request.agent_id.strip().lower()}
    principal = (request.action_metadata or {}).get("human_principal")
    if isinstance(principal, str) and principal.strip():
        own.add(principal.strip().lower())
    if voter in own:
        raise Forbidden("a reviewer cannot decide a request made by them or on their behalf")


def _reviewer_user(client_id: str, voter: str, required: int) -> User:
    """Under a quorum a vote counts only from an active user of the tenant who may review."""
    user = db.session.scalar(User.for_tenant(client_id).where(db.func.lower(User.email) == voter))
    if user is None or not user.is_active or user.role not in REVIEWER_ROLES:
        raise InvalidInput(
            "reviewer_email must name an active reviewer or owner of this tenant "
            f"when {required} approvals are needed",
            errors=[
                {
                    "field": "reviewer_email",
                    "message": "must name an active reviewer or owner of this tenant",
                }
            ],
        )
    return user
