"""The review queue: a self-updating list, the detail of one request, approve or deny."""

from __future__ import annotations

from flask import Blueprint, flash, make_response, redirect, render_template, request, url_for
from flask_login import current_user

from webapp.dashboard import queries
from webapp.dashboard.forms import BulkDecisionForm, ReviewDecisionForm
from webapp.dashboard.htmx import is_fragment_request, page_or_fragment
from webapp.dashboard.present import highlight
from webapp.dashboard.roles import allowed_to
from webapp.errors import Conflict, Forbidden, InvalidInput, NotFound
from webapp.models import PENDING_REVIEW
from webapp.services import clearance, paging, policies, review_links, reviews, stored

review_pages = Blueprint("reviews", __name__, url_prefix="/reviews")
# "Needs 3 approvals (set by rule …)": the rule that raised a request's quorum, or "".
review_pages.add_app_template_filter(reviews.quorum_rule, "quorum_rule")

QUEUE_FILTERS = (
    ("pending_review", "Waiting"),
    ("approved", "Approved"),
    ("denied", "Denied"),
    ("expired", "Expired"),
    ("all", "All"),
)
QUEUE_PAGE = 50


SORTS = (("oldest", "Oldest first"), ("newest", "Newest first"))
FILTER_FIELDS = (
    "request_id",
    "agent_id",
    "tool_name",
    "policy_id",
    "min_amount",
    "max_amount",
    "min_age_minutes",
    "max_age_minutes",
)


@review_pages.get("")
@allowed_to("read")
def queue():
    """The queue; HTMX polls the same URL (with the same filters) for the list alone, so
    decided items leave it. Bad filter values re-render the page with the message (400)."""
    client_id = current_user.client_id
    problems: list[str] = []
    status = request.args.get("status", "pending_review")
    if status not in dict(QUEUE_FILTERS):
        problems.append("Status: choose one of the tabs.")
        status = "pending_review"
    # The waiting queue reads oldest first (closest to expiry); decided tabs newest first.
    default_sort = "oldest" if status == "pending_review" else "newest"
    sort = request.args.get("sort") or default_sort
    if sort not in dict(SORTS):
        problems.append("Order: choose oldest or newest first.")
        sort = default_sort
    items, following = [], None
    try:
        filters = reviews.parse_queue_filter(request.args)
    except InvalidInput as error:
        problems += [f"{_label(e['field'])}: {e['message']}." for e in error.errors]
        filters = None
    newest_first = sort == "newest"
    after = _queue_cursor(request.args.get("after", ""), status, newest_first)
    if after is None:
        problems.append("Page: that page of the queue does not exist; start from the first.")
    matching = shown_before = 0
    if not problems:
        items, following = reviews.list_reviews(
            client_id,
            status=status,
            limit=QUEUE_PAGE,
            cursor=after or None,
            filters=filters,
            newest_first=newest_first,
        )
        matching = reviews.count_reviews(
            client_id, status=status, filters=filters, newest_first=newest_first
        )
        if after:
            shown_before = reviews.count_reviews(
                client_id,
                status=status,
                filters=filters,
                before=after,
                newest_first=newest_first,
            )
    wanted = {name: request.args.get(name, "") for name in FILTER_FIELDS}
    kept = {k: v for k, v in wanted.items() if v}

    def page_url(cursor: dict | None) -> str:
        position = {"after": f"{cursor['t']}|{cursor['id']}"} if cursor else {}
        return url_for(".queue", status=status, sort=sort, **kept, **position)

    return page_or_fragment(
        "reviews/queue.html",
        "reviews/_queue.html",
        status=400 if problems else 200,
        items=items,
        approvals=reviews.approvals_of([i.request_id for i in items]),
        more=following is not None,
        shown=status,
        sort=sort,
        sorts=SORTS,
        filters=QUEUE_FILTERS,
        wanted=wanted,
        filtered=bool(filters and filters.active),
        problems=problems,
        # The poll keeps the page it is on: the same filters, order and starting point.
        poll_url=page_url(after or None),
        first_url=page_url(None) if after else None,
        next_url=page_url(following) if following else None,
        matching=matching,
        shown_from=shown_before + 1,
        pending_total=reviews.count_pending(client_id),
        expires=reviews.expires_at,
        bulk_form=BulkDecisionForm(formdata=None),
        max_bulk=reviews.MAX_BULK,
    )


