"""Error pages for the dashboard: people get HTML where the API gives problem+json."""

from __future__ import annotations

import logging

from flask import Blueprint, render_template
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from webapp.dashboard.htmx import is_fragment_request
from webapp.errors import DomainError

log = logging.getLogger(__name__)

MESSAGES = {
    400: ("Bad request", "The form could not be read. Go back and try again."),
    403: ("Not allowed", "Your role does not allow this action. Ask an owner if you need it."),
    404: ("Not found", "There is nothing here, or it belongs to another tenant."),
    405: ("Not allowed", "This page does not accept that kind of request."),
    409: ("Already changed", "Someone changed this first. Reload to see where it stands."),
    413: ("Too large", "The upload is larger than this vault accepts."),
    429: ("Too many requests", "Slow down and try again in a moment."),
}


def install(blueprint: Blueprint) -> None:
    """Register the HTML error handlers on the parent dashboard blueprint."""
    blueprint.register_error_handler(CSRFError, _csrf)
    blueprint.register_error_handler(DomainError, _domain)
    blueprint.register_error_handler(HTTPException, _http)
    blueprint.register_error_handler(Exception, _crash)


def render_error(status: int, detail: str | None = None):
    """The error page (or fragment, for HTMX) for ``status``."""
    title, default = MESSAGES.get(
        status, ("Something went wrong", "Try again, or reload the page.")
    )
    template = "errors/_error.html" if is_fragment_request() else "errors/error.html"
    return render_template(template, status=status, title=title, detail=detail or default), status


def _csrf(error: CSRFError):
    return render_error(
        400, "The form expired or did not come from this dashboard. Reload the page and try again."
    )


def _domain(error: DomainError):
    return render_error(error.status, error.detail)


def _http(error: HTTPException):
    return render_error(error.code or 500)


def _crash(error: Exception):
    log.exception("unhandled error in the dashboard")
    return render_error(500, "Something broke on our side. Quote the request id if you report it.")
