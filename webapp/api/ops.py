"""Public operations endpoints: liveness, readiness, the JWKS and the OpenAPI document."""

from __future__ import annotations

from flask import Blueprint, jsonify
from sqlalchemy import text

from webapp import queueing
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


# What stops working while Redis is down; everything else needs only the database.
REDIS_DEGRADES = (
    "new clearance requests, review decisions and other writes answer 503; token consumption, "
    "clearance status, the ledger and other reads keep serving; queued work waits for Redis"
)


def workers_degrade(window: int) -> str:
    return (
        f"no clearance worker seen within {window} s: requests that need the remote judge or the "
        "language model wait in processing (the reaper denies them if none returns); inline "
        "decisions, token consumption, clearance status and the ledger keep serving"
    )


@ops.get("/ready")
def ready():
    """200 ``ready``; 200 ``degraded`` naming the part that is down when the service still
    serves (Redis, or no clearance worker seen within ``VAULT_READY_WORKER_SECONDS``); 503 when
    it cannot serve at all (database or signer).

    Neither a Redis outage nor missing workers is "not ready": a load balancer that took the web
    tier out of service for them would also stop the fast lane's inline decisions, consume-token,
    clearance-status and the ledger. While Redis is down no worker can be seen, and ``workers``
    reads ``down`` with it.
    """
    checks = {"database": _check_database(), "redis": _check_redis(), "signer": _check_signer()}
    window = vault().config.ready_worker_seconds
    if window:
        checks["workers"] = checks["redis"] and _check_workers(window)
    states = {k: "ok" if v else "down" for k, v in checks.items()}
    down = [name for name in ("database", "signer") if not checks[name]]
    if down:
        raise Unavailable(
            f"not ready: {', '.join(down)} unavailable",
            headers={"Retry-After": "5"},
            extra={"checks": states},
        )
    degraded = []
    if not checks["redis"]:
        degraded.append({"component": "redis", "effect": REDIS_DEGRADES})
    elif not checks.get("workers", True):
        degraded.append({"component": "workers", "effect": workers_degrade(window)})
    if degraded:
        return jsonify(
            reply(ReadyReply, {"status": "degraded", "checks": states, "degraded": degraded})
        )
    return jsonify(reply(ReadyReply, {"status": "ready", "checks": states}))


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


def _check_workers(window: int) -> bool:
    try:
        return queueing.live_workers(queueing.CLEARANCE, window) > 0
    except Exception:  # noqa: BLE001 - unreadable worker records mean none can be seen
        return False


def _check_signer() -> bool:
    try:
        signer = vault().signer
        probe = b"vault-readiness-probe"
        verify_signature(signer.public_key(), probe, signer.sign(probe))
        return True
    except Exception:  # noqa: BLE001 - a bad signature or a broken key both mean not ready
        return False
