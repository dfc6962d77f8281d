"""The judge served on its own: ``POST /evaluate`` (``gunicorn judge_wsgi:app``).

It runs the same judge code as the in-process default, over the same database (it reads the
tenant's active policies and request history), and answers with a verdict. The vault calls it
when ``VAULT_JUDGE_URL`` is set, sending ``VAULT_JUDGE_API_KEY`` as ``X-API-Key``.
"""

from __future__ import annotations

import hmac
import logging

from flask import Flask, Response, g, jsonify, request
from pydantic import Field, StrictStr

from config import Config, ConfigError
from webapp.api.parsing import check_json_numbers, json_body, validated
from webapp.api.schemas import Body
from webapp.errors import Unauthorized, Unavailable, register_error_handlers
from webapp.extensions import db
from webapp.judge.types import ClearanceQuery
from webapp.logs import configure_logging
from webapp.runtime import Vault
from webapp.services import judging, ratelimit

log = logging.getLogger(__name__)


class EvaluateBody(Body):
    client_id: StrictStr = Field(min_length=1, max_length=64)
    tool_name: StrictStr = Field(min_length=1, max_length=256)
    tool_args: dict
    agent_id: StrictStr = Field(min_length=1, max_length=256)
    session_id: StrictStr = Field(default="", max_length=256)
    policy_hint: StrictStr = Field(default="", max_length=128)


def create_judge_app(config: Config | None = None) -> Flask:
    """The judge service app; refuses to start without JUDGE_API_KEY."""
    config = config or Config.from_env()
    if not config.judge_service_api_key:
        raise ConfigError("JUDGE_API_KEY is required to run the judge service")
    if config.allow_stub_judge:
        log.warning(
            "VAULT_ALLOW_STUB_JUDGE is on: the judge approves without evaluating rules (development only)"
        )
    configure_logging(config.log_format, config.log_level)
    app = Flask(__name__)
    app.config.update(
        SQLALCHEMY_DATABASE_URI=config.database_url, MAX_CONTENT_LENGTH=config.max_body_bytes
    )
    app.extensions["vault"] = Vault(config)
    db.init_app(app)
    register_error_handlers(app)

    @app.before_request
    def _start() -> None:
        g.request_id = request.headers.get("X-Request-ID", "")[:128]

    @app.get("/health")
    def health() -> Response:
        return jsonify(status="ok")

    @app.post("/evaluate")
    def evaluate() -> Response:
        supplied = request.headers.get("X-API-Key", "")
        if not supplied or not hmac.compare_digest(
            supplied.encode(), config.judge_service_api_key.encode()
        ):
            raise Unauthorized("a valid X-API-Key header is required")
        ratelimit.take(
            "judge:evaluate", rate=config.judge_endpoint_rate, burst=config.judge_endpoint_burst
        )
        body = validated(EvaluateBody, json_body())
        check_json_numbers(body.tool_args, "tool_args")
        query = ClearanceQuery(
            body.tool_name, body.tool_args, body.agent_id, body.session_id, body.policy_hint
        )
        try:
            verdict = judging.evaluate_locally(body.client_id, query)
        except judging.JudgeUnavailable as exc:
            # The caller counts a non-200 as a judge failure and retries it; never a deny.
            raise Unavailable("the policy judge could not evaluate this request") from exc
        return jsonify(judging.verdict_to_dict(verdict))

    return app
