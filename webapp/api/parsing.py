"""Input at the edge: JSON bodies, schema validation into field errors, list paging."""

from __future__ import annotations

import base64
import json
import math
from typing import Any, TypeVar

from flask import request
from pydantic import BaseModel, ValidationError
from werkzeug.exceptions import RequestEntityTooLarge

from webapp import strict_json
from webapp.errors import InvalidInput, PayloadTooLarge, UnsupportedMediaType, field_error
from webapp.runtime import vault

M = TypeVar("M", bound=BaseModel)
MAX_SAFE_INT = 2**53 - 1
# Cursor positions are database integers: a signed 64-bit column holds nothing larger.
CURSOR_MIN, CURSOR_MAX = -(2**63), 2**63 - 1


def json_body(required: bool = True) -> dict[str, Any]:
    """The request's JSON object; 415 for another media type, 413 past the limit, 400 if bad.

    The body is counted as it is read, so a chunked body past the limit is 413 like one with
    a Content-Length. Decoding is strict (CONTRACT §1): duplicate keys, nesting past the
    bounds, lone surrogates and NUL characters are 400 before any handler sees the body.
    """
    limit = vault().config.max_body_bytes
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(f"JSON bodies are limited to {limit} bytes")
    raw = _read_body(limit)
    if not raw and not required:
        return {}
    if request.mimetype != "application/json":
        raise UnsupportedMediaType("send the body as application/json")
    try:
        data = strict_json.loads(raw)
    except strict_json.StrictJSONError as error:
        raise InvalidInput(
            str(error), errors=[{"field": error.field, "message": str(error)}]
        ) from None
    if not isinstance(data, dict):
        raise InvalidInput("body must be a JSON object")
    return data


def _read_body(limit: int) -> bytes:
    """Read at most ``limit`` bytes of the body, counting as it comes; 413 past the limit.

    Werkzeug's own limit on a chunked stream stops reading *at* the limit and hands back a
    truncated body, which then fails as bad JSON; reading one byte more tells the two apart.
    """
    cached = getattr(request, "_cached_data", None)
    if cached is not None:
        if len(cached) > limit:
            raise PayloadTooLarge(f"JSON bodies are limited to {limit} bytes")
        return cached
    body = bytearray()
    try:
        stream = request.stream
        while len(body) <= limit:
            chunk = stream.read(min(64 * 1024, limit + 1 - len(body)))
            if not chunk:
                break
            body.extend(chunk)
    except RequestEntityTooLarge:
        raise PayloadTooLarge(f"JSON bodies are limited to {limit} bytes") from None
    if len(body) > limit:
        raise PayloadTooLarge(f"JSON bodies are limited to {limit} bytes")
    # Later readers (request.get_data) see the same bytes.
    request._cached_data = bytes(body)
    return request._cached_data


def validated(model: type[M], data: dict[str, Any]) -> M:
    """Validate with a pydantic model; schema errors become the contract's field errors."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        errors = [
            {"field": ".".join(str(p) for p in e["loc"]) or "body", "message": _message(e)}
            for e in error.errors(include_url=False)
        ]
        first = errors[0]
        raise InvalidInput(f"{first['field']}: {first['message']}", errors=errors) from None


def _message(error: dict[str, Any]) -> str:
    text = str(error.get("msg", "is invalid"))
    return text.removeprefix("Value error, ")


def check_json_numbers(value: Any, path: str) -> None:
    """CONTRACT §1: integers within ±(2^53−1), fractional numbers finite."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INT:
            raise InvalidInput(
                f"{path} is outside ±(2^53−1)",
                errors=[{"field": path, "message": "integer outside ±(2^53−1)"}],
            )
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput(
                f"{path} is not finite", errors=[{"field": path, "message": "not finite"}]
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            check_json_numbers(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            check_json_numbers(item, f"{path}[{index}]")


def limit_arg(default: int = 50) -> int:
    raw = request.args.get("limit")
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if not 1 <= value <= 500:
        raise InvalidInput(
            "limit must be an integer from 1 to 500",
            errors=[{"field": "limit", "message": "must be an integer from 1 to 500"}],
        )
    return value


def encode_cursor(position: dict[str, Any]) -> str:
    return (
        base64.urlsafe_b64encode(json.dumps(position, separators=(",", ":")).encode())
        .decode()
        .rstrip("=")
    )


def cursor_arg() -> dict[str, Any] | None:
    """Decode the opaque ``cursor`` query parameter (a base64 JSON position).

    Cursors are made by ``encode_cursor``: an object of small scalars (or short flat lists of
    them). Anything else, including an integer a database column cannot hold (2^63 or more),
    is 400.
    """
    raw = request.args.get("cursor")
    if not raw:
        return None
    try:
        position = strict_json.loads(
            base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)), max_depth=2
        )
    except (ValueError, UnicodeDecodeError):
        position = None
    if not isinstance(position, dict) or not all(
        _cursor_scalar(value) for value in position.values()
    ):
        raise InvalidInput(
            "cursor is not valid", errors=[{"field": "cursor", "message": "is not valid"}]
        )
    return position


def _cursor_scalar(value: Any) -> bool:
    if isinstance(value, list):  # a flat list of scalars (max_depth=2 keeps it flat)
        return len(value) <= 16 and all(_cursor_scalar(item) for item in value)
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int):
        return CURSOR_MIN <= value <= CURSOR_MAX
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, str) and len(value) <= 512


def idempotency_key() -> str | None:
    raw = request.headers.get("Idempotency-Key")
    if raw is None:
        return None
    raw = raw.strip()
    if not raw or len(raw) > 255:
        raise InvalidInput(
            "Idempotency-Key must be 1 to 255 characters",
            errors=[{"field": "Idempotency-Key", "message": "must be 1 to 255 characters"}],
        )
    return raw


def refuse_nul_characters() -> None:
    """App-wide: a NUL in the path, the query or a form field is 400 on every backend.

    PostgreSQL refuses NUL in text (a 500 if it reached a query) while SQLite stores it; JSON
    bodies are checked by ``json_body``, this covers what arrives outside them.
    """
    if "\x00" in request.path:
        raise field_error("path", "contains a NUL character")
    for name, value in request.args.items(multi=True):
        if "\x00" in name or "\x00" in value:
            raise field_error("query", "contains a NUL character")
    if request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        for name, value in request.form.items(multi=True):
            if "\x00" in name or "\x00" in value:
                raise field_error(_printable_name(name), "contains a NUL character")


def _printable_name(name: str) -> str:
    return name.replace("\x00", "\\x00")[:100]
