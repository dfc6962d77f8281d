"""Compliance reports (spec §4.1, CONTRACT §9): settings, generation, artifacts, share links,
and the two public endpoints an auditor opens without an API key."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from webapp.api import openapi
from webapp.api.auth import current_client_id, limit_public, protect_with_tenant_key
from webapp.api.openapi import Op
from webapp.api.parsing import (
    cursor_arg,
    encode_cursor,
    idempotency_key,
    json_body,
    limit_arg,
    validated,
)
from webapp.api.schemas import (
    NewReportBody,
    NewShareReply,
    ReportListReply,
    ReportRecordReply,
    ReportSettingsBody,
    ReportSettingsReply,
    ShareBody,
    SharedReportReply,
    ShareLinkReply,
    reply,
)
from webapp.models.reports import ReportArtifact
from webapp.services import reports

reports_api = Blueprint("reports", __name__)
protect_with_tenant_key(reports_api)
shared_reports = Blueprint("shared_reports", __name__)
limit_public(shared_reports)


# The auditor page runs only our own script and style; nothing may frame it.
SHARED_PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@reports_api.get("/report-settings")
def get_report_settings():
    return jsonify(reply(ReportSettingsReply, reports.report_settings(current_client_id())))


@reports_api.put("/report-settings")
def put_report_settings():
    change = validated(ReportSettingsBody, json_body()).command()
    updated = reports.update_report_settings(current_client_id(), change, actor="api")
    return jsonify(reply(ReportSettingsReply, updated))


@reports_api.post("/reports")
def create_report():
    new = validated(NewReportBody, json_body(required=False)).command()
    report = reports.request_report(
        current_client_id(), new, actor="api", idempotency_key=idempotency_key()
    )
    return jsonify(reply(ReportRecordReply, reports.report_view(report))), 202


@reports_api.get("/reports")
def list_reports():
    rows, following = reports.list_reports(
        current_client_id(), limit=limit_arg(), cursor=cursor_arg()
    )
    page = {
        "reports": reports.report_views(rows),
        "next_cursor": encode_cursor(following) if following else None,
    }
    return jsonify(reply(ReportListReply, page))


@reports_api.get("/reports/<report_id>")
def get_report(report_id: str):
    report = reports.get_report(current_client_id(), report_id)
    return jsonify(reply(ReportRecordReply, reports.report_view(report)))


@reports_api.get("/reports/<report_id>/artifacts/<fmt>")
def get_artifact(report_id: str, fmt: str):
    return _download(reports.artifact(current_client_id(), report_id, fmt))


@reports_api.post("/reports/<report_id>/share")
def share(report_id: str):
    seconds = validated(ShareBody, json_body(required=False)).command()
    created = reports.share_report(current_client_id(), report_id, seconds, actor="api")
    return jsonify(reply(NewShareReply, created)), 201


@reports_api.delete("/reports/<report_id>/share/<token>")
def revoke(report_id: str, token: str):
    revoked = reports.revoke_share(current_client_id(), report_id, token, actor="api")
    return jsonify(reply(ShareLinkReply, revoked))


@shared_reports.get("/reports/shared/<token>")
def shared_report(token: str):
    view = reports.shared_view(token)
    if _wants_html():
        from webapp.dashboard.shared_report import render_shared_report

        response = Response(render_shared_report(token, view), mimetype="text/html")
        response.headers["Content-Security-Policy"] = SHARED_PAGE_POLICY
    else:
        response = jsonify(reply(SharedReportReply, view))
    response.headers["Vary"] = "Accept"
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@shared_reports.get("/reports/shared/<token>/artifacts/<fmt>")
def shared_artifact(token: str, fmt: str):
    response = _download(reports.shared_artifact(token, fmt))
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def _wants_html() -> bool:
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return (
        best == "text/html"
        and request.accept_mimetypes["text/html"] > request.accept_mimetypes["application/json"]
    )


def _download(row: ReportArtifact) -> Response:
    response = Response(row.data, mimetype=row.content_type)
    response.headers["Content-Disposition"] = f'attachment; filename="{row.report_id}.{row.format}"'
    response.headers["X-Content-SHA256"] = row.sha256
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


openapi.register(
    Op(
        "get",
        "/report-settings",
        "Scheduled report settings",
        "Reports",
        reply=ReportSettingsReply,
    ),
    Op(
        "put",
        "/report-settings",
        "Change the scheduled report settings (any field alone)",
        "Reports",
        body=ReportSettingsBody,
        reply=ReportSettingsReply,
    ),
    Op(
        "post",
        "/reports",
        "Generate a SOX 404 evidence pack for a period (queued)",
        "Reports",
        body=NewReportBody,
        body_optional=True,
        ok=202,
        idempotent_key=True,
        reply=ReportRecordReply,
        responses={422: "Idempotency-Key reused with another body"},
    ),
    Op(
        "get",
        "/reports",
        "Reports, newest first",
        "Reports",
        query=("limit", "cursor"),
        reply=ReportListReply,
    ),
    Op(
        "get",
        "/reports/{report_id}",
        "One report record with its active share links",
        "Reports",
        reply=ReportRecordReply,
    ),
    Op(
        "get",
        "/reports/{report_id}/artifacts/{fmt}",
        "Download an artifact (pdf or json)",
        "Reports",
        responses={409: "The report is not ready yet; see Retry-After"},
    ),
    Op(
        "post",
        "/reports/{report_id}/share",
        "Create a signed, expiring share link (the token is shown once)",
        "Reports",
        body=ShareBody,
        body_optional=True,
        ok=201,
        reply=NewShareReply,
        responses={409: "The report is not ready"},
    ),
    Op(
        "delete",
        "/reports/{report_id}/share/{token}",
        "Revoke a share link (by token or token_id)",
        "Reports",
        reply=ShareLinkReply,
    ),
    Op(
        "get",
        "/reports/shared/{token}",
        "A shared report (HTML for a browser, JSON for Accept: application/json)",
        "Reports",
        auth="public",
        reply=SharedReportReply,
    ),
    Op(
        "get",
        "/reports/shared/{token}/artifacts/{fmt}",
        "Download a shared report's artifact",
        "Reports",
        auth="public",
    ),
)
