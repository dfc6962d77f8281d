"""Public operations endpoints: liveness, readiness, the JWKS and the OpenAPI document."""

from __future__ import annotations

from flask import Blueprint, jsonify
from sqlalchemy import text

from webapp.api.auth import limit_public
from webapp.api.schemas import HealthReply, JwksReply, OpenApiReply, ReadyReply, reply
from webapp.errors import Unavailable
from webapp.extensions import db
from webapp.ledger.keys import verify_signature
from webapp.runtime import vault
from webapp.services import keys

ops = Blueprint("ops", __name__)
public = Blueprint("public", __name__)
limit_public(public)


@ops.get("/health")
def health():
    return jsonify(reply(HealthReply, {"status": "ok"}))


@ops.get("/ready")
def ready():
    checks = {"database": _check_database(), "redis": _check_redis(), "signer": _check_signer()}
    down = [name for name, ok in checks.items() if not ok]
    if down:
        raise Unavailable(
            f"not ready: {', '.join(down)} unavailable",
            headers={"Retry-After": "5"},
            extra={"checks": {k: "ok" if v else "down" for k, v in checks.items()}},
        )
    return jsonify(reply(ReadyReply, {"status": "ready", "checks": {k: "ok" for k in checks}}))


@public.get("/.well-known/jwks.json")
def jwks():
    response = jsonify(reply(JwksReply, keys.jwks()))
    # Clients cache keys; short enough that a rotation is seen within minutes.
    response.headers["Cache-Control"] = "public, max-age=300"
    return response


@ops.get("/openapi.json")
def openapi():
    from webapp.api.openapi import document

    return jsonify(reply(OpenApiReply, document()))


def _check_database() -> bool:
    try:
        db.session.execute(text("SELECT 1"))
        return True
    except Exception:  # noqa: BLE001 - any failure means not ready
        db.session.rollback()
        return False


def _check_redis() -> bool:
    try:
        return bool(vault().redis.ping())
    except Exception:  # noqa: BLE001
        return False


def _check_signer() -> bool:
    try:
        signer = vault().signer
        probe = b"vault-readiness-probe"
        verify_signature(signer.public_key(), probe, signer.sign(probe))
        return True
    except Exception:  # noqa: BLE001 - a bad signature or a broken key both mean not ready
        return False
