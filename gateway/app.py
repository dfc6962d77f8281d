"""The tool gateway (CONTRACT §13): a sidecar that lets a call through to the protected
service only with an approval token that the vault burns for exactly this tool and body.

Per request, in order, and nothing is consumed before the request is known to be well formed:
route → method → credential → body (JSON object, or the query for a body-less call) → consume at
the vault → forward without the credential and with the ``X-Ledgix-*`` headers → stream back.
It talks to the vault over HTTP like any tool boundary, and imports nothing of the vault.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import uuid
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import quote

import httpx
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wrappers import Request, Response

from gateway.config import GatewayConfig
from gateway.routes import Route, RouteTable

log = logging.getLogger("gateway")

# RFC 9110 §7.6.1: connection-specific headers are never forwarded, in either direction.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
# Never forwarded upstream: the credential, what httpx sets itself, and any X-Ledgix-* header
# the caller sent (only the gateway may vouch for those).
_NOT_FORWARDED = HOP_BY_HOP | {"authorization", "host", "content-length"}
_TITLES = {
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    413: "Payload Too Large",
    415: "Unsupported Media Type",
    422: "Unprocessable Content",
    429: "Too Many Requests",
    502: "Bad Gateway",
    504: "Gateway Timeout",
}
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_MAX_TOKEN_CHARS = 8192
# Fields of a vault problem body that the gateway passes on to its caller.
_PROBLEM_FIELDS = ("detail", "code", "errors", "valid", "jti", "consumed_at")


class Refusal(Exception):
    """Answer the caller with a problem+json and stop; the upstream is not called."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = extra or {}
        self.headers = headers or {}


class _DuplicateKey(ValueError):
    pass


