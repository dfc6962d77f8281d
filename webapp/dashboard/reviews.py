"""The review queue: a self-updating list, the detail of one request, approve or deny."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import current_user

from webapp.dashboard import queries
from webapp.dashboard.forms import ReviewDecisionForm
from webapp.dashboard.htmx import is_fragment_request, page_or_fragment
from webapp.dashboard.present import highlight
from webapp.dashboard.roles import allowed_to
from webapp.errors import Conflict, NotFound
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
        decided = clearance.decide_review(
            client_id,
            request_id,
            approved=approved,
            reviewer_email=current_user.email,
            review_reason=(form.reason.data or "").strip(),
            reviewer_verified=True,
        )
    except Conflict:
        return _lost_race(request_id)
    message = f"{'Approved' if approved else 'Denied'} {decided.tool_name} for {decided.agent_id}."
    if is_fragment_request():
        response = page_or_fragment(
            "reviews/detail.html",
            "reviews/_decided.html",
            item=decided,
            message=message,
            lost=False,
        )
        # The queue listens for this and refreshes at once, so the item leaves the list.
        response.headers["HX-Trigger"] = "review-decided"
        return response
    flash(message, "success")
    return redirect(url_for(".queue"))


def _detail_page(request_id: str, form: ReviewDecisionForm, status: int = 200):
    client_id = current_user.client_id
    item = clearance.get_request(client_id, request_id)
    return render_template(
        "reviews/detail.html",
        item=item,
        view=clearance.response_view(item),
        form=form,
        policy_text=_cited_policy_text(client_id, item),
        history=_agent_history(client_id, item),
        pending=item.status == PENDING_REVIEW,
    ), status


def _decision_panel_or_page(request_id: str, form: ReviewDecisionForm, status: int):
    if is_fragment_request():
        item = clearance.get_request(current_user.client_id, request_id)
        return render_template("reviews/_decision.html", item=item, form=form), status
    return _detail_page(request_id, form, status)


def _lost_race(request_id: str):
    """Someone else decided first: say so politely and show what they decided."""
    item = clearance.get_request(current_user.client_id, request_id)
    who = item.reviewer_email or "the system"
    message = f"Already {item.status.replace('_', ' ')} by {who}; your decision was not applied."
    if is_fragment_request():
        response = page_or_fragment(
            "reviews/detail.html",
            "reviews/_decided.html",
            status=409,
            item=item,
            message=message,
            lost=True,
        )
        response.headers["HX-Trigger"] = "review-decided"
        return response
    flash(message, "info")
    return redirect(url_for(".detail", request_id=request_id))


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
