"""The app a job runs in: created once per worker process, or injected by tests."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask, g

F = TypeVar("F", bound=Callable[..., Any])
_app: Flask | None = None


def set_app(app: Flask | None) -> None:
    """Use this app for jobs run in this process (tests run jobs beside their app)."""
    global _app
    _app = app


def get_app() -> Flask:
    global _app
    if _app is None:
        from webapp import create_app

        _app = create_app(web=False)  # a worker serves no HTTP: no blueprints
    return _app


def in_app_context(func: F) -> F:
    """Run the job inside an app context, with the job id in every log line."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from rq import get_current_job

        from webapp.extensions import db

        with get_app().app_context():
            job = get_current_job()
            g.job_id = job.id if job else ""
            try:
                return func(*args, **kwargs)
            finally:
                db.session.remove()

    return wrapper  # type: ignore[return-value]
