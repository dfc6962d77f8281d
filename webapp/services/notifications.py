"""Notification settings (CONTRACT §7) and the delivery of review notifications.

When a request enters ``pending_review`` one delivery row per enabled channel is committed,
then an RQ job per row sends it, retried with backoff; every attempt is written to the row,
which is the tenant's delivery log. Nothing here can touch a decision: the hook runs after the
transition has committed, and a failed delivery only changes its own row.
"""

from __future__ import annotations

import base64
import logging
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import redis

from webapp.errors import InvalidInput
from webapp.extensions import db
from webapp.models import PENDING_REVIEW, ClearanceRequest, iso, new_id, utcnow
from webapp.models.notifications import DELIVERED, FAILED, QUEUED, RETRYING, NotificationDelivery
from webapp.notify import channels, messages
from webapp.runtime import vault
from webapp.services import outbound, paging, review_links, settings
from webapp.services.at_rest import SealedDataError, open_sealed, seal
from webapp.services.clearance import confidence_bucket

log = logging.getLogger(__name__)

KIND = "notification"
MAX_RECIPIENTS = 50
MAX_SENSITIVE_ARGS = 100
MAX_URL_CHARS = 2048
SKIPPED = "skipped"
DEFAULTS: dict[str, Any] = {
    "email_enabled": False,
    "email_recipients": [],
    "slack_enabled": False,
    "slack_webhook_sealed": "",
    "slack_webhook_masked": "",
    "sensitive_args": [],
}
# A practical addr-spec: no quoted local parts, no comments, no IP literals, no control chars
# (\Z, not $: $ would accept a trailing newline, the start of a header injection).
_EMAIL = re.compile(
    r"^(?=.{3,254}\Z)(?=[^@]{1,64}@)[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}\Z"
)


# --- settings --------------------------------------------------------------------------------


def notification_settings(client_id: str) -> dict[str, Any]:
    """The settings as the API shows them: the webhook URL masked, recipients comma-separated."""
    return _view(client_id, settings.read(client_id, KIND, DEFAULTS))


@dataclass(frozen=True)
class NotificationSettingsChange:
    """A validated partial update (``NotificationSettingsUpdate``, at the API and in the
    dashboard); None leaves a setting as it is. ``slack_webhook_url`` is as sent: "" removes
    the stored URL, and the masked form means "unchanged", so this service checks the URL."""

    email_enabled: bool | None = None
    email_recipients: list[str] | None = None
    slack_enabled: bool | None = None
    slack_webhook_url: str | None = None
    sensitive_args: list[str] | None = None


def update_notification_settings(
    client_id: str, change: NotificationSettingsChange, actor: str
) -> dict[str, Any]:
    """Apply a partial update; a change without ``slack_webhook_url`` keeps the stored one."""
    current = settings.read(client_id, KIND, DEFAULTS)
    updated = settings.merged(
        current, change, ("email_enabled", "slack_enabled", "email_recipients", "sensitive_args")
    )
    errors: list[dict[str, str]] = []
    url = change.slack_webhook_url
    if url is not None and url != current.get("slack_webhook_masked"):
        # Sending back the masked form (a form round-trip) means "unchanged".
        if not url.strip():
            updated["slack_webhook_sealed"], updated["slack_webhook_masked"] = "", ""
        else:
            problem = _check_webhook_url(url.strip())
            if problem:
                errors.append({"field": "slack_webhook_url", "message": problem})
            else:
                updated["slack_webhook_sealed"] = _seal_url(client_id, url.strip())
                updated["slack_webhook_masked"] = outbound.mask_url(url.strip())

    if not errors:
        if updated["email_enabled"] and not updated["email_recipients"]:
            errors.append(
                {
                    "field": "email_recipients",
                    "message": "at least one address is required while email_enabled",
                }
            )
        if updated["slack_enabled"] and not updated["slack_webhook_sealed"]:
            errors.append(
                {"field": "slack_webhook_url", "message": "is required while slack_enabled"}
            )
    if errors:
        raise InvalidInput(f"{errors[0]['field']}: {errors[0]['message']}", errors=errors)

    audit = _audit(current, updated)
    if audit:
        settings.write(client_id, KIND, updated, actor=actor, audit=audit)
    return _view(client_id, updated)


def email_problem() -> str:
    """Why email cannot be delivered from this installation, or "" when it can be tried."""
    if not vault().config.smtp_host:
        return "no SMTP server is configured (SMTP_HOST), so email cannot be delivered"
    return ""


