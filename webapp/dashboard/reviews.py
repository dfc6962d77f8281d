"""The review queue: a self-updating list, the detail of one request, approve or deny."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import current_user

from webapp.dashboard import queries
from webapp.dashboard.forms import ReviewDecisionForm
from webapp.dashboard.htmx import is_fragment_request, page_or_fragment
from webapp.dashboard.present import highlight
from webapp.dashboard.roles import allowed_to
from webapp.errors import Conflict, Forbidden, InvalidInput, NotFound
from webapp.models import PENDING_REVIEW
from webapp.services import clearance, policies, reviews

review_pages = Blueprint("reviews", __name__, url_prefix="/reviews")

QUEUE_FILTERS = (
    ("pending_review", "Waiting"),
    ("approved", "Approved"),
    ("denied", "Denied"),
    ("expired", "Expired"),
    ("all", "All"),
)
QUEUE_PAGE = 50


@review_pages.get("")
@allowed_to("read")
def queue():
    """The queue; HTMX polls the same URL for the list alone, so decided items leave it."""
    status = request.args.get("status", "pending_review")
    if status not in dict(QUEUE_FILTERS):
        status = "pending_review"
    items, following = reviews.list_reviews(
        current_user.client_id, status=status, limit=QUEUE_PAGE, cursor=None
    )
    return page_or_fragment(
        "reviews/queue.html",
        "reviews/_queue.html",
        items=items,
        more=following is not None,
        shown=status,
        filters=QUEUE_FILTERS,
    )


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
    """Separation of duties: the signed-in user made the request or it is on their behalf."""
    principal = (item.action_metadata or {}).get("human_principal")
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
