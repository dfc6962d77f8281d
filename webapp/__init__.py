"""The application factory: binds extensions, blueprints and the error contract."""

from __future__ import annotations

import logging
import re
import time
import uuid

from flask import Flask, Response, g, request
from sqlalchemy.engine import make_url

from config import Config
from webapp import sqlite_writers
from webapp.errors import register_error_handlers
from webapp.extensions import csrf, db, login_manager
from webapp.logs import configure_logging
from webapp.runtime import Vault
from webapp.secrets import flask_secret_key

access_log = logging.getLogger("webapp.access")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")


def create_app(config: Config | None = None, *, web: bool = True) -> Flask:
    """Build the app from a validated Config (read from the environment when omitted).

    ``web=False`` builds the lean app of an RQ worker: no API or dashboard blueprints, the same
    services and the same registered hooks.
    """
    config = config or Config.from_env()
    configure_logging(config.log_format, config.log_level)
    config.instance_path.mkdir(parents=True, exist_ok=True)

    app = Flask(__name__, instance_path=str(config.instance_path))
    app.config.update(
        SECRET_KEY=flask_secret_key(config),
        SQLALCHEMY_DATABASE_URI=config.database_url,
        SQLALCHEMY_ENGINE_OPTIONS=_engine_options(config),
        MAX_CONTENT_LENGTH=config.upload_max_bytes,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=config.public_url.lower().startswith("https://"),
        REMEMBER_COOKIE_HTTPONLY=True,
        REMEMBER_COOKIE_SAMESITE="Lax",
        REMEMBER_COOKIE_SECURE=config.public_url.lower().startswith("https://"),
        WTF_CSRF_TIME_LIMIT=None,
        JSON_SORT_KEYS=False,
        VAULT_CONFIG=config,
    )
    app.extensions["vault"] = Vault(config)

    db.init_app(app)
    _install_caches(app)
    login_manager.init_app(app)
    csrf.init_app(app)
    if config.uses_sqlite:
        _enable_sqlite_pragmas(app)

    if config.trusted_proxy_hops:
        from werkzeug.middleware.proxy_fix import ProxyFix

        # Only as many X-Forwarded-* entries as there are proxies we run are believed; a client
        # cannot spoof its address past them.
        hops = config.trusted_proxy_hops
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]
    register_error_handlers(app)
    _register_request_hooks(app, config)
    _register_transition_hooks(app)
    if web:
        _register_blueprints(app)
    _register_cli(app)
    return app


def _engine_options(config: Config) -> dict:
    if config.uses_sqlite:
        database = make_url(config.database_url).database
        path = database if database and database != ":memory:" else None
        return {"connect_args": sqlite_writers.connect_args(path, timeout=30)}
    size = max(1, config.db_max_open_conns // 2)
    return {
        "pool_size": size,
        "max_overflow": config.db_max_open_conns - size,
        "pool_pre_ping": True,
        "pool_recycle": 1800,
    }


def _enable_sqlite_pragmas(app: Flask) -> None:
    from sqlalchemy import event

    with app.app_context():
        engine = db.engine

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection, _record) -> None:  # noqa: ANN001
        cursor = dbapi_connection.cursor()
        # WAL lets readers run beside the one writer; foreign keys are off by default.
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        # Checkpoints are run by webapp.sqlite_writers after a commit has let go of the write
        # turn, not by SQLite inside the commit.
        cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.close()


def _register_request_hooks(app: Flask, config: Config) -> None:
    @app.before_request
    def _start() -> None:
        supplied = request.headers.get("X-Request-ID", "")
        g.request_id = supplied if _REQUEST_ID.match(supplied) else uuid.uuid4().hex
        g.started = time.perf_counter()

    @app.after_request
    def _finish(response: Response) -> Response:
        response.headers["X-Request-ID"] = getattr(g, "request_id", "") or uuid.uuid4().hex
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        if (
            config.cors_allowed_origin
            and request.headers.get("Origin") == config.cors_allowed_origin
        ):
            response.headers["Access-Control-Allow-Origin"] = config.cors_allowed_origin
            response.headers["Vary"] = "Origin"
            response.headers["Access-Control-Allow-Headers"] = (
                "Content-Type, X-Vault-API-Key, Idempotency-Key, X-Request-ID"
            )
            response.headers["Access-Control-Allow-Methods"] = "GET, POST, PUT, DELETE"
            response.headers["Access-Control-Expose-Headers"] = (
                "X-Request-ID, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset"
            )
        started = getattr(g, "started", None)
        if started is not None and request.path not in ("/health",):
            access_log.info(
                "%s %s %s",
                request.method,
                request.path,
                response.status_code,
                extra={
                    "method": request.method,
                    "path": request.path,
                    "status": response.status_code,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                    "client_id": getattr(g, "client_id", ""),
                },
            )
        return response


def _install_caches(app: Flask) -> None:
    from webapp.services import tenant_cache

    tenant_cache.install()
    # Generations are read once per request: each request starts without the last one's.
    app.before_request(tenant_cache.forget_request_memo)


def _register_transition_hooks(app: Flask) -> None:
    """Side effects of committed clearance transitions, registered here and nowhere else."""
    from webapp.services import agents, clearance, drift, notifications, webhooks

    clearance.on_transition(app, notifications.notify_pending_review)
    # Drift: every committed decision adds to its agent's hourly counters (one Redis call).
    clearance.on_transition(app, drift.record_decision)
    drift.register_notifications()
    clearance.on_transition(app, webhooks.on_decision)
    agents.on_lock_down(webhooks.on_lock_down)


def _register_blueprints(app: Flask) -> None:
    from webapp.api import register_api
    from webapp.dashboard import register_dashboard

    register_api(app)
    register_dashboard(app)


def _register_cli(app: Flask) -> None:
    from webapp.cli import migration_cli, vault_cli

    app.cli.add_command(vault_cli)
    app.cli.add_command(migration_cli)