def _queue_cursor(raw: str, status: str, newest_first: bool) -> dict | None:
    """``after`` of the queue ("<timestamp>|<request id>", the last row of the page before):
    {} when absent, None when malformed (the page then says so)."""
    if not raw:
        return {}
    at, _, last = raw.partition("|")
    if not last or len(raw) > 200:
        return None
    position = {"s": status, "t": at, "id": last, "o": not newest_first}
    try:
        paging.parse_position(position)
    except InvalidInput:
        return None
    return position


@review_pages.get("/count")
@allowed_to("read")
def pending_count():
    """The header's live count of waiting requests (polled, and refreshed after a decision)."""
    return render_template(
        "reviews/_count.html", pending_total=reviews.count_pending(current_user.client_id)
    )


@review_pages.post("/bulk")
@allowed_to("review")
def bulk():
    """Approve or deny many: first a confirmation listing exactly what will be decided, then,
    once confirmed, one vote per request through the same quorum and separation-of-duties
    rules as a single decision."""
    client_id = current_user.client_id
    form = BulkDecisionForm()
    ids = request.form.getlist("ids")
    problems: list[str] = []
    if not form.validate_on_submit():
        problems += [f"{_label(name)}: {'; '.join(errs)}." for name, errs in form.errors.items()]
    try:
        ids = reviews.check_bulk_ids(ids)
    except InvalidInput as error:
        problems.append(_sentence(error.detail))
        ids = ids[: reviews.MAX_BULK]
    found = reviews.requests_for(client_id, ids) if ids else {}
    if problems or form.confirmed.data != "yes":
        return render_template(
            "reviews/bulk_confirm.html",
            form=form,
            ids=ids,
            found=found,
            problems=problems,
            approving=form.decision.data == "approve",
            amount_of=_amount_of,
        ), (400 if problems else 200)
    vote = _my_vote(form.decision.data == "approve", form.reason.data)
    outcomes = reviews.bulk_vote(client_id, ids, vote)
    response = make_response(
        render_template(
            "reviews/bulk_done.html",
            outcomes=outcomes,
            approving=vote.approved,
            counts={
                result: sum(1 for o in outcomes if o.result == result)
                for result in ("decided", "recorded", "refused")
            },
        )
    )
    response.headers["HX-Trigger"] = "review-decided"
    return response


def _amount_of(item) -> str:  # noqa: ANN001
    amount = (item.tool_args or {}).get("amount") if isinstance(item.tool_args, dict) else None
    if isinstance(amount, (int, float)) and not isinstance(amount, bool):
        currency = item.tool_args.get("currency")
        return f"{amount:,} {currency}" if isinstance(currency, str) else f"{amount:,}"
    return ""


_LABELS = {
    "request_id": "Request id",
    "agent_id": "Agent",
    "tool_name": "Tool",
    "policy_id": "Policy",
    "min_amount": "Amount from",
    "max_amount": "Amount to",
    "min_age_minutes": "Waiting at least",
    "max_age_minutes": "Waiting at most",
    "created_after": "Created after",
    "created_before": "Created before",
    "decision": "Decision",
    "reason": "Reason",
    "csrf_token": "Form",
    "ids": "Selection",
}


def _label(field: str) -> str:
    return _LABELS.get(field, field)


@review_pages.get("/link/<token>")
@allowed_to("read")
def open_link(token: str):
    """A signed link from a notification: after sign-in (the decorator sends the person there
    and back), lead to the review page of the tenant's request. A GET decides nothing."""
    request_id = review_links.open_link(token, current_user.client_id)
    return redirect(url_for(".detail", request_id=request_id))


@review_pages.get("/<request_id>")
@allowed_to("read")
def detail(request_id: str):
    return _detail_page(request_id, ReviewDecisionForm(formdata=None))


@review_pages.post("/<request_id>/decision")
@allowed_to("review")
def decide(request_id: str):
    client_id = current_user.client_id
    form = ReviewDecisionForm()
    if not form.validate_on_submit():
        return _decision_panel_or_page(request_id, form, 422)
    approved = form.decision.data == "approve"
    try:
        decided = reviews.cast_vote(client_id, request_id, _my_vote(approved, form.reason.data))
    except Conflict:
        return _lost_race(request_id)
    except (Forbidden, InvalidInput) as refused:
        form.form_errors.append(_sentence(refused.detail))
        return _decision_panel_or_page(request_id, form, refused.status)
    return _after_vote(decided, approved)


def _my_vote(approved: bool, reason: str | None) -> reviews.Vote:
    """The signed-in user's vote: their own address, verified, through the dashboard."""
    return reviews.Vote(
        approved=approved,
        review_reason=(reason or "").strip(),
        reviewer_email=current_user.email,
        channel=f"dashboard {current_user.email}",
        verified=True,
    )


