"""The review queue (CONTRACT §8) and reviewer decisions, through the clearance state machine.

A review is a request that entered ``pending_review`` (it has ``review_started_at``). The
queue filters partition them: ``pending_review``; ``approved`` (by a reviewer); ``denied`` (by
a reviewer); ``expired`` (denied with ``review_expired`` because nobody decided in time);
``all``. The pending queue lists the oldest first (closest to expiry); the others the newest.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, null, or_, select, update
from sqlalchemy.exc import IntegrityError

from webapp.errors import Conflict, DomainError, Forbidden, InvalidInput
from webapp.extensions import db
from webapp.models import (
    APPROVED,
    DENIED,
    PENDING_REVIEW,
    ClearanceRequest,
    IdempotencyRecord,
    ReviewVote,
    User,
    iso,
    utcnow,
)
from webapp.runtime import vault
from webapp.services import clearance, idempotency, stored
from webapp.services.canonical import body_fingerprint
from webapp.services.paging import parse_position

# Dashboard roles whose users may review (the dashboard's "review" ability).
REVIEWER_ROLES = ("owner", "reviewer")

STATUS_FILTERS = ("pending_review", "approved", "denied", "expired", "all")
MAX_REASON_CHARS = 2000


@dataclass(frozen=True)
class QueueFilter:
    """Narrowing of the queue (CONTRACT §8 extra filters, and the dashboard's): every field
    optional; text fields match exactly except ``request_id``, a prefix."""

    agent_id: str = ""
    tool_name: str = ""
    policy_id: str = ""
    request_id: str = ""
    created_after: datetime | None = None
    created_before: datetime | None = None
    min_amount: float | None = None
    max_amount: float | None = None
    min_age_minutes: int | None = None
    max_age_minutes: int | None = None

    @property
    def active(self) -> bool:
        return self != QueueFilter()


# Query parameter -> QueueFilter field, with how each is read.
_TEXT_FILTERS = ("agent_id", "tool_name", "policy_id", "request_id")
_TIME_FILTERS = ("created_after", "created_before")
_AMOUNT_FILTERS = ("min_amount", "max_amount")
_AGE_FILTERS = ("min_age_minutes", "max_age_minutes")
MAX_AMOUNT = 1e15
MAX_AGE_MINUTES = 60 * 24 * 366


def parse_queue_filter(args: Mapping[str, str]) -> QueueFilter:
    """Read filters from query parameters; 400 naming every bad one (never a 500)."""
    values: dict[str, Any] = {}
    errors: list[dict[str, str]] = []
    for name in _TEXT_FILTERS:
        raw = (args.get(name) or "").strip()
        if len(raw) > 256 or "\x00" in raw:
            errors.append({"field": name, "message": "must be at most 256 characters, no NUL"})
        elif raw:
            values[name] = raw
    for name in _TIME_FILTERS:
        raw = (args.get(name) or "").strip()
        if raw:
            try:
                at = datetime.fromisoformat(raw.replace("Z", "+00:00").replace("z", "+00:00"))
            except ValueError:
                errors.append({"field": name, "message": "must be an RFC 3339 timestamp"})
                continue
            values[name] = at if at.tzinfo else at.replace(tzinfo=UTC)
    for name in _AMOUNT_FILTERS:
        raw = (args.get(name) or "").strip()
        if raw:
            try:
                amount = float(raw)
            except ValueError:
                amount = math.nan
            if not math.isfinite(amount) or abs(amount) > MAX_AMOUNT:
                errors.append({"field": name, "message": "must be a number"})
                continue
            values[name] = amount
    for name in _AGE_FILTERS:
        raw = (args.get(name) or "").strip()
        if raw:
            if not (raw.isascii() and raw.isdigit()) or int(raw) > MAX_AGE_MINUTES:
                errors.append(
                    {"field": name, "message": "must be a whole number of minutes (0 or more)"}
                )
                continue
            values[name] = int(raw)
    low, high = values.get("min_amount"), values.get("max_amount")
    if low is not None and high is not None and low > high:
        errors.append({"field": "max_amount", "message": "must not be below min_amount"})
    young, old = values.get("min_age_minutes"), values.get("max_age_minutes")
    if young is not None and old is not None and young > old:
        errors.append({"field": "max_age_minutes", "message": "must not be below min_age_minutes"})
    if errors:
        raise InvalidInput(f"{errors[0]['field']} {errors[0]['message']}", errors=errors)
    return QueueFilter(**values)


def list_reviews(
    client_id: str,
    *,
    status: str,
    limit: int,
    cursor: dict[str, Any] | None,
    filters: QueueFilter | None = None,
    newest_first: bool | None = None,
) -> tuple[list[ClearanceRequest], dict[str, Any] | None]:
    """One page of the queue; returns (requests, next cursor position or None).

    The pending queue lists the oldest first unless ``newest_first``; the others the newest.
    """
    query = _queue_query(client_id, status, filters)
    oldest_first = _oldest_first(status, newest_first)
    if cursor is not None:
        query = query.where(_beyond(cursor, status, oldest_first))
    started = ClearanceRequest.review_started_at
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
        if newest_first is not None:
            following["o"] = oldest_first
    return rows, following


def count_reviews(
    client_id: str,
    *,
    status: str,
    filters: QueueFilter | None = None,
    before: dict[str, Any] | None = None,
    newest_first: bool | None = None,
) -> int:
    """How many reviews the same status and filters match; with ``before`` (a cursor of
    ``list_reviews``), only those listed before it, so a page can say where it starts."""
    query = _queue_query(client_id, status, filters)
    if before is not None:
        query = query.where(~_beyond(before, status, _oldest_first(status, newest_first)))
    return db.session.scalar(select(db.func.count()).select_from(query.subquery())) or 0


def _queue_query(client_id: str, status: str, filters: QueueFilter | None) -> Any:
    if status not in STATUS_FILTERS:
        raise InvalidInput(
            f"status must be one of {', '.join(STATUS_FILTERS)}",
            errors=[{"field": "status", "message": f"must be one of {', '.join(STATUS_FILTERS)}"}],
        )
    query = (
        ClearanceRequest.for_tenant(client_id)
        .where(ClearanceRequest.review_started_at.is_not(None))
        .options(*stored.deferred_content())  # decoded per item: one bad row is not a 500
    )
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
    if filters is not None:
        query = _narrow(query, filters)
    return query


def _oldest_first(status: str, newest_first: bool | None) -> bool:
    return status == "pending_review" if newest_first is None else not newest_first


def _beyond(cursor: dict[str, Any], status: str, oldest_first: bool) -> Any:
    """The rows after the cursor's position in the queue's order; 400 for another filter's."""
    if cursor.get("s") != status or bool(cursor.get("o", oldest_first)) != oldest_first:
        raise InvalidInput(
            "cursor belongs to another status filter",
            errors=[{"field": "cursor", "message": "belongs to another status filter"}],
        )
    at, last = parse_position(cursor)
    started, key = ClearanceRequest.review_started_at, ClearanceRequest.request_id
    if oldest_first:
        return or_(started > at, and_(started == at, key > last))
    return or_(started < at, and_(started == at, key < last))


def count_pending(client_id: str) -> int:
    """How many requests wait for review now (the dashboard's live count)."""
    return db.session.scalar(
        select(db.func.count())
        .select_from(ClearanceRequest)
        .where(
            ClearanceRequest.client_id == client_id,
            ClearanceRequest.status == PENDING_REVIEW,
        )
    )


def _narrow(query: Any, filters: QueueFilter) -> Any:
    request = ClearanceRequest
    if filters.agent_id:
        query = query.where(request.agent_id == filters.agent_id)
    if filters.tool_name:
        query = query.where(request.tool_name == filters.tool_name)
    if filters.policy_id:
        query = query.where(request.policy_id == filters.policy_id)
    if filters.request_id:
        query = query.where(request.request_id.startswith(filters.request_id, autoescape=True))
    if filters.created_after is not None:
        query = query.where(request.created_at >= filters.created_after)
    if filters.created_before is not None:
        query = query.where(request.created_at < filters.created_before)
    if filters.min_amount is not None or filters.max_amount is not None:
        amount = _numeric_amount()
        if filters.min_amount is not None:
            query = query.where(amount >= filters.min_amount)
        if filters.max_amount is not None:
            query = query.where(amount <= filters.max_amount)
    now = utcnow()
    if filters.min_age_minutes is not None:
        query = query.where(
            request.review_started_at <= now - timedelta(minutes=filters.min_age_minutes)
        )
    if filters.max_age_minutes is not None:
        query = query.where(
            request.review_started_at >= now - timedelta(minutes=filters.max_age_minutes)
        )
    return query


def _numeric_amount() -> Any:
    """``tool_args.amount`` as a number, or NULL when it is absent or not a JSON number (so a
    text amount never breaks the query: PostgreSQL would refuse to cast it)."""
    args = ClearanceRequest.tool_args
    if db.session.get_bind().dialect.name == "postgresql":
        return case(
            (
                db.func.json_typeof(args["amount"]) == "number",
                args["amount"].as_float(),
            ),
            else_=null(),
        )
    return case(
        (
            db.func.json_type(args, "$.amount").in_(("integer", "real")),
            db.func.json_extract(args, "$.amount"),
        ),
        else_=null(),
    )


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
    """A queue item: the fields of CONTRACT §8, plus ``required_approvals_rule`` and
    ``decision_channel`` (documented extensions)."""
    if approvals is None:
        approvals = approvals_of([request.request_id])[request.request_id]
    return {
        "request_id": request.request_id,
        "status": request.status,
        "tool_name": request.tool_name,
        "tool_args": stored.readable(request, "tool_args", {}),
        "agent_id": request.agent_id,
        "session_id": request.session_id or "",
        "policy_id": request.policy_id or "",
        "confidence": request.confidence,
        "confidence_bucket": clearance.confidence_bucket(request.confidence),
        "reason": request.reason or "",
        "reason_code": request.reason_code or "",
        "citations": stored.readable(request, "citations", []),
        "created_at": iso(request.created_at),
        "decided_at": iso(request.decided_at),
        "reviewer_email": request.reviewer_email or "",
        "review_reason": request.review_reason or "",
        "judge_reason": judge_reason(request),
        "required_approvals": request.required_approvals or 1,
        "approvals": [approval_view(v) for v in approvals],
        "expires_at": iso(expires_at(request)),
        # Extensions (docs/api.md): which rule raised the quorum ("" when the tenant's review
        # settings set it), and how the terminal decision arrived ("" while undecided).
        "required_approvals_rule": quorum_rule(request),
        "decision_channel": request.decision_channel or "",
    }


def quorum_rule(request: ClearanceRequest) -> str:
    """The rule that set the request's quorum, or "" when the tenant's review settings did.

    The judge raises the quorum with ``details.required_approvals`` on its verdict (see
    ``settings.required_approvals_for``) and names the rule in ``details.required_approvals_rule``
    (its text, or an object with ``text``); without a name, the verdict's first citation, then
    its policy, stand for it.
    """
    required = request.required_approvals or 1
    verdict = request.judge_verdict or {}
    details = verdict.get("details") if isinstance(verdict, dict) else None
    if required <= 1 or not isinstance(details, dict):
        return ""
    by_rule = details.get("required_approvals")
    if isinstance(by_rule, bool) or not isinstance(by_rule, int) or min(by_rule, 5) != required:
        return ""
    named = details.get("required_approvals_rule")
    if isinstance(named, dict):
        named = named.get("text")
    if isinstance(named, str) and named.strip():
        return named.strip()[:500]
    for citation in request.citations or []:
        text = citation.get("text") if isinstance(citation, dict) else None
        if isinstance(text, str) and text.strip():
            return text.strip()[:500]
    return f"a rule of policy {request.policy_id}" if request.policy_id else "a policy rule"


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
        "required_approvals": request.required_approvals or 1,
        "required_approvals_rule": quorum_rule(request),
        "decision_channel": request.decision_channel or "",
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


def decide(
    client_id: str,
    request_id: str,
    vote: Vote,
    *,
    idempotency_key: str | None = None,
) -> tuple[dict[str, Any], int]:
    """Cast a vote through the API; returns (decision view, 200). 409 when the request is no
    longer pending or the reviewer already voted, 403 when the reviewer is the requester, 400
    when a quorum needs a known reviewer and the address names none. The vote commits with its
    Idempotency-Key; a replay answers the first answer."""
    # The same request id 404s for another tenant before any idempotency record is written.
    clearance.get_request(client_id, request_id)

    def work() -> tuple[str, tuple[dict[str, Any], int, ClearanceRequest | None]]:
        request, decided = _stage_vote(client_id, request_id, vote)
        return request_id, (decision_view(request), 200, request if decided else None)

    fingerprint = body_fingerprint(
        {
            "request_id": request_id,
            "approved": vote.approved,
            "review_reason": vote.review_reason,
            "reviewer_email": vote.reviewer_email,
        }
    )
    answer, status, decided = idempotency.in_transaction(
        client_id,
        "review-decision",
        idempotency_key,
        fingerprint,
        work,
        lambda record: (*_replayed(client_id, request_id, record), None),
        keep=lambda result: (result[0], result[1]),
    )
    if decided is not None:
        clearance.after_transition(decided)
    return answer, status


def _replayed(
    client_id: str, request_id: str, record: IdempotencyRecord
) -> tuple[dict[str, Any], int]:
    """The first answer, as kept. A field that answer did not have yet (it was kept by an older
    version, before quorums) is filled from the request as it is now, so that the replay still
    has every field the reply promises."""
    answer, status = idempotency.replay_stored(record)
    view = decision_view(clearance.get_request(client_id, request_id))
    return {**view, **answer}, status


def cast_vote(client_id: str, request_id: str, vote: Vote) -> ClearanceRequest:
    """Record one vote and, when it decides the request, make the terminal transition; commits.

    Fails closed: every refusal rolls back and leaves the request as it was.
    """
    request, decided = _stage_vote(client_id, request_id, vote)
    db.session.commit()
    if decided:
        clearance.after_transition(request)
    return request


def _stage_vote(client_id: str, request_id: str, vote: Vote) -> tuple[ClearanceRequest, bool]:
    """``cast_vote`` without its commit: (the request, whether this vote decided it)."""
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
                return request, False
        request.decision_channel = vote.channel[:240]
        db.session.flush()
    except IntegrityError:
        db.session.rollback()
        raise Conflict("this reviewer has already voted on this request") from None
    except Exception:
        db.session.rollback()
        raise
    try:
        decided = clearance.stage_review_decision(
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
    return decided, True


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


# --- bulk decisions ----------------------------------------------------------------------------

MAX_BULK = 200


@dataclass(frozen=True)
class BulkOutcome:
    """What one item of a bulk decision came to: ``decided`` (now approved or denied),
    ``recorded`` (an approval counted; more are needed), or ``refused`` with the reason."""

    request_id: str
    result: str
    detail: str
    request: ClearanceRequest | None = None


def check_bulk_ids(request_ids: list[str]) -> list[str]:
    """The distinct ids of a bulk decision, in order; 400 when none, or more than 200."""
    wanted = list(dict.fromkeys(i.strip() for i in request_ids if i and i.strip()))
    if not wanted:
        raise InvalidInput(
            "select at least one request",
            errors=[{"field": "ids", "message": "select at least one request"}],
        )
    if len(wanted) > MAX_BULK:
        raise InvalidInput(
            f"a bulk decision takes at most {MAX_BULK} requests ({len(wanted)} selected)",
            errors=[{"field": "ids", "message": f"at most {MAX_BULK} requests"}],
        )
    if any(len(i) > 64 for i in wanted):
        raise InvalidInput(
            "a request id is too long", errors=[{"field": "ids", "message": "not a request id"}]
        )
    return wanted


def requests_for(client_id: str, request_ids: list[str]) -> dict[str, ClearanceRequest]:
    """The tenant's requests among ``request_ids`` (another tenant's are simply absent)."""
    rows = db.session.scalars(
        ClearanceRequest.for_tenant(client_id).where(ClearanceRequest.request_id.in_(request_ids))
    )
    return {row.request_id: row for row in rows}


def bulk_vote(client_id: str, request_ids: list[str], vote: Vote) -> list[BulkOutcome]:
    """Cast the same vote on each request, one transaction each, through the same rules as a
    single vote (quorum, separation of duties, a lost race): nothing is decided around them."""
    outcomes = []
    for request_id in check_bulk_ids(request_ids):
        try:
            request = cast_vote(client_id, request_id, vote)
        except DomainError as refused:
            db.session.rollback()
            outcomes.append(BulkOutcome(request_id, "refused", refused.detail))
            continue
        if request.status == PENDING_REVIEW:
            remaining = approvals_remaining(request, approvals_of([request_id])[request_id])
            outcomes.append(
                BulkOutcome(request_id, "recorded", f"{remaining} more needed", request)
            )
        else:
            outcomes.append(BulkOutcome(request_id, "decided", request.status, request))
    return outcomes