def settings_warnings(stored: dict[str, Any]) -> list[dict[str, str]]:
    """What the saved settings cannot do on this installation (the save still stands: an
    operator may configure SMTP next). Shown with every read and write of the settings."""
    warnings = []
    problem = email_problem()
    if stored.get("email_enabled") and problem:
        warnings.append(
            {
                "field": "email_enabled",
                "message": f"email is on but {problem}; every email will fail until an "
                "operator sets SMTP_HOST (then send a test)",
            }
        )
    return warnings


def group_failures(rows: list[NotificationDelivery]) -> list[dict[str, Any]]:
    """The delivery log for people: consecutive failures of one channel and target with the
    same error fold into one entry with a count and a time span (newest first, as given)."""
    entries: list[dict[str, Any]] = []
    for row in rows:
        if entries and _folds(entries[-1], row):
            entries[-1]["count"] += 1
            entries[-1]["oldest"] = row.created_at
        else:
            entries.append({"delivery": row, "count": 1, "oldest": row.created_at})
    return entries


GROUP_BATCH = 200
GROUP_SCAN_LIMIT = 5000


def delivery_groups(
    client_id: str, *, limit: int, cursor: dict[str, Any] | None
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """One page of the grouped delivery log: ``limit`` entries, each a delivery or a run of
    repeated failures (see ``group_failures``), newest first; returns (entries, next cursor).

    A page ends between two entries, so a run is never split across pages, except a run
    longer than GROUP_SCAN_LIMIT rows, which goes on as a new entry on the next page.
    """
    entries: list[dict[str, Any]] = []
    position, scanned, last = cursor, 0, None
    while True:
        rows, following = list_deliveries(client_id, limit=GROUP_BATCH, cursor=position)
        for row in rows:
            if entries and _folds(entries[-1], row):
                entries[-1]["count"] += 1
                entries[-1]["oldest"] = row.created_at
            elif len(entries) == limit:
                return entries, _position(last)
            else:
                entries.append({"delivery": row, "count": 1, "oldest": row.created_at})
            last = row
            scanned += 1
            if scanned >= GROUP_SCAN_LIMIT:
                return entries, _position(last) if (following or row is not rows[-1]) else None
        if following is None:
            return entries, None
        position = following


def delivery_group_view(entry: dict[str, Any]) -> dict[str, Any]:
    """One entry of the grouped log as the API shows it: the newest delivery of the run, how
    many it stands for, and the run's time span."""
    return {
        "count": entry["count"],
        "first_at": iso(entry["oldest"]),
        "last_at": iso(entry["delivery"].created_at),
        "delivery": delivery_view(entry["delivery"]),
    }


def _folds(entry: dict[str, Any], row: NotificationDelivery) -> bool:
    newest = entry["delivery"]
    return (
        row.status == FAILED
        and newest.status == FAILED
        and (newest.channel, newest.target, newest.last_error)
        == (row.channel, row.target, row.last_error)
    )


def _position(row: NotificationDelivery | None) -> dict[str, Any] | None:
    return None if row is None else {"t": iso(row.created_at), "id": row.delivery_id}


def is_valid_email(value: str) -> bool:
    """Whether ``value`` is one address this service accepts (also used for reviewer_email)."""
    return bool(_EMAIL.match(value))


def webhook_url(client_id: str) -> str:
    """The decrypted webhook URL, or "" when none is stored (or it no longer opens)."""
    sealed = settings.read(client_id, KIND, DEFAULTS).get("slack_webhook_sealed") or ""
    if not sealed:
        return ""
    try:
        return open_sealed(vault().transport_key, _associated(client_id), base64.b64decode(sealed))
    except (SealedDataError, ValueError):
        log.error("the stored webhook URL of %s does not open (key changed?)", client_id)
        return ""


# --- notifying -------------------------------------------------------------------------------


def notify_pending_review(request: ClearanceRequest) -> list[NotificationDelivery]:
    """After-transition hook: queue one delivery per enabled channel for a new pending review."""
    if request.status != PENDING_REVIEW:
        return []
    return _queue_deliveries(request.client_id, "review.pending", request.request_id)


def queue_event(client_id: str, event: str, subject_id: str) -> list[NotificationDelivery]:
    """Queue one delivery per enabled channel for an event kind registered with
    ``register_messages`` (``drift.detected``…); ``subject_id`` names what it is about."""
    if event not in EVENT_MESSAGES:
        raise ValueError(f"no messages are registered for {event}")
    return _queue_deliveries(client_id, event, subject_id)


# Event kinds other than review.pending bring their own messages: event → build(delivery),
# returning (email(sender, recipients) → EmailMessage, chat payload); raise LookupError when
# the subject is gone. Registered explicitly by create_app.
EVENT_MESSAGES: dict[str, Any] = {}


def register_messages(event: str, build: Any) -> None:
    EVENT_MESSAGES[event] = build


def send_test(client_id: str) -> list[NotificationDelivery]:
    """Queue a test message on each enabled channel (400 when none is enabled)."""
    deliveries = _queue_deliveries(client_id, "test", "")
    if not deliveries:
        raise InvalidInput(
            "no notification channel is enabled",
            errors=[{"field": "email_enabled", "message": "enable email or slack first"}],
        )
    return deliveries


def queue_email(
    client_id: str, event: str, subject_id: str, recipients: list[str]
) -> list[NotificationDelivery]:
    """Queue one email to explicit recipients about another kind of subject (`report.ready`:
    `subject_id` is the report id, kept in `request_id`); same retries and delivery log."""
    intervals = retry_intervals()
    now = utcnow()
    delivery = NotificationDelivery(
        delivery_id=new_id("ntf"),
        client_id=client_id,
        request_id=subject_id,
        event=event,
        channel="email",
        target=", ".join(recipients),
        recipients=list(recipients),
        status=QUEUED,
        attempts=0,
        max_attempts=len(intervals) + 1,
        attempt_log=[],
        last_error="",
        created_at=now,
        updated_at=now,
    )
    db.session.add(delivery)
    db.session.commit()  # commit, then enqueue: the job must find its row
    try:
        _enqueue(delivery, intervals)
    except redis.RedisError:
        log.warning("could not queue notification %s", delivery.delivery_id)
        _record(delivery, utcnow(), FAILED, "the notification queue is unavailable", counted=False)
    return [delivery]


def retry_intervals() -> list[int]:
    """Seconds before each retry (``VAULT_NOTIFY_RETRY_INTERVALS``)."""
    return outbound.retry_intervals()


def attempt_delivery(delivery_id: str, *, final_attempt: bool) -> str:
    """Make one attempt; returns ``delivered``, ``retry``, ``failed`` or ``skipped``.

    ``retry`` means this attempt failed and the caller (the RQ job) should fail so that RQ
    retries it; the row already says ``retrying``.
    """
    delivery = db.session.get(NotificationDelivery, delivery_id)
    if delivery is None or delivery.status in (DELIVERED, FAILED, SKIPPED):
        return "skipped"
    started = utcnow()
    try:
        detail = _send(delivery)
    except _Skip as skip:
        _record(delivery, started, SKIPPED, str(skip))
        return "skipped"
    except channels.DeliveryError as error:
        retry = error.retryable and not final_attempt
        _record(delivery, started, RETRYING if retry else FAILED, str(error))
        return "retry" if retry else "failed"
    except Exception as error:  # noqa: BLE001 - a bug in one delivery must still be logged
        log.exception("notification %s crashed", delivery_id)
        retry = not final_attempt
        _record(
            delivery,
            started,
            RETRYING if retry else FAILED,
            f"internal error ({type(error).__name__})",
        )
        return "retry" if retry else "failed"
    _record(delivery, started, DELIVERED, detail)
    return "delivered"


def list_deliveries(
    client_id: str,
    *,
    limit: int,
    cursor: dict[str, Any] | None,
    request_id: str = "",
    status: str = "",
) -> tuple[list[NotificationDelivery], dict[str, Any] | None]:
    """The delivery log, newest first; returns (rows, next cursor position)."""
    query = NotificationDelivery.for_tenant(client_id)
    if request_id:
        query = query.where(NotificationDelivery.request_id == request_id)
    if status:
        query = query.where(NotificationDelivery.status == status)
    return paging.newest_first(
        query,
        NotificationDelivery.created_at,
        NotificationDelivery.delivery_id,
        limit=limit,
        cursor=cursor,
    )


def delivery_view(delivery: NotificationDelivery) -> dict[str, Any]:
    """One entry of the delivery log as the API shows it."""
    return {
        "delivery_id": delivery.delivery_id,
        "request_id": delivery.request_id,
        "event": delivery.event,
        "channel": delivery.channel,
        "target": delivery.target,
        "status": delivery.status,
        "attempts": delivery.attempts,
        "max_attempts": delivery.max_attempts,
        "last_error": delivery.last_error,
        "attempt_log": list(delivery.attempt_log or []),
        "created_at": iso(delivery.created_at),
        "updated_at": iso(delivery.updated_at),
        "delivered_at": iso(delivery.delivered_at),
    }


# --- helpers ---------------------------------------------------------------------------------


class _Skip(Exception):
    """Nothing to send any more (the request was decided, the channel switched off)."""


def _queue_deliveries(client_id: str, event: str, request_id: str) -> list[NotificationDelivery]:
    current = settings.read(client_id, KIND, DEFAULTS)
    intervals = retry_intervals()
    now = utcnow()
    deliveries = []
    if current["email_enabled"] and current["email_recipients"]:
        deliveries.append(
            NotificationDelivery(
                delivery_id=new_id("ntf"),
                client_id=client_id,
                request_id=request_id,
                event=event,
                channel="email",
                target=", ".join(current["email_recipients"]),
                recipients=list(current["email_recipients"]),
            )
        )
    if current["slack_enabled"] and current["slack_webhook_sealed"]:
        deliveries.append(
            NotificationDelivery(
                delivery_id=new_id("ntf"),
                client_id=client_id,
                request_id=request_id,
                event=event,
                channel="slack",
                target=current["slack_webhook_masked"],
                recipients=[],
            )
        )
    for delivery in deliveries:
        delivery.status = QUEUED
        delivery.attempts = 0
        delivery.max_attempts = len(intervals) + 1
        delivery.attempt_log = []
        delivery.last_error = ""
        delivery.created_at = delivery.updated_at = now
        db.session.add(delivery)
    if not deliveries:
        return []
    db.session.commit()  # commit, then enqueue: the job must find its row
    for delivery in deliveries:
        try:
            _enqueue(delivery, intervals)
        except redis.RedisError:
            log.warning("could not queue notification %s", delivery.delivery_id)
            _record(
                delivery, utcnow(), FAILED, "the notification queue is unavailable", counted=False
            )
    return deliveries


def _enqueue(delivery: NotificationDelivery, intervals: list[int]) -> None:
    from webapp import queueing

    queueing.deliver_notification(
        delivery.delivery_id, delivery.client_id, delivery.channel, intervals
    )


def _send(delivery: NotificationDelivery) -> str:
    config = vault().config
    if delivery.event == "report.ready":
        return _send_report_ready(delivery, config)
    current = settings.read(delivery.client_id, KIND, DEFAULTS)
    if delivery.event in EVENT_MESSAGES:
        return _send_registered(delivery, current, EVENT_MESSAGES[delivery.event])
    notice = _notice(delivery, current)
    if delivery.channel == "email":
        if not current["email_enabled"] and delivery.event != "test":
            raise _Skip("email notifications were switched off")
        message = messages.email_message(
            notice, sender=config.smtp_from, recipients=delivery.recipients
        )
        refused = channels.send_email(config, message, delivery.recipients)
        return f"refused by the server: {', '.join(refused)}" if refused else ""
    if delivery.channel == "slack":
        if not current["slack_enabled"] and delivery.event != "test":
            raise _Skip("chat notifications were switched off")
        url = webhook_url(delivery.client_id)
        if not url:
            raise channels.DeliveryError("no webhook URL is stored", retryable=False)
        status = channels.post_webhook(
            url, messages.slack_payload(notice), allow_private=config.webhook_allow_private
        )
        return f"HTTP {status}"
    raise channels.DeliveryError(f"unknown channel {delivery.channel}", retryable=False)


def _send_registered(delivery: NotificationDelivery, current: dict[str, Any], build: Any) -> str:
    config = vault().config
    try:
        email, chat = build(delivery)
    except LookupError as gone:
        raise _Skip(str(gone)) from None
    if delivery.channel == "email":
        if not current["email_enabled"]:
            raise _Skip("email notifications were switched off")
        message = email(config.smtp_from, delivery.recipients)
        refused = channels.send_email(config, message, delivery.recipients)
        return f"refused by the server: {', '.join(refused)}" if refused else ""
    if delivery.channel == "slack":
        if not current["slack_enabled"]:
            raise _Skip("chat notifications were switched off")
        url = webhook_url(delivery.client_id)
        if not url:
            raise channels.DeliveryError("no webhook URL is stored", retryable=False)
        status = channels.post_webhook(url, chat, allow_private=config.webhook_allow_private)
        return f"HTTP {status}"
    raise channels.DeliveryError(f"unknown channel {delivery.channel}", retryable=False)


def _send_report_ready(delivery: NotificationDelivery, config: Any) -> str:
    from email.message import EmailMessage
    from email.utils import formatdate, make_msgid

    from webapp.errors import NotFound
    from webapp.services import reports

    try:
        subject, text, body = reports.ready_email(delivery.request_id, delivery.client_id)
    except NotFound:
        raise _Skip("the report no longer exists") from None
    message = EmailMessage()
    message["Subject"] = subject
    message["From"] = config.smtp_from
    message["To"] = ", ".join(delivery.recipients)
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid(domain=config.smtp_from.rpartition("@")[2] or "vault")
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(text)
    message.add_alternative(body, subtype="html")
    refused = channels.send_email(config, message, delivery.recipients)
    return f"refused by the server: {', '.join(refused)}" if refused else ""


def _notice(delivery: NotificationDelivery, current: dict[str, Any]) -> messages.ReviewNotice:
    config = vault().config
    if delivery.event == "test":
        return messages.build_notice(
            request_id="",
            tool_name="test",
            tool_args={},
            agent_id="",
            session_id="",
            policy_id="",
            reason="",
            reason_code="",
            confidence=0.0,
            confidence_bucket="none",
            threshold=0.0,
            threshold_bucket="none",
            public_url=config.public_url,
            sensitive_args=[],
            is_test=True,
        )
    request = db.session.get(ClearanceRequest, delivery.request_id)
    if request is None or request.client_id != delivery.client_id:
        raise _Skip("the request no longer exists")
    if request.status != PENDING_REVIEW:
        raise _Skip(f"the request was already decided ({request.status}, {request.reason_code})")
    expires = ""
    if request.review_started_at is not None:
        expires = (
            iso(request.review_started_at + timedelta(seconds=config.review_ttl_seconds)) or ""
        )
    return messages.build_notice(
        request_id=request.request_id,
        tool_name=request.tool_name,
        tool_args=request.tool_args or {},
        agent_id=request.agent_id,
        session_id=request.session_id,
        policy_id=request.policy_id,
        reason=request.reason,
        reason_code=request.reason_code,
        confidence=request.confidence,
        confidence_bucket=confidence_bucket(request.confidence),
        threshold=request.threshold,
        threshold_bucket=confidence_bucket(request.threshold),
        public_url=config.public_url,
        sensitive_args=current.get("sensitive_args") or [],
        expires_at=expires,
        citations=[c.get("text", "") for c in (request.citations or []) if isinstance(c, dict)],
        link=review_links.link(config.public_url, request.client_id, request.request_id),
    )


def _record(
    delivery: NotificationDelivery,
    started: datetime,
    status: str,
    detail: str,
    counted: bool = True,
) -> None:
    outbound.record_attempt(
        delivery, started, status, detail, counted=counted, skip_detail_is_error=True
    )
    db.session.commit()


def _check_webhook_url(url: str) -> str:
    """Why the URL cannot be stored, or "" when it can."""
    if len(url) > MAX_URL_CHARS:
        return f"must be at most {MAX_URL_CHARS} characters"
    allow_private = vault().config.webhook_allow_private
    scheme = url.split(":", 1)[0].lower()
    # http only in development and tests, where the receiving server is a local one.
    if scheme != "https" and not (scheme == "http" and allow_private):
        return "must be an https URL"
    try:
        outbound.check_url(url, allow_private=allow_private)
    except outbound.OutboundRefused as refused:
        return refused.detail
    return ""


def _seal_url(client_id: str, url: str) -> str:
    return base64.b64encode(seal(vault().transport_key, _associated(client_id), url)).decode()


def _associated(client_id: str) -> str:
    # Bound to the tenant: a sealed URL copied into another tenant's settings does not open.
    return f"notification-webhook\x00{client_id}"


def _view(client_id: str, stored: dict[str, Any]) -> dict[str, Any]:
    return {
        "client_id": client_id,
        "email_enabled": bool(stored["email_enabled"]),
        "email_recipients": ",".join(stored["email_recipients"]),
        "slack_enabled": bool(stored["slack_enabled"]),
        "slack_webhook_url": stored["slack_webhook_masked"],
        "sensitive_args": list(stored["sensitive_args"]),
        "warnings": settings_warnings(stored),
    }


def _audit(current: dict[str, Any], updated: dict[str, Any]) -> dict[str, Any]:
    """What changed, for the settings_changed ledger event: never the URL, no addresses."""
    audit: dict[str, Any] = {}
    for name in ("email_enabled", "slack_enabled"):
        if current[name] != updated[name]:
            audit[name] = {"from": current[name], "to": updated[name]}
    if current["email_recipients"] != updated["email_recipients"]:
        audit["email_recipients"] = {
            "from_count": len(current["email_recipients"]),
            "to_count": len(updated["email_recipients"]),
        }
    if current["slack_webhook_sealed"] != updated["slack_webhook_sealed"]:
        audit["slack_webhook_url"] = {"changed": True, "set": bool(updated["slack_webhook_sealed"])}
    if current["sensitive_args"] != updated["sensitive_args"]:
        audit["sensitive_args"] = {
            "from": current["sensitive_args"],
            "to": updated["sensitive_args"],
        }
    return audit
