"""Settings → Webhooks: a tenant's signed outbound endpoints, their state and delivery log."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_login import current_user

from webapp.api.schemas import NewWebhook
from webapp.dashboard.forms import ActionForm, WebhookForm, show_service_errors
from webapp.dashboard.roles import allowed_to, can
from webapp.errors import InvalidInput
from webapp.services import webhooks

webhook_pages = Blueprint("webhooks", __name__, url_prefix="/settings/webhooks")
LOG_ROWS = 50


def _form(**kwargs) -> WebhookForm:  # noqa: ANN003
    form = WebhookForm(**kwargs)
    form.events.choices = [(name, name) for name in webhooks.EVENT_TYPES]
    return form


@webhook_pages.route("", methods=["GET", "POST"])
@allowed_to("read")
def index():
    client_id = current_user.client_id
    form = _form()
    created = secret = None
    status = 200
    if request.method == "POST":
        if not can("manage"):
            abort(403)
        if form.validate_on_submit():
            try:
                # The API's model validates the form's fields too: one set of checks.
                new = NewWebhook.model_validate(
                    {
                        "url": form.url.data,
                        "events": list(form.events.data or []),
                        "description": form.description.data or "",
                    }
                ).command()
                created, secret = webhooks.create_endpoint(client_id, new, actor=current_user.email)
            except InvalidInput as error:
                show_service_errors(form, error)
                status = 422
            else:
                form = _form(formdata=None)
        else:
            status = 422
    # The secret is rendered into this one response and never stored in clear or flashed.
    return render_template(
        "settings/webhooks.html",
        form=form,
        endpoints=webhooks.list_endpoints(client_id),
        created=created,
        secret=secret,
        action_form=ActionForm(),
    ), status


@webhook_pages.get("/<webhook_id>")
@allowed_to("read")
def detail(webhook_id: str):
    client_id = current_user.client_id
    endpoint = webhooks.get_endpoint(client_id, webhook_id)
    deliveries, _ = webhooks.list_deliveries(client_id, webhook_id, limit=LOG_ROWS)
    return render_template(
        "settings/webhook.html",
        endpoint=endpoint,
        deliveries=deliveries,
        action_form=ActionForm(),
    )


@webhook_pages.post("/<webhook_id>/delete")
@allowed_to("manage")
def delete(webhook_id: str):
    if not ActionForm().validate_on_submit():
        flash("The form expired; try again.", "error")
        return redirect(url_for(".index"))
    webhooks.delete_endpoint(current_user.client_id, webhook_id, actor=current_user.email)
    flash("The webhook endpoint is deleted; nothing more is sent to it.", "success")
    return redirect(url_for(".index"))


@webhook_pages.post("/<webhook_id>/enable")
@allowed_to("manage")
def enable(webhook_id: str):
    if not ActionForm().validate_on_submit():
        flash("The form expired; try again.", "error")
        return redirect(url_for(".detail", webhook_id=webhook_id))
    webhooks.enable_endpoint(current_user.client_id, webhook_id, actor=current_user.email)
    flash("The webhook endpoint is enabled again.", "success")
    return redirect(url_for(".detail", webhook_id=webhook_id))