def _after_vote(decided, approved: bool):  # noqa: ANN001
    if decided.status == PENDING_REVIEW:
        remaining = reviews.approvals_remaining(
            decided, reviews.approvals_of([decided.request_id])[decided.request_id]
        )
        message = (
            f"Your approval is recorded; {remaining} more "
            f"{'approval is' if remaining == 1 else 'approvals are'} needed."
        )
    else:
        message = (
            f"{'Approved' if approved else 'Denied'} {decided.tool_name} for {decided.agent_id}."
        )
    if is_fragment_request():
        response = page_or_fragment(
            "reviews/detail.html",
            "reviews/_decided.html",
            item=decided,
            approvals=reviews.approvals_of([decided.request_id])[decided.request_id],
            message=message,
            lost=False,
            oob_badge=True,
        )
        # The queue and the header badge listen for this and refresh at once.
        response.headers["HX-Trigger"] = "review-decided"
        return response
    flash(message, "success")
    if decided.status == PENDING_REVIEW:
        return redirect(url_for(".detail", request_id=decided.request_id))
    return redirect(url_for(".queue"))


def _detail_page(request_id: str, form: ReviewDecisionForm, status: int = 200):
    client_id = current_user.client_id
    item = clearance.get_request(client_id, request_id)
    approvals = reviews.approvals_of([item.request_id])[item.request_id]
    return render_template(
        "reviews/detail.html",
        item=item,
        view=clearance.response_view(item),
        form=form,
        policy_text=_cited_policy_text(client_id, item),
        history=_agent_history(client_id, item),
        pending=item.status == PENDING_REVIEW,
        approvals=approvals,
        voted=any(v.voter == current_user.email.lower() for v in approvals),
        own_request=_own_request(item),
        judge_reason=reviews.judge_reason(item),
        expires_at=reviews.expires_at(item),
    ), status


def _own_request(item) -> bool:  # noqa: ANN001
    """Separation of duties: the signed-in user made the request or it is on their behalf.

    Context that cannot be decoded cannot clear the user, so it counts as theirs (fail closed)."""
    unreadable = object()
    context = stored.readable(item, "action_metadata", {}, unreadable=unreadable)
    if context is unreadable:
        return True
    principal = context.get("human_principal") if isinstance(context, dict) else None
    mine = current_user.email.lower()
    return item.agent_id.strip().lower() == mine or (
        isinstance(principal, str) and principal.strip().lower() == mine
    )


def _decision_panel_or_page(request_id: str, form: ReviewDecisionForm, status: int):
    if is_fragment_request():
        item = clearance.get_request(current_user.client_id, request_id)
        approvals = reviews.approvals_of([item.request_id])[item.request_id]
        return render_template(
            "reviews/_decision.html",
            item=item,
            form=form,
            approvals=approvals,
            voted=any(v.voter == current_user.email.lower() for v in approvals),
            own_request=_own_request(item),
        ), status
    return _detail_page(request_id, form, status)


def _lost_race(request_id: str):
    """Someone else decided first, or this user already voted: say so and show where it is."""
    item = clearance.get_request(current_user.client_id, request_id)
    if item.status == PENDING_REVIEW:
        message = "You have already approved this request; it waits for other reviewers."
    else:
        who = item.reviewer_email or "the system"
        message = (
            f"Already {item.status.replace('_', ' ')} by {who}; your decision was not applied."
        )
    if is_fragment_request():
        response = page_or_fragment(
            "reviews/detail.html",
            "reviews/_decided.html",
            status=409,
            item=item,
            approvals=reviews.approvals_of([item.request_id])[item.request_id],
            message=message,
            lost=True,
            oob_badge=True,
        )
        response.headers["HX-Trigger"] = "review-decided"
        return response
    flash(message, "info")
    return redirect(url_for(".detail", request_id=request_id))


def _sentence(detail: str) -> str:
    return detail[:1].upper() + detail[1:] + "."


def _cited_policy_text(client_id: str, item) -> list[list[tuple[str, bool]]]:  # noqa: ANN001
    """The rules of the version the judge used, each split into cited and uncited pieces."""
    if not item.policy_id:
        return []
    try:
        _, versions = policies.get_policy(client_id, item.policy_id)
    except NotFound:
        return []
    version = next((v for v in versions if v.policy_version_id == item.policy_version_id), None)
    if version is None:
        return []
    quotes = [c.get("text", "") for c in item.citations or []]
    return [highlight(rule, quotes) for rule in version.rules]


def _agent_history(client_id: str, item) -> list:  # noqa: ANN001
    return queries.agent_history(client_id, item.agent_id, exclude=item.request_id)
