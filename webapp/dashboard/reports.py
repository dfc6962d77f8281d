"""Reports: the list with progress, generating one for a period, downloads, share links with
an expiry (copy, list, revoke), and the schedule settings."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from flask import Blueprint, Response, abort, flash, redirect, render_template, url_for
from flask_login import current_user
from flask_wtf import FlaskForm
from wtforms import BooleanField, DateField, SelectChoice, SelectField, TextAreaField
from wtforms.validators import DataRequired, Length, Optional

from webapp.api.schemas import NewReportBody, ReportSettingsBody
from webapp.dashboard.forms import show_service_errors
from webapp.dashboard.htmx import page_or_fragment
from webapp.dashboard.roles import allowed_to, can
from webapp.errors import Conflict, InvalidInput
from webapp.models import utcnow
from webapp.services import reports

report_pages = Blueprint("reports", __name__, url_prefix="/reports")

FORMAT_CHOICES = [
    SelectChoice("pdf+json", "PDF and JSON"),
    SelectChoice("pdf", "PDF only"),
    SelectChoice("json", "JSON only"),
]
EXPIRY_CHOICES = [
    SelectChoice("86400", "1 day"),
    SelectChoice("604800", "7 days"),
    SelectChoice("2592000", "30 days"),
    SelectChoice("7776000", "90 days"),
]


class GenerateReportForm(FlaskForm):
    period_start = DateField("From (UTC, inclusive)", validators=[DataRequired()])
    period_end = DateField("To (UTC, inclusive)", validators=[DataRequired()])
    formats = SelectField("Formats", choices=FORMAT_CHOICES, default="pdf+json")


class ShareForm(FlaskForm):
    expires_in_seconds = SelectField("Link expires after", choices=EXPIRY_CHOICES, default="604800")


class ReportSettingsForm(FlaskForm):
    enabled = BooleanField("Generate reports on a schedule")
    frequency = SelectField(
        "Frequency",
        choices=[
            SelectChoice("weekly", "Weekly"),
            SelectChoice("monthly", "Monthly"),
            SelectChoice("quarterly", "Quarterly"),
        ],
    )
    formats = SelectField("Formats", choices=FORMAT_CHOICES)
    recipients = TextAreaField(
        "Email the dashboard link to",
        validators=[Optional(), Length(max=20_000)],
        description="Addresses separated by commas or new lines (at most 50). The email links "
        "to this dashboard, never to a public page.",
    )


@report_pages.get("")
@allowed_to("read")
def index():
    client_id = current_user.client_id
    rows, _ = reports.list_reports(client_id, limit=50, cursor=None)
    form = GenerateReportForm()
    today = utcnow().date()
    form.period_start.data = today - timedelta(days=30)
    form.period_end.data = today - timedelta(days=1)
    return page_or_fragment(
        "reports/index.html",
        "reports/_list.html",
        reports=reports.report_views(rows),
        form=form,
        settings_form=_settings_form(client_id),
        settings=reports.report_settings(client_id),
    )


@report_pages.post("")
@allowed_to("manage")
def generate():
    form = GenerateReportForm()
    if form.validate_on_submit():
        start = datetime.combine(form.period_start.data, time.min, UTC)
        # "To" is a whole day; a period that includes today ends now.
        end = min(
            datetime.combine(form.period_end.data, time.min, UTC) + timedelta(days=1), utcnow()
        )
        try:
            # The API's model checks the form's period and formats too: one set of rules.
            new = NewReportBody.model_validate(
                {
                    "period_start": start.isoformat(),
                    "period_end": end.isoformat(),
                    "formats": form.formats.data.split("+"),
                }
            ).command()
            report = reports.request_report(
                current_user.client_id, new, actor=current_user.email, trigger="dashboard"
            )
        except InvalidInput as error:
            flash(f"No report was generated: {error.detail}", "error")
        else:
            flash(f"Report {report.report_id} is queued; this page shows its progress.", "success")
    else:
        flash("No report was generated: give both dates.", "error")
    return redirect(url_for(".index"))


@report_pages.get("/<report_id>")
@allowed_to("read")
def detail(report_id: str):
    view = reports.report_view(reports.get_report(current_user.client_id, report_id))
    return render_template(
        "reports/detail.html", report=view, share_form=ShareForm(), new_link=None
    )


@report_pages.get("/<report_id>/artifacts/<fmt>")
@allowed_to("read")
def download(report_id: str, fmt: str):
    row = reports.artifact(current_user.client_id, report_id, fmt)
    response = Response(row.data, mimetype=row.content_type)
    response.headers["Content-Disposition"] = f'attachment; filename="{row.report_id}.{fmt}"'
    return response


@report_pages.post("/<report_id>/share")
@allowed_to("manage")
def share(report_id: str):
    client_id = current_user.client_id
    form = ShareForm()
    new_link = None
    status = 200
    if form.validate_on_submit():
        try:
            new_link = reports.share_report(
                client_id, report_id, int(form.expires_in_seconds.data), actor=current_user.email
            )
        except (InvalidInput, Conflict) as error:
            flash(f"No link was made: {error.detail}", "error")
            status = 422
    else:
        status = 422
    view = reports.report_view(reports.get_report(client_id, report_id))
    return render_template(
        "reports/detail.html", report=view, share_form=ShareForm(), new_link=new_link
    ), status


@report_pages.post("/<report_id>/share/<token_id>/revoke")
@allowed_to("manage")
def revoke(report_id: str, token_id: str):
    form = FlaskForm()
    if not form.validate_on_submit():
        abort(400)
    reports.revoke_share(current_user.client_id, report_id, token_id, actor=current_user.email)
    flash("The link is revoked: it no longer opens the report.", "success")
    return redirect(url_for(".detail", report_id=report_id))


@report_pages.post("/settings")
@allowed_to("read")
def save_settings():
    if not can("manage"):
        abort(403)
    client_id = current_user.client_id
    form = ReportSettingsForm()
    if form.validate_on_submit():
        try:
            # The API's model validates the form's fields too (the recipients above all).
            change = ReportSettingsBody.model_validate(
                {
                    "enabled": bool(form.enabled.data),
                    "frequency": form.frequency.data,
                    "formats": form.formats.data.split("+"),
                    "recipients": form.recipients.data or "",
                }
            ).command()
            reports.update_report_settings(client_id, change, actor=current_user.email)
        except InvalidInput as error:
            show_service_errors(form, error)
        else:
            flash("Report settings saved.", "success")
            return redirect(url_for(".index"))
    rows, _ = reports.list_reports(client_id, limit=50, cursor=None)
    return render_template(
        "reports/index.html",
        reports=reports.report_views(rows),
        form=GenerateReportForm(),
        settings_form=form,
        settings=reports.report_settings(client_id),
    ), 422


def _settings_form(client_id: str) -> ReportSettingsForm:
    current = reports.report_settings(client_id)
    form = ReportSettingsForm()
    form.enabled.data = current["enabled"]
    form.frequency.data = current["frequency"]
    form.formats.data = "+".join(current["formats"])
    form.recipients.data = ", ".join(current["recipients"])
    return form
