"""The gateway's routes file (CONTRACT §13): which tool a path is, and which upstream serves it.

Format, one JSON object::

    {"routes": [{"path": "/refunds", "methods": ["POST"], "tool": "stripe_refund",
                 "upstream": "http://127.0.0.1:9000"}]}

``path`` is a prefix matched on whole segments (``/refunds`` matches ``/refunds`` and
``/refunds/42``, never ``/refundsx``); the longest match wins. ``methods`` defaults to every
method. ``upstream`` is an http(s) origin, optionally with a base path that is put in front of
the request's own path.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_PATH = re.compile(r"^/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$")


class RoutesError(ValueError):
    """The routes file is missing or malformed; the message names the bad entry."""


@dataclass(frozen=True)
class Route:
    path: str
    methods: frozenset[str]
    tool: str
    upstream: str

    def matches(self, path: str) -> bool:
        if self.path == "/":
            return True
        return path == self.path or path.startswith(self.path + "/")


@dataclass(frozen=True)
class RouteTable:
    routes: tuple[Route, ...]

    def find(self, path: str) -> Route | None:
        """The route with the longest prefix that matches ``path`` on whole segments."""
        best: Route | None = None
        for route in self.routes:
            if route.matches(path) and (best is None or len(route.path) > len(best.path)):
                best = route
        return best


def load_routes(path: str | Path) -> RouteTable:
    try:
        raw = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise RoutesError(f"cannot read the routes file {path}: {error.strerror}") from None
    try:
        document = json.loads(raw)
    except ValueError as error:
        raise RoutesError(f"the routes file is not valid JSON: {error}") from None
    return parse_routes(document)


def parse_routes(document: object) -> RouteTable:
    if not isinstance(document, dict) or not isinstance(document.get("routes"), list):
        raise RoutesError('the routes file must be an object {"routes": [...]}')
    routes: list[Route] = []
    seen: set[str] = set()
    for index, entry in enumerate(document["routes"]):
        where = f"routes[{index}]"
        if not isinstance(entry, dict):
            raise RoutesError(f"{where} must be an object")
        path = entry.get("path")
        if not isinstance(path, str) or not _PATH.match(path) or _has_dot_segment(path):
            raise RoutesError(f"{where}.path must be an absolute path such as /refunds")
        path = path.rstrip("/") or "/"
        if path in seen:
            raise RoutesError(f"{where}.path {path} is listed twice")
        seen.add(path)
        tool = entry.get("tool")
        if not isinstance(tool, str) or not tool.strip() or len(tool) > 256:
            raise RoutesError(f"{where}.tool must be a tool name of 1 to 256 characters")
        methods = entry.get("methods", sorted(METHODS))
        if (
            not isinstance(methods, list)
            or not methods
            or not all(isinstance(m, str) and m.upper() in METHODS for m in methods)
        ):
            raise RoutesError(f"{where}.methods must be a list of HTTP methods")
        upstream = entry.get("upstream")
        if not isinstance(upstream, str) or not _valid_upstream(upstream):
            raise RoutesError(f"{where}.upstream must be an http or https URL without a query")
        routes.append(
            Route(
                path=path,
                methods=frozenset(m.upper() for m in methods),
                tool=tool,
                upstream=upstream.rstrip("/"),
            )
        )
    if not routes:
        raise RoutesError("the routes file lists no routes")
    return RouteTable(tuple(routes))


def _valid_upstream(url: str) -> bool:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        return False
    return (
        parts.scheme in ("http", "https")
        and bool(parts.hostname)
        and not parts.query
        and not parts.fragment
        and not parts.username
    )


def _has_dot_segment(path: str) -> bool:
    return any(segment in (".", "..") for segment in path.split("/"))
