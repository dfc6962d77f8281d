"""Settings: the review threshold, notifications, API keys and (for owners) users."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_user

from webapp.api.parsing import validated
from webapp.api.schemas import NewApiKey, NotificationSettingsUpdate
from webapp.dashboard.forms import (
    ActionForm,
    ApiKeyForm,
    NewUserForm,
    NotificationSettingsForm,
    PasswordChangeForm,
    ReviewSettingsForm,
    UserRoleForm,
    lines,
    show_service_errors,
)
from webapp.dashboard.htmx import page_or_fragment
from webapp.dashboard.present import OPERATING_POINTS
from webapp.dashboard.roles import allowed_to, can
from webapp.errors import Conflict, Forbidden, InvalidInput
from webapp.services import notifications, paging, tenants
from webapp.services import settings as settings_service
from webapp.services import users as accounts  # not `users`: the Users page's view has that name

settings_pages = Blueprint("settings", __name__, url_prefix="/settings")


@settings_pages.get("")
@allowed_to("read")
def index():
    return redirect(url_for(".review"))


@settings_pages.route("/review", methods=["GET", "POST"])
@allowed_to("read")
def review():
    client_id = current_user.client_id
    form = ReviewSettingsForm()
    status = 200
    if request.method == "POST":
        if not can("manage"):
            abort(403)
        if form.validate_on_submit():
            # The form validated every field (WTForms is this page's edge); left empty, the
            # stored count stays.
            change = settings_service.ReviewSettingsChange(
                minimum_confidence_score=float(form.minimum_confidence_score.data),
                judge_failure_mode=form.judge_failure_mode.data,
                required_approvals=form.required_approvals.data,
            )
            settings_service.update_review_settings(client_id, change, actor=current_user.email)
            flash("Review settings saved.", "success")
            return redirect(url_for(".review"))
        else:
            status = 422
    current = settings_service.review_settings(client_id)
    if request.method == "GET":
        form.minimum_confidence_score.data = current["minimum_confidence_score"]
        form.judge_failure_mode.data = current["judge_failure_mode"]
        form.required_approvals.data = current["required_approvals"]
    return render_template(
        "settings/review.html", form=form, current=current, operating_points=OPERATING_POINTS
    ), status


@settings_pages.route("/notifications", methods=["GET", "POST"])
@allowed_to("read")
def notifications_page():
    client_id = current_user.client_id
    form = NotificationSettingsForm()
    status = 200
    if request.method == "POST":
        if not can("manage"):
            abort(403)
        if form.validate_on_submit():
            changes = {
                "email_enabled": bool(form.email_enabled.data),
                "email_recipients": form.email_recipients.data or "",
                "slack_enabled": bool(form.slack_enabled.data),
                "sensitive_args": lines(form.sensitive_args.data),
            }
            # An empty URL field keeps the stored secret; only the checkbox removes it.
            if form.remove_webhook.data:
                changes["slack_webhook_url"] = ""
            elif (form.slack_webhook_url.data or "").strip():
                changes["slack_webhook_url"] = form.slack_webhook_url.data.strip()
            try:
                # The API's model validates the form's fields too: one set of checks.
                change = NotificationSettingsUpdate.model_validate(changes).command()
                notifications.update_notification_settings(
                    client_id, change, actor=current_user.email
                )
            except InvalidInput as error:
                show_service_errors(form, error)
                status = 422
            else:
                flash("Notification settings saved.", "success")
                problem = notifications.email_problem()
                if changes["email_enabled"] and problem:
                    # Saved (an operator may configure SMTP next), but never silently.
                    flash(
                        f"Warning: email is on but {problem}. Ask your operator to set "
                        "SMTP_HOST, then use “Send test”.",
                        "error",
                    )
                return redirect(url_for(".notifications_page"))
        else:
            status = 422
    current = notifications.notification_settings(client_id)
    if request.method == "GET":
        form.email_enabled.data = current["email_enabled"]
        form.email_recipients.data = current["email_recipients"].replace(",", ", ")
        form.slack_enabled.data = current["slack_enabled"]
        form.sensitive_args.data = "\n".join(current["sensitive_args"])
    log_problem = ""
    before = _delivery_cursor(request.args.get("before", ""))
    if before is None:
        log_problem = "That page of the delivery log does not exist; showing the newest."
    # Grouped before paging, so a run of repeated failures is one entry, never split.
    entries, following = notifications.delivery_groups(
        client_id, limit=DELIVERY_PAGE, cursor=before or None
    )
    return render_template(
        "settings/notifications.html",
        form=form,
        current=current,
        entries=entries,
        older_url=url_for(".notifications_page", before=f"{following['t']}|{following['id']}")
        if following
        else None,
        newest_url=url_for(".notifications_page") if before else None,
        log_problem=log_problem,
        email_problem=notifications.email_problem(),
    ), status


DELIVERY_PAGE = 25


def _delivery_cursor(raw: str) -> dict | None:
    """``before`` of the delivery log ("<timestamp>|<delivery id>"): {} when absent, None when
    malformed (the page then says so and starts from the newest)."""
    if not raw:
        return {}
    at, _, last = raw.partition("|")
    position = {"t": at, "id": last}
    try:
        paging.parse_position(position)
    except InvalidInput:
        return None
    if not last or len(raw) > 200:
        return None
    return position


@settings_pages.post("/notifications/test")
@allowed_to("manage")
def send_test_notification():
    if ActionForm().validate_on_submit():
        try:
            sent = notifications.send_test(current_user.client_id)
        except InvalidInput as error:
            flash(f"No test sent: {error.detail}.", "error")
        else:
            channels = ", ".join(sorted({d.channel for d in sent}))
            flash(
                f"A test message is on its way ({channels}); its delivery shows in the log below.",
                "success",
            )
            problem = notifications.email_problem()
            if problem and any(d.channel == "email" for d in sent):
                flash(f"The email test will fail: {problem}.", "error")
    return redirect(url_for(".notifications_page"))


@settings_pages.route("/api-keys", methods=["GET", "POST"])
@allowed_to("read")
def api_keys():
    client_id = current_user.client_id
    form = ApiKeyForm()
    created = raw_key = None
    status = 200
    if request.method == "POST":
        if not can("manage"):
            abort(403)
        if form.validate_on_submit():
            try:
                # The API's model builds the key's label and scopes here too.
                body = {"label": form.label.data or "", "scopes": form.scopes.data or ["agent"]}
                label, scopes = validated(NewApiKey, body).command()
                created, raw_key = tenants.create_api_key(client_id, label, scopes)
            except InvalidInput as error:
                show_service_errors(form, error)
                status = 422
            else:
                form = ApiKeyForm(formdata=None)
        else:
            status = 422
    # The raw key is rendered into this one response and never stored or flashed.
    return page_or_fragment(
        "settings/api_keys.html",
        "settings/_api_keys.html",
        status=status,
        form=form,
        keys=tenants.list_api_keys(client_id),
        created=created,
        raw_key=raw_key,
        revoke_form=ActionForm(),
    )


@settings_pages.post("/api-keys/<key_id>/revoke")
@allowed_to("manage")
def revoke_api_key(key_id: str):
    form = ActionForm()
    if form.validate_on_submit():
        tenants.revoke_api_key(current_user.client_id, key_id)
        flash(f"Key {key_id} is revoked; requests using it are refused from now on.", "success")
    return redirect(url_for(".api_keys"))


@settings_pages.route("/users", methods=["GET", "POST"])
@allowed_to("manage")
def users():
    client_id = current_user.client_id
    form = NewUserForm()
    status = 200
    if request.method == "POST":
        if form.validate_on_submit():
            try:
                user = tenants.create_user(
                    client_id, form.email.data, form.password.data, form.role.data
                )
            except (InvalidInput, Conflict) as error:
                show_service_errors(form, error)
                status = 422
            else:
                flash(f"{user.email} can now sign in as {user.role}.", "success")
                return redirect(url_for(".users"))
        else:
            status = 422
    people = tenants.list_users(client_id)
    role_forms = {}
    for person in people:
        role_form = UserRoleForm(formdata=None, prefix=f"u-{person.user_id}")
        role_form.role.data = person.role
        role_forms[person.user_id] = role_form
    return render_template(
        "settings/users.html",
        form=form,
        people=people,
        role_forms=role_forms,
        action_form=ActionForm(),
    ), status


@settings_pages.post("/users/<user_id>/role")
@allowed_to("manage")
def set_role(user_id: str):
    form = UserRoleForm(prefix=f"u-{user_id}")
    if not form.validate_on_submit():
        flash("Choose owner, reviewer or viewer.", "error")
        return redirect(url_for(".users"))
    try:
        user = tenants.set_user_role(
            current_user.client_id, user_id, form.role.data, acting_user_id=current_user.user_id
        )
    except (Forbidden, Conflict) as refused:
        flash(_sentence(refused.detail), "error")
    else:
        flash(f"{user.email} is now {user.role}.", "success")
    return redirect(url_for(".users"))


@settings_pages.post("/users/<user_id>/disable")
@allowed_to("manage")
def disable_user(user_id: str):
    form = ActionForm()
    if not form.validate_on_submit():
        flash("The form expired; try again.", "error")
        return redirect(url_for(".users"))
    try:
        tenants.disable_user(current_user.client_id, user_id, acting_user_id=current_user.user_id)
    except (Forbidden, Conflict) as refused:
        flash(_sentence(refused.detail), "error")
    else:
        flash("The user is disabled and signed out.", "success")
    return redirect(url_for(".users"))


@settings_pages.route("/password", methods=["GET", "POST"])
@allowed_to("read")
def password():
    """Change your own password; every other session of yours ends, this one continues."""
    form = PasswordChangeForm()
    status = 200
    if request.method == "POST":
        if form.validate_on_submit():
            try:
                user = accounts.change_password(
                    current_user, form.current_password.data, form.new_password.data
                )
            except InvalidInput as error:
                show_service_errors(form, error)
                status = 422
            else:
                # The change ended every session, this one too: carry on with the new one.
                login_user(user)
                flash("Your password is changed; your other sessions are signed out.", "success")
                return redirect(url_for(".password"))
        else:
            status = 422
    return render_template("settings/password.html", form=form), status


def _sentence(detail: str) -> str:
    return detail[:1].upper() + detail[1:] + "."
