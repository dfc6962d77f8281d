"""Signed outbound webhooks (CONTRACT §14): endpoints, events, deliveries and their log.

A tenant registers endpoints (an https URL and the event types it wants). Each endpoint has
its own signing secret, shown once at creation and stored sealed (XChaCha20-Poly1305, bound to
the tenant and the endpoint). An event is one JSON document, `{"event_id", "type",
"created_at", "client_id", "data"}`, serialised once: the same bytes are signed
(`X-Ledgix-Signature: sha256=<hex HMAC-SHA256(secret, body)>`) and sent on every attempt, with
`X-Ledgix-Delivery` = `event_id` and `X-Ledgix-Timestamp` = `created_at`, which is what the
public clients' `verify_webhook` checks.

Each delivery is a row (the delivery log) and an RQ job retried with backoff
(`VAULT_NOTIFY_RETRY_INTERVALS`). An endpoint whose deliveries fail for good 20 times in a row
is disabled. Nothing here can change a decision: events are emitted after the decision has
committed, and a failure only changes webhook rows.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import redis
from sqlalchemy import func, select

from webapp import queueing
from webapp.errors import InvalidInput
from webapp.extensions import db
from webapp.models import (
    APPROVED,
    DENIED,
    PENDING_REVIEW,
    AgentState,
    ClearanceRequest,
    WebhookDelivery,
    WebhookEndpoint,
    iso,
    new_id,
    utcnow,
)
from webapp.notify import channels
from webapp.runtime import vault
from webapp.services import outbound, paging, tenant_cache
from webapp.services.at_rest import SealedDataError, open_sealed, seal
from webapp.services.clearance import confidence_bucket, decision_status
from webapp.services.ledger import EventContent, append_event

log = logging.getLogger(__name__)

EVENT_TYPES = (
    "clearance.decided",
    "review.pending",
    "review.decided",
    "drift.detected",
    "agent.locked",
    "report.ready",
)
MAX_ENDPOINTS = 20  # per tenant: the list needs no pages, and fan-out stays bounded
MAX_URL_CHARS = 2048
MAX_DESCRIPTION = 500
DISABLE_AFTER_FAILURES = 20  # CONTRACT §14: 20 failed deliveries in a row
SIGNATURE_HEADER = "X-Ledgix-Signature"
# The delivery statuses and the log format are the notifications' (services.outbound).
QUEUED, RETRYING, DELIVERED, FAILED, SKIPPED = (
    outbound.QUEUED,
    outbound.RETRYING,
    outbound.DELIVERED,
    outbound.FAILED,
    outbound.SKIPPED,
)
REVIEW_OUTCOMES = ("approved_by_reviewer", "reviewer_denied", "review_expired")


# --- endpoints -------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewEndpoint:
    """A validated endpoint (``NewWebhook`` at the API and in the dashboard): an https URL that
    passed the outbound checks, known event types without repeats, a stripped description."""

    url: str
    events: list[str]
    description: str = ""


def create_endpoint(client_id: str, new: NewEndpoint, *, actor: str) -> tuple[WebhookEndpoint, str]:
    """Store an endpoint; returns it with its raw secret (shown this once)."""
    count = db.session.scalar(
        select(func.count())
        .select_from(WebhookEndpoint)
        .where(WebhookEndpoint.client_id == client_id)
    )
    if count >= MAX_ENDPOINTS:
        raise InvalidInput(
            f"a tenant has at most {MAX_ENDPOINTS} webhook endpoints; delete one first",
            errors=[{"field": "url", "message": f"at most {MAX_ENDPOINTS} endpoints"}],
        )
    webhook_id = new_id("whk")
    secret = "whsec_" + secrets.token_urlsafe(32)
    now = utcnow()
    endpoint = WebhookEndpoint(
        webhook_id=webhook_id,
        client_id=client_id,
        url=new.url,
        events=list(new.events),
        description=new.description,
        secret_sealed=_seal_secret(client_id, webhook_id, secret),
        enabled=True,
        consecutive_failures=0,
        disabled_reason="",
        created_at=now,
        updated_at=now,
    )
    db.session.add(endpoint)
    _audit(client_id, actor, "created", endpoint)
    db.session.commit()
    return endpoint, secret


def list_endpoints(client_id: str) -> list[WebhookEndpoint]:
    return list(
        db.session.scalars(
            WebhookEndpoint.for_tenant(client_id).order_by(
                WebhookEndpoint.created_at, WebhookEndpoint.webhook_id
            )
        )
    )


def get_endpoint(client_id: str, webhook_id: str) -> WebhookEndpoint:
    return WebhookEndpoint.get_for_tenant(client_id, webhook_id, "webhook")


def delete_endpoint(client_id: str, webhook_id: str, *, actor: str) -> None:
    """Remove the endpoint and its delivery log (another tenant's id is a 404)."""
    endpoint = get_endpoint(client_id, webhook_id)
    _audit(client_id, actor, "deleted", endpoint)
    db.session.execute(
        WebhookDelivery.__table__.delete().where(WebhookDelivery.webhook_id == webhook_id)
    )
    db.session.delete(endpoint)
    db.session.commit()


def enable_endpoint(client_id: str, webhook_id: str, *, actor: str) -> WebhookEndpoint:
    """Switch a disabled endpoint back on, with a fresh failure count."""
    endpoint = get_endpoint(client_id, webhook_id)
    if not endpoint.enabled:
        endpoint.enabled = True
        endpoint.consecutive_failures = 0
        endpoint.disabled_reason = ""
        endpoint.disabled_at = None
        endpoint.updated_at = utcnow()
        _audit(client_id, actor, "enabled", endpoint)
        db.session.commit()
    return endpoint


def endpoint_view(endpoint: WebhookEndpoint, secret: str | None = None) -> dict[str, Any]:
    """CONTRACT §14's fields; the secret only in the answer to its creation."""
    view: dict[str, Any] = {
        "webhook_id": endpoint.webhook_id,
        "url": endpoint.url,
        "events": list(endpoint.events),
        "description": endpoint.description,
        "enabled": endpoint.enabled,
        "created_at": iso(endpoint.created_at),
    }
    if secret is not None:
        view["secret"] = secret
    return view


# --- events ----------------------------------------------------------------------------------


def emit(client_id: str, event_type: str, data: dict[str, Any]) -> list[WebhookDelivery]:
    """Queue one signed event to every enabled endpoint of the tenant that wants it.

    The body is built once, so every endpoint and every retry gets the same `event_id`,
    `created_at` and bytes. Commits; call it after the change the event reports has committed.
    """
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown webhook event type {event_type!r}")
    try:
        return _emit(client_id, event_type, data)
    except Exception:
        # Leave the session usable for whatever runs next (the other after-commit hooks).
        db.session.rollback()
        raise


def _emit(client_id: str, event_type: str, data: dict[str, Any]) -> list[WebhookDelivery]:
    targets = [
        webhook_id for webhook_id, events in _enabled_endpoints(client_id) if event_type in events
    ]
    if not targets:
        return []
    now = utcnow()
    event = {
        "event_id": new_id("evt"),
        "type": event_type,
        "created_at": iso(now),
        "client_id": client_id,
        "data": data,
    }
    body = json.dumps(event, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    intervals = outbound.retry_intervals()
    deliveries = [
        WebhookDelivery(
            delivery_id=new_id("whd"),
            client_id=client_id,
            webhook_id=webhook_id,
            event_id=event["event_id"],
            event_type=event_type,
            created_at_text=event["created_at"],
            body=body,
            status=QUEUED,
            attempts=0,
            max_attempts=len(intervals) + 1,
            attempt_log=[],
            last_error="",
            created_at=now,
            updated_at=now,
        )
        for webhook_id in targets
    ]
    db.session.add_all(deliveries)
    db.session.commit()  # commit, then enqueue: the job must find its row
    for delivery in deliveries:
        try:
            _enqueue(delivery, intervals)
        except redis.RedisError:
            log.warning("could not queue webhook delivery %s", delivery.delivery_id)
            endpoint = db.session.get(WebhookEndpoint, delivery.webhook_id)
            _finish(delivery, endpoint, utcnow(), FAILED, "the delivery queue is unavailable")
    return deliveries


def _enabled_endpoints(client_id: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(webhook_id, events) of the tenant's enabled endpoints. Every decision asks, so it is
    cached per process like the rest of the decision path's reads (webapp/services/
    tenant_cache.py), renewed whenever an endpoint is added, deleted, enabled or disabled."""

    def load() -> tuple[tuple[str, tuple[str, ...]], ...]:
        rows = db.session.scalars(
            WebhookEndpoint.for_tenant(client_id)
            .where(WebhookEndpoint.enabled.is_(True))
            .order_by(WebhookEndpoint.created_at, WebhookEndpoint.webhook_id)
        )
        return tuple((row.webhook_id, tuple(row.events or ())) for row in rows)

    return tenant_cache.cached(client_id, "webhooks", "enabled", load)


def signature(secret: str, body: bytes) -> str:
    """`X-Ledgix-Signature`: what the clients' `verify_webhook(body, header, secret)` checks."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def attempt_delivery(delivery_id: str, *, final_attempt: bool) -> str:
    """Make one attempt; returns `delivered`, `retry`, `failed` or `skipped`.

    `retry` means this attempt failed and the RQ job should fail so that RQ retries it."""
    delivery = db.session.get(WebhookDelivery, delivery_id)
    if delivery is None or delivery.status in (DELIVERED, FAILED, SKIPPED):
        return SKIPPED
    endpoint = db.session.get(WebhookEndpoint, delivery.webhook_id)
    started = utcnow()
    if endpoint is None or not endpoint.enabled:
        _finish(delivery, endpoint, started, SKIPPED, "the endpoint was disabled or deleted")
        return SKIPPED
    try:
        secret = _open_secret(endpoint)
        body = delivery.body.encode("utf-8")
        status = channels.post_signed_webhook(
            endpoint.url,
            body,
            {
                SIGNATURE_HEADER: signature(secret, body),
                "X-Ledgix-Delivery": delivery.event_id,
                "X-Ledgix-Timestamp": delivery.created_at_text,
                "X-Ledgix-Event": delivery.event_type,
            },
            allow_private=vault().config.webhook_allow_private,
        )
    except channels.DeliveryError as error:
        status = outbound.after_failure(error.retryable, final_attempt)
        _finish(delivery, endpoint, started, status, str(error))
        return "retry" if status == RETRYING else FAILED
    except Exception as error:  # noqa: BLE001 - a bug in one delivery must still be logged
        log.exception("webhook delivery %s crashed", delivery_id)
        status = outbound.after_failure(True, final_attempt)
        _finish(delivery, endpoint, started, status, f"internal error ({type(error).__name__})")
        return "retry" if status == RETRYING else FAILED
    _finish(delivery, endpoint, started, DELIVERED, f"HTTP {status}")
    return DELIVERED


def list_deliveries(
    client_id: str, webhook_id: str, *, limit: int, cursor: dict[str, Any] | None = None
) -> tuple[list[WebhookDelivery], dict[str, Any] | None]:
    """An endpoint's delivery log, newest first; returns (rows, next cursor position)."""
    get_endpoint(client_id, webhook_id)  # 404 for an unknown or another tenant's endpoint
    query = WebhookDelivery.for_tenant(client_id).where(WebhookDelivery.webhook_id == webhook_id)
    return paging.newest_first(
        query,
        WebhookDelivery.created_at,
        WebhookDelivery.delivery_id,
        limit=limit,
        cursor=cursor,
    )


def delivery_view(delivery: WebhookDelivery) -> dict[str, Any]:
    return {
        "delivery_id": delivery.delivery_id,
        "webhook_id": delivery.webhook_id,
        "event_id": delivery.event_id,
        "type": delivery.event_type,
        "status": delivery.status,
        "attempts": delivery.attempts,
        "max_attempts": delivery.max_attempts,
        "last_error": delivery.last_error,
        "attempt_log": list(delivery.attempt_log or []),
        "created_at": iso(delivery.created_at),
        "updated_at": iso(delivery.updated_at),
        "delivered_at": iso(delivery.delivered_at),
    }


# --- what emits ------------------------------------------------------------------------------


def on_decision(request: ClearanceRequest) -> None:
    """After-transition hook (registered in ``create_app``): `review.pending`, `clearance.decided`, and `review.decided` for a
    decision made in review (a reviewer's, or the review's expiry)."""
    if request.status == PENDING_REVIEW:
        emit(request.client_id, "review.pending", _request_data(request))
        return
    if request.status not in (APPROVED, DENIED):
        return
    data = _request_data(request)
    emit(request.client_id, "clearance.decided", data)
    if request.reason_code in REVIEW_OUTCOMES:
        emit(request.client_id, "review.decided", {**data, "reviewer": request.reviewer_email})


def on_lock_down(state: AgentState) -> None:
    """After-lockdown hook (registered in ``create_app``)."""
    emit(
        state.client_id,
        "agent.locked",
        {
            "agent_id": state.agent_id,
            "locked_at": iso(state.locked_at),
            "locked_by": state.locked_by,
            "reason": state.lock_reason or "",
        },
    )


def _request_data(request: ClearanceRequest) -> dict[str, Any]:
    # The arguments themselves stay out (they may be sensitive): the intent hash names them.
    return {
        "request_id": request.request_id,
        "status": request.status,
        "decision_status": decision_status(request.status),
        "reason_code": request.reason_code,
        "reason": request.reason,
        "agent_id": request.agent_id,
        "session_id": request.session_id,
        "tool_name": request.tool_name,
        "tool_args_hash": request.tool_args_hash,
        "policy_id": request.policy_id,
        "policy_version_id": request.policy_version_id,
        "confidence": request.confidence,
        "confidence_bucket": confidence_bucket(request.confidence),
        "decided_at": iso(request.decided_at),
    }


# --- helpers ---------------------------------------------------------------------------------


def _enqueue(delivery: WebhookDelivery, intervals: list[int]) -> None:
    queueing.deliver_webhook(
        delivery.delivery_id, delivery.client_id, delivery.webhook_id, intervals
    )


def _finish(
    delivery: WebhookDelivery,
    endpoint: WebhookEndpoint | None,
    started: datetime,
    status: str,
    detail: str,
) -> None:
    """Record the attempt on the delivery, and its consequence for the endpoint; commits."""
    outbound.record_attempt(delivery, started, status, detail, counted=status != SKIPPED)
    now = delivery.updated_at
    if endpoint is not None:
        if status == DELIVERED:
            endpoint.consecutive_failures = 0
        elif status == FAILED:
            endpoint.consecutive_failures += 1
            if endpoint.enabled and endpoint.consecutive_failures >= DISABLE_AFTER_FAILURES:
                endpoint.enabled = False
                endpoint.disabled_at = now
                endpoint.disabled_reason = (
                    f"disabled after {endpoint.consecutive_failures} failed deliveries in a "
                    f"row; last: {detail}"
                )[:500]
                log.warning("webhook %s disabled after repeated failures", endpoint.webhook_id)
        endpoint.updated_at = now
    db.session.commit()


def _audit(client_id: str, actor: str, action: str, endpoint: WebhookEndpoint) -> None:
    """A `settings_changed` ledger event; the host only, since a URL path can hold a token."""
    append_event(
        client_id,
        EventContent(
            action_category="settings_changed",
            reason=f"webhook endpoint {action} by {actor}",
            action_metadata={
                "settings": "webhooks",
                "actor": actor,
                "changes": {
                    "action": action,
                    "webhook_id": endpoint.webhook_id,
                    "host": outbound.mask_url(endpoint.url).split("/****")[0],
                    "events": list(endpoint.events),
                },
            },
        ),
    )


def _seal_secret(client_id: str, webhook_id: str, secret: str) -> str:
    sealed = seal(vault().transport_key, _associated(client_id, webhook_id), secret)
    return base64.b64encode(sealed).decode()


def _open_secret(endpoint: WebhookEndpoint) -> str:
    try:
        return open_sealed(
            vault().transport_key,
            _associated(endpoint.client_id, endpoint.webhook_id),
            base64.b64decode(endpoint.secret_sealed),
        )
    except (SealedDataError, ValueError):
        # Without the secret nothing can be signed; another attempt will not help.
        raise channels.DeliveryError(
            "the endpoint's secret does not open (the key changed?)", retryable=False
        ) from None


def _associated(client_id: str, webhook_id: str) -> str:
    # Bound to tenant and endpoint: a sealed secret copied to another row does not open.
    return f"webhook-secret\x00{client_id}\x00{webhook_id}"
