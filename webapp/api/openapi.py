"""The OpenAPI 3.1 document of the JSON API, built from one table of operations.

Request schemas come from the same pydantic models that validate the bodies, and success schemas
from the models the handlers serialise their answers through (``schemas.reply``), so the document
cannot drift from what the handlers accept or send; a test checks that every API route is listed
here, and `.ci/schemathesis` checks the answers of a live server against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from webapp.api import schemas


@dataclass(frozen=True)
class Op:
    method: str
    path: str
    summary: str
    tag: str
    body: type[BaseModel] | None = None
    ok: int = 200
    # The model the handler serialises its success body with (every 2xx but 204 uses it).
    reply: type[BaseModel] | None = None
    responses: dict[int, str] = field(default_factory=dict)
    query: tuple[str, ...] = ()
    auth: str = "tenant"  # tenant | admin | public
    idempotent_key: bool = False
    body_optional: bool = False


OPERATIONS: list[Op] = [
    Op("get", "/health", "Liveness", "Operations", auth="public", reply=schemas.HealthReply),
    Op(
        "get",
        "/ready",
        "Readiness of the database, Redis, the signer and the clearance workers",
        "Operations",
        auth="public",
        reply=schemas.ReadyReply,
        responses={
            503: "The database or the signer is down, or no clearance worker was seen within "
            "VAULT_READY_WORKER_SECONDS; the problem names it and carries the checks"
        },
    ),
    Op(
        "get",
        "/.well-known/jwks.json",
        "Public Ed25519 keys for A-JWT, receipt and checkpoint verification",
        "Verification",
        auth="public",
        reply=schemas.JwksReply,
    ),
    Op(
        "get",
        "/openapi.json",
        "This document",
        "Operations",
        auth="public",
        reply=schemas.OpenApiReply,
    ),
    Op(
        "post",
        "/admin/tenants",
        "Create a tenant (returns its first API key once)",
        "Operator",
        body=schemas.NewTenant,
        ok=201,
        auth="admin",
        reply=schemas.NewTenantReply,
    ),
    Op(
        "get",
        "/admin/tenants",
        "List tenants",
        "Operator",
        auth="admin",
        reply=schemas.TenantListReply,
    ),
    Op(
        "post",
        "/admin/tenants/{client_id}/api-keys",
        "Create an API key (shown once)",
        "Operator",
        body=schemas.NewApiKey,
        ok=201,
        auth="admin",
        body_optional=True,
        reply=schemas.NewApiKeyReply,
    ),
    Op(
        "get",
        "/admin/tenants/{client_id}/api-keys",
        "List API key prefixes",
        "Operator",
        auth="admin",
        reply=schemas.ApiKeyListReply,
    ),
    Op(
        "delete",
        "/admin/tenants/{client_id}/api-keys/{key_id}",
        "Revoke an API key at once",
        "Operator",
        ok=204,
        auth="admin",
    ),
    Op(
        "post",
        "/admin/tenants/{client_id}/users",
        "Create a dashboard user",
        "Operator",
        body=schemas.NewUser,
        ok=201,
        auth="admin",
        reply=schemas.UserReply,
        responses={409: "A user with this email already exists"},
    ),
    Op(
        "get",
        "/admin/tenants/{client_id}/users",
        "List dashboard users",
        "Operator",
        auth="admin",
        reply=schemas.UserListReply,
    ),
    Op(
        "get",
        "/review-settings",
        "Review threshold and judge failure mode",
        "Settings",
        reply=schemas.ReviewSettingsReply,
    ),
    Op(
        "put",
        "/review-settings",
        "Change the review threshold or judge failure mode",
        "Settings",
        body=schemas.ReviewSettingsUpdate,
        reply=schemas.ReviewSettingsReply,
    ),
]


def register(*ops: Op) -> None:
    """Add operations from another API module (called at import of that module)."""
    known = {(o.method, o.path) for o in OPERATIONS}
    for op in ops:
        if (op.method, op.path) not in known:
            OPERATIONS.append(op)


_ERROR_TEXT = {
    400: "Malformed payload or invalid fields",
    401: "Missing, unknown or revoked credential",
    404: "Unknown identifier (or another tenant's)",
    413: "Body too large",
    415: "Body is not application/json",
    429: "Rate limited; see Retry-After",
}


def document() -> dict[str, Any]:
    """Build the whole OpenAPI 3.1 document."""
    components: dict[str, Any] = {"Problem": _problem_schema()}
    paths: dict[str, dict[str, Any]] = {}
    for op in OPERATIONS:
        entry: dict[str, Any] = {
            "summary": op.summary,
            "tags": [op.tag],
            "operationId": _operation_id(op),
            "responses": _responses(op, components),
        }
        params = [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            for name in _path_params(op.path)
        ]
        params += [
            {"name": name, "in": "query", "required": False, "schema": {"type": "string"}}
            for name in op.query
        ]
        if op.idempotent_key:
            params.append(
                {
                    "name": "Idempotency-Key",
                    "in": "header",
                    "required": False,
                    "schema": {"type": "string", "maxLength": 255},
                }
            )
        if params:
            entry["parameters"] = params
        if op.body is not None:
            entry["requestBody"] = {
                "required": not op.body_optional,
                "content": {"application/json": {"schema": _component(op.body, components)}},
            }
        if op.auth == "tenant":
            entry["security"] = [{"ApiKey": []}]
        elif op.auth == "admin":
            entry["security"] = [{"AdminBearer": []}, {"AdminKey": []}]
        else:
            entry["security"] = []
        paths.setdefault(op.path, {})[op.method] = entry
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Clearance Vault API",
            "version": "1.0.0",
            "description": "Approval gateway for agent actions. See docs/api.md for the wire contract.",
        },
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "ApiKey": {"type": "apiKey", "in": "header", "name": "X-Vault-API-Key"},
                "AdminKey": {"type": "apiKey", "in": "header", "name": "X-Admin-API-Key"},
                "AdminBearer": {"type": "http", "scheme": "bearer"},
            },
        },
    }


def _responses(op: Op, components: dict[str, Any]) -> dict[str, Any]:
    successes = {op.ok: "Success"} | {s: t for s, t in op.responses.items() if 200 <= s < 300}
    out: dict[str, Any] = {}
    for status, text in sorted(successes.items()):
        out[str(status)] = {"description": text}
        if op.reply is not None and status != 204:
            out[str(status)]["content"] = {
                "application/json": {"schema": _component(op.reply, components)}
            }
    errors = {s: t for s, t in op.responses.items() if s >= 300}
    if op.auth in ("tenant", "admin"):
        errors.setdefault(401, _ERROR_TEXT[401])
    if op.auth == "tenant":
        errors.setdefault(429, _ERROR_TEXT[429])
        errors.setdefault(403, "The API key lacks the scope this endpoint needs (CONTRACT §12)")
    if op.body is not None:
        for status in (400, 413, 415):
            errors.setdefault(status, _ERROR_TEXT[status])
    if op.query or _path_params(op.path) or op.idempotent_key:
        # Query, path and header values are validated too (limit, cursor, ids, Idempotency-Key).
        errors.setdefault(400, _ERROR_TEXT[400])
    if _path_params(op.path):
        errors.setdefault(404, _ERROR_TEXT[404])
    for status, text in sorted(errors.items()):
        out[str(status)] = {
            "description": text,
            "content": {
                "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
            },
        }
    return out


def _component(model: type[BaseModel], components: dict[str, Any]) -> dict[str, Any]:
    """Add ``model`` (and the models it uses) to ``components``; return a reference to it."""
    name = model.__name__
    if name not in components:
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        for sub_name, sub in schema.pop("$defs", {}).items():
            components.setdefault(sub_name, sub)
        components[name] = schema
    return {"$ref": f"#/components/schemas/{name}"}


def _problem_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["type", "title", "status", "detail", "code"],
        "properties": {
            "type": {"type": "string"},
            "title": {"type": "string"},
            "status": {"type": "integer"},
            "detail": {"type": "string"},
            "code": {"type": "string"},
            "request_id": {"type": "string"},
            "errors": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
                },
            },
        },
    }


def _path_params(path: str) -> list[str]:
    import re

    return re.findall(r"{([^}]+)}", path)


def _operation_id(op: Op) -> str:
    import re

    words = re.sub(r"[^A-Za-z0-9]+", "_", f"{op.method}_{op.path}").strip("_")
    return words.lower()