class Gateway:
    """The WSGI application. One instance holds the routes and two pooled HTTP clients."""

    def __init__(self, config: GatewayConfig, routes: RouteTable) -> None:
        self.config = config
        self.routes = routes
        self.vault = httpx.Client(
            base_url=config.vault_url,
            timeout=config.vault_timeout_seconds,
            follow_redirects=False,
            transport=_transport(),
        )
        self.upstream = httpx.Client(
            timeout=config.upstream_timeout_seconds,
            follow_redirects=False,
            transport=_transport(),
        )

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        request = Request(environ)
        request.max_content_length = self.config.max_body_bytes
        request_id = request.headers.get("X-Request-ID", "")
        if not _REQUEST_ID.match(request_id):
            request_id = uuid.uuid4().hex
        try:
            response = self.handle(request, request_id)
        except Refusal as refusal:
            response = problem(refusal, request_id)
            log.info(
                "gateway refused %s %s: %s %s (request %s)",
                request.method,
                request.path,
                refusal.status,
                refusal.code,
                request_id,
            )
        response.headers["X-Request-ID"] = request_id
        return response(environ, start_response)

    def close(self) -> None:
        self.vault.close()
        self.upstream.close()

    # --- one request ------------------------------------------------------------------------

    def handle(self, request: Request, request_id: str) -> Response:
        path = request.path
        if "\\" in path or "\x00" in path or any(s in (".", "..") for s in path.split("/")):
            raise Refusal(400, "invalid_request", "the path must not contain dot segments")
        route = self.routes.find(path)
        if route is None:
            raise Refusal(404, "not_found", "no route of this gateway serves this path")
        if request.method not in route.methods:
            raise Refusal(
                405,
                "method_not_allowed",
                f"{request.method} is not allowed on this route",
                headers={"Allow": ", ".join(sorted(route.methods))},
            )
        token = bearer_token(request)
        body, tool_args = read_arguments(request)
        claims = self.consume(route, token, tool_args, request_id)
        return self.forward(request, route, body, claims, request_id)

    def consume(
        self, route: Route, token: str, tool_args: dict[str, Any], request_id: str
    ) -> dict[str, Any]:
        """Burn the token at the vault for this route's tool and these arguments."""
        payload = json.dumps(
            {"token": token, "tool_name": route.tool, "tool_args": tool_args},
            ensure_ascii=False,
            separators=(",", ":"),
        ).encode("utf-8")
        try:
            answer = self.vault.post(
                "/consume-token",
                content=payload,
                headers={
                    "Content-Type": "application/json",
                    "X-Vault-API-Key": self.config.vault_api_key,
                    "X-Request-ID": request_id,
                },
            )
        except httpx.TimeoutException:
            raise Refusal(504, "vault_timeout", "the vault did not answer in time") from None
        except httpx.HTTPError:
            raise Refusal(502, "vault_unreachable", "the vault could not be reached") from None
        body = _json_or_none(answer)
        if answer.status_code == 200:
            if (
                not isinstance(body, dict)
                or body.get("valid") is not True
                or body.get("tool_name") != route.tool
                or not isinstance(body.get("jti"), str)
            ):
                raise Refusal(502, "vault_invalid_answer", "the vault's answer was not valid")
            return body
        passed = {k: body[k] for k in _PROBLEM_FIELDS if isinstance(body, dict) and k in body}
        code = passed.get("code", "")
        detail = str(passed.pop("detail", "") or "the vault refused the token")
        passed.pop("code", None)
        if answer.status_code == 409:
            raise Refusal(409, code or "token_replayed", detail, passed)
        if answer.status_code == 422 and code == "args_mismatch":
            raise Refusal(422, code, detail, passed)
        if answer.status_code == 422:
            # CONTRACT §13: an invalid or expired token is 401 at the gateway.
            raise Refusal(
                401,
                code or "token_invalid",
                detail,
                passed,
                headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )
        if answer.status_code in (400, 413):
            raise Refusal(answer.status_code, code or "invalid_request", detail, passed)
        if answer.status_code == 429:
            retry = answer.headers.get("Retry-After", "1")
            raise Refusal(429, "rate_limited", detail, headers={"Retry-After": retry})
        log.error(
            "the vault answered consume-token with %s (request %s)",
            answer.status_code,
            request_id,
        )
        if answer.status_code in (401, 403):
            detail = "the vault refused the gateway's own API key"
        else:
            detail = f"the vault answered {answer.status_code}"
        raise Refusal(502, "vault_error", detail)

    def forward(
        self,
        request: Request,
        route: Route,
        body: bytes,
        claims: dict[str, Any],
        request_id: str,
    ) -> Response:
        headers = [
            (name, value)
            for name, value in request.headers.items()
            if name.lower() not in _NOT_FORWARDED and not name.lower().startswith("x-ledgix-")
        ]
        headers = [(n, v) for n, v in headers if n.lower() != "x-request-id"]
        headers += [
            ("X-Request-ID", request_id),
            ("X-Ledgix-Request-Id", str(claims.get("request_id", ""))),
            ("X-Ledgix-Jti", str(claims.get("jti", ""))),
            ("X-Ledgix-Tool", route.tool),
            ("X-Ledgix-Agent-Id", str(claims.get("agent_id", ""))),
            ("X-Ledgix-Policy-Id", str(claims.get("policy_id", ""))),
            ("X-Ledgix-Session-Id", str(claims.get("session_id") or "")),
            ("X-Ledgix-Tool-Args-Hash", str(claims.get("tool_args_hash", ""))),
        ]
        target = route.upstream + quote(request.path, safe="/:@!$&'()*+,;=-._~")
        query = request.environ.get("QUERY_STRING", "")
        if query:
            target += "?" + query
        outgoing = self.upstream.build_request(
            request.method, target, headers=headers, content=body or None
        )
        try:
            answer = self.upstream.send(outgoing, stream=True)
        except httpx.TimeoutException:
            raise Refusal(504, "upstream_timeout", "the upstream did not answer in time") from None
        except httpx.HTTPError:
            raise Refusal(
                502, "upstream_unreachable", "the upstream could not be reached or answered badly"
            ) from None
        log.info(
            "gateway %s %s -> %s %s (tool %s, jti %s, request %s)",
            request.method,
            request.path,
            route.upstream,
            answer.status_code,
            route.tool,
            claims.get("jti"),
            request_id,
        )
        out_headers = [
            (name, value)
            for name, value in answer.headers.multi_items()
            if name.lower() not in HOP_BY_HOP
        ]
        return Response(
            _stream(answer),
            status=answer.status_code,
            headers=out_headers,
            direct_passthrough=True,
        )


