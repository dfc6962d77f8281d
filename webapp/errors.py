"""Domain errors and their single translation into RFC 9457 problem+json."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from flask import Flask, Response, current_app, g, json
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)

PROBLEM_JSON = "application/problem+json"

_CODE_FOR_STATUS = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    500: "internal",
    503: "unavailable",
}


class DomainError(Exception):
    """Base of every error a service raises on purpose; carries its HTTP meaning."""

    status = 400
    code = "invalid_request"

    def __init__(
        self,
        detail: str,
        *,
        errors: list[dict[str, str]] | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.errors = errors or []
        if code:
            self.code = code
        self.headers = headers or {}
        self.extra = extra or {}


class InvalidInput(DomainError):
    status, code = 400, "invalid_request"


class Unauthorized(DomainError):
    status, code = 401, "unauthorized"


class Forbidden(DomainError):
    status, code = 403, "forbidden"


class NotFound(DomainError):
    status, code = 404, "not_found"


class Conflict(DomainError):
    status, code = 409, "conflict"


class TokenReplayed(Conflict):
    code = "token_replayed"


class PayloadTooLarge(DomainError):
    status, code = 413, "payload_too_large"


class UnsupportedMediaType(DomainError):
    status, code = 415, "unsupported_media_type"


class Unprocessable(DomainError):
    """422: the request was well formed but refers to something unusable (bad token...)."""

    status, code = 422, "invalid_request"


class RateLimited(DomainError):
    status, code = 429, "rate_limited"


class Unavailable(DomainError):
    status, code = 503, "unavailable"


def field_error(field: str, message: str) -> InvalidInput:
    """An InvalidInput about one field, with the contract's ``errors`` list."""
    return InvalidInput(f"{field} {message}", errors=[{"field": field, "message": message}])


def problem(
    status: int,
    detail: str,
    *,
    code: str | None = None,
    errors: list[dict[str, str]] | None = None,
    headers: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> Response:
    """Build a problem+json response; the only place error bodies are shaped."""
    body: dict[str, Any] = {
        "type": "about:blank",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code or _CODE_FOR_STATUS.get(status, "internal"),
    }
    if errors:
        body["errors"] = errors
    if extra:
        body.update({k: v for k, v in extra.items() if k not in body})
    request_id = getattr(g, "request_id", None)
    if request_id:
        body["request_id"] = request_id
    response = current_app.response_class(json.dumps(body), status=status, mimetype=PROBLEM_JSON)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def register_error_handlers(app: Flask) -> None:
    """Turn domain errors, routing errors and crashes into problem+json, app-wide."""

    @app.errorhandler(DomainError)
    def _domain(error: DomainError) -> Response:
        return problem(
            error.status,
            error.detail,
            code=error.code,
            errors=error.errors,
            headers=error.headers,
            extra=error.extra,
        )

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException) -> Response:
        status = error.code or 500
        detail = {
            404: "no such resource",
            405: "method not allowed on this resource",
            413: "request body is too large",
        }.get(status, error.description or HTTPStatus(status).phrase)
        headers = {}
        if status == 405 and getattr(error, "valid_methods", None):
            headers["Allow"] = ", ".join(error.valid_methods)
        return problem(status, detail, headers=headers)

    @app.errorhandler(Exception)
    def _crash(error: Exception) -> Response:
        log.exception("unhandled error")
        return problem(500, "internal error; quote the request id when reporting it")
