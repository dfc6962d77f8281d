"""HTMX conventions: one route answers with the whole page or only its fragment."""

from __future__ import annotations

from typing import Any

from flask import Response, make_response, render_template, request


def is_fragment_request() -> bool:
    """True for an HTMX request that wants a fragment (a boosted navigation wants the page)."""
    return (
        request.headers.get("HX-Request") == "true" and request.headers.get("HX-Boosted") != "true"
    )


def page_or_fragment(page: str, fragment: str, status: int = 200, **context: Any) -> Response:
    """Render ``fragment`` for HTMX and ``page`` (which includes the fragment) otherwise."""
    template = fragment if is_fragment_request() else page
    return make_response(render_template(template, **context), status)


def add_vary_header(response: Response) -> Response:
    """Caches must key on HX-Request: the same URL answers with a page or a fragment."""
    response.vary.add("HX-Request")
    return response


def hx_redirect(location: str) -> Response:
    """Send the browser to ``location``: HTMX follows HX-Redirect, plain forms a 303."""
    if request.headers.get("HX-Request") == "true":
        response = make_response("", 200)
        response.headers["HX-Redirect"] = location
        return response
    response = make_response("", 303)
    response.headers["Location"] = location
    return response