def _transport() -> httpx.HTTPTransport:
    # httpx writes the head and the body of a request in two sends; without TCP_NODELAY, Nagle's
    # algorithm holds the body until the peer's delayed ACK (40 ms on Linux) on every call.
    return httpx.HTTPTransport(
        socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
        limits=httpx.Limits(max_connections=200, max_keepalive_connections=50),
    )


def _stream(answer: httpx.Response) -> Iterator[bytes]:
    """The upstream's bytes as they arrive (still content-encoded), then the connection back."""
    try:
        yield from answer.iter_raw()
    except httpx.HTTPError:
        # Headers are already sent: the caller sees a truncated body and a closed connection.
        log.warning("the upstream's answer broke off while streaming")
    finally:
        answer.close()


def bearer_token(request: Request) -> str:
    raw = request.headers.get("Authorization", "")
    scheme, _, token = raw.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Refusal(
            401,
            "unauthorized",
            "an approval token is required: Authorization: Bearer <A-JWT>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if len(token) > _MAX_TOKEN_CHARS or not token.isascii():
        raise Refusal(
            401,
            "token_invalid",
            "the approval token is malformed",
            headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
        )
    return token


def read_arguments(request: Request) -> tuple[bytes, dict[str, Any]]:
    """The raw body to forward and the ``tool_args`` the token must have been approved for.

    A body must be one JSON object; a call without a body is bound to its query parameters. A
    call with both is refused: the query would reach the upstream without being approved.
    """
    try:
        body = request.get_data(cache=True)
    except RequestEntityTooLarge:
        raise Refusal(
            413, "payload_too_large", "the body is larger than this gateway accepts"
        ) from None
    query = request.environ.get("QUERY_STRING", "")
    if not body:
        args: dict[str, Any] = {}
        for name, values in request.args.lists():
            if len(values) != 1:
                raise Refusal(
                    400,
                    "invalid_request",
                    f"query parameter {name!r} is given more than once",
                    {"errors": [{"field": name, "message": "given more than once"}]},
                )
            args[name] = values[0]
        return b"", args
    try:
        parsed = json.loads(
            body.decode("utf-8"),
            object_pairs_hook=_refuse_duplicates,
            parse_constant=_refuse_constant,
        )
    except _DuplicateKey as error:
        raise Refusal(
            400,
            "invalid_request",
            f"the body repeats the key {error}",
            {"errors": [{"field": str(error), "message": "duplicate key"}]},
        ) from None
    except (ValueError, RecursionError):
        raise Refusal(400, "invalid_request", "the body is not valid JSON") from None
    if not isinstance(parsed, dict):
        raise Refusal(400, "invalid_request", "the body must be a JSON object")
    if request.mimetype != "application/json" and not request.mimetype.endswith("+json"):
        raise Refusal(415, "unsupported_media_type", "send the body as application/json")
    if query:
        raise Refusal(
            400,
            "invalid_request",
            "send the arguments in the body or in the query, not both",
        )
    return body, parsed


def problem(refusal: Refusal, request_id: str) -> Response:
    payload = {
        "type": "about:blank",
        "title": _TITLES.get(refusal.status, "Error"),
        "status": refusal.status,
        "detail": refusal.detail,
        "code": refusal.code,
        "request_id": request_id,
        **refusal.extra,
    }
    response = Response(
        json.dumps(payload), status=refusal.status, content_type="application/problem+json"
    )
    for name, value in refusal.headers.items():
        response.headers[name] = value
    return response


def _json_or_none(answer: httpx.Response) -> Any:
    try:
        return answer.json()
    except ValueError:
        return None


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")
