"""Input at the edge: JSON bodies, schema validation into field errors, list paging."""

from __future__ import annotations

import base64
import json
import math
from typing import Any, TypeVar

from flask import request
from pydantic import BaseModel, ValidationError

from webapp.errors import InvalidInput, PayloadTooLarge, UnsupportedMediaType
from webapp.runtime import vault

M = TypeVar("M", bound=BaseModel)
MAX_SAFE_INT = 2**53 - 1


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def json_body(required: bool = True) -> dict[str, Any]:
    """The request's JSON object; 415 for another media type, 413 past the limit, 400 if bad."""
    limit = vault().config.max_body_bytes
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(f"JSON bodies are limited to {limit} bytes")
    raw = request.get_data(cache=True)
    if not raw and not required:
        return {}
    if request.mimetype != "application/json":
        raise UnsupportedMediaType("send the body as application/json")
    if len(raw) > limit:
        raise PayloadTooLarge(f"JSON bodies are limited to {limit} bytes")
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError) as error:
        raise InvalidInput(f"body is not valid JSON: {str(error)[:200]}") from None
    if not isinstance(data, dict):
        raise InvalidInput("body must be a JSON object")
    return data


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
    """Decode the opaque ``cursor`` query parameter (a base64 JSON position)."""
    raw = request.args.get("cursor")
    if not raw:
        return None
    try:
        position = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
    except (ValueError, UnicodeDecodeError):
        position = None
    if not isinstance(position, dict):
        raise InvalidInput(
            "cursor is not valid", errors=[{"field": "cursor", "message": "is not valid"}]
        )
    return position


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
