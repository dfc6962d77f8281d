"""Compliance reports (CONTRACT §9): settings, generation as a job, artifacts and share links.

A report row is committed as `queued`, then a job builds it (`build_report`): the content is
gathered (`report_content`), rendered (`report_render`), each artifact's SHA-256 recorded, and a
`report_generated` ledger event carrying those hashes is written in the same transaction that
makes the report `ready`. A share link is an opaque token, HMAC-signed with a key derived from
the server secret, carrying its id and expiry; a row per link allows revocation. Every way a
token can be wrong answers the same 404.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import redis

from webapp.errors import Conflict, NotFound, Unavailable
from webapp.extensions import db
from webapp.models import iso, new_id, utcnow
from webapp.models.reports import (
    REPORT_FAILED,
    REPORT_QUEUED,
    REPORT_READY,
    REPORT_RUNNING,
    Report,
    ReportArtifact,
    ReportShare,
)
from webapp.runtime import vault
from webapp.secrets import derived_key
from webapp.services import idempotency, paging, report_content, report_render, sealing, settings
from webapp.services.canonical import body_fingerprint
from webapp.services.ledger import EventContent, append_event

log = logging.getLogger(__name__)

KIND = "report"
FORMATS = ("pdf", "json")
FREQUENCIES = ("weekly", "monthly", "quarterly")
DEFAULTS: dict[str, Any] = {
    "enabled": False,
    "frequency": "monthly",
    "formats": ["pdf", "json"],
    "recipients": [],
}
DEFAULT_PERIOD = timedelta(days=30)
MAX_PERIOD = timedelta(days=366)
CLOCK_SKEW = timedelta(seconds=60)  # a period may end "now" by a client clock a little ahead
DEFAULT_SHARE_SECONDS = 7 * 86400
MAX_SHARE_SECONDS = 90 * 86400
MIN_SHARE_SECONDS = 60
RETRY_AFTER_SECONDS = 5
IDEMPOTENCY_SCOPE = "reports"
_TOKEN_VERSION = b"\x01"
_TOKEN_ID_BYTES = 16
_TOKEN_MAC_BYTES = 32
_TOKEN_BYTES = 1 + _TOKEN_ID_BYTES + 8 + _TOKEN_MAC_BYTES
NOT_SHARED = "no such shared report"


# --- settings ----------------------------------------------------------------------------------


def report_settings(client_id: str) -> dict[str, Any]:
    """CONTRACT §7 "Report"."""
    return _settings_view(settings.read(client_id, KIND, DEFAULTS))


@dataclass(frozen=True)
class ReportSettingsChange:
    """A validated partial update (``ReportSettingsBody``, at the API and in the dashboard):
    formats known and in canonical order, recipients valid addresses without repeats; None
    leaves a setting as it is."""

    enabled: bool | None = None
    frequency: str | None = None
    formats: list[str] | None = None
    recipients: list[str] | None = None


def update_report_settings(
    client_id: str, change: ReportSettingsChange, actor: str
) -> dict[str, Any]:
    """Apply a partial update; each change is a `settings_changed` event."""
    current = settings.read(client_id, KIND, DEFAULTS)
    updated = settings.merged(current, change, ("enabled", "frequency", "formats", "recipients"))
    # Recipients are counted, not listed: addresses stay out of the ledger.
    audit = settings.changed(current, updated, ("enabled", "frequency", "formats"))
    if current.get("recipients") != updated["recipients"]:
        audit["recipients"] = {
            "from_count": len(current.get("recipients") or []),
            "to_count": len(updated["recipients"]),
        }
    if audit:
        settings.write(client_id, KIND, updated, actor=actor, audit=audit)
    return _settings_view(updated)


def _settings_view(stored: dict[str, Any]) -> dict[str, Any]:
    return {
        "enabled": bool(stored["enabled"]),
        "frequency": stored["frequency"],
        "formats": [f for f in FORMATS if f in stored["formats"]],
        "recipients": list(stored["recipients"]),
    }


# --- reports -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewReport:
    """A validated report request (``NewReportBody``): the period as sent (None: the default,
    the last 30 days up to now), already checked against now; formats known, in canonical
    order (None: the tenant's configured formats)."""

    period_start: datetime | None = None
    period_end: datetime | None = None
    formats: list[str] | None = None


def request_report(
    client_id: str,
    new: NewReport,
    *,
    actor: str,
    trigger: str = "api",
    idempotency_key: str | None = None,
) -> Report:
    """Commit a `queued` report, then queue its build.

    The same Idempotency-Key with the same request answers the report it created (CONTRACT §1).
    """
    fingerprint = body_fingerprint(
        {
            "period_start": iso(new.period_start) if new.period_start else None,
            "period_end": iso(new.period_end) if new.period_end else None,
            "formats": new.formats,
        }
    )
    report, fresh = idempotency.in_transaction(
        client_id,
        IDEMPOTENCY_SCOPE,
        idempotency_key,
        fingerprint,
        lambda: _stage_report(client_id, new, actor=actor, trigger=trigger),
        lambda record: (Report.get_for_tenant(client_id, record.resource_id, "report"), False),
    )
    if not fresh:
        return report
    # Committed with its key; now queue its build: the job must find its row.
    try:
        _enqueue_build(report)
    except redis.RedisError:
        log.warning("could not queue report %s", report.report_id)
        _fail(report.report_id, "the report queue is unavailable")
        raise Unavailable(
            "the report queue is unavailable; try again", headers={"Retry-After": "5"}
        ) from None
    return report


def _stage_report(client_id: str, new: NewReport, *, actor: str, trigger: str):  # noqa: ANN202
    """Add a `queued` report (no commit); (its id, (report, True))."""
    end = new.period_end or utcnow()
    start = new.period_start or end - DEFAULT_PERIOD
    formats = new.formats or report_settings(client_id)["formats"]
    report = Report(
        report_id=new_id("rpt"),
        client_id=client_id,
        type="sox_404",
        status=REPORT_QUEUED,
        stage="queued",
        progress=0,
        error="",
        period_start=start,
        period_end=end,
        formats=formats,
        summary={},
        trigger=trigger,
        created_by=actor,
        ledger_event_uuid="",
        created_at=utcnow(),
    )
    db.session.add(report)
    return report.report_id, (report, True)


def get_report(client_id: str, report_id: str) -> Report:
    """One report of this tenant, or 404 (the same for another tenant's)."""
    return Report.get_for_tenant(client_id, report_id, "report")


def list_reports(
    client_id: str, *, limit: int, cursor: dict[str, Any] | None
) -> tuple[list[Report], dict[str, Any] | None]:
    """Newest first; returns (reports, next cursor position or None)."""
    query = Report.for_tenant(client_id)
    return paging.newest_first(
        query, Report.created_at, Report.report_id, limit=limit, cursor=cursor
    )


def report_view(report: Report, *, with_shares: bool = True) -> dict[str, Any]:
    """CONTRACT §9 record, plus `progress`, `stage` and `error` for the dashboard."""
    return report_views([report], with_shares=with_shares)[0]


def report_views(rows: list[Report], *, with_shares: bool = True) -> list[dict[str, Any]]:
    """The records of a page of reports (of one tenant), with two queries in all."""
    if not rows:
        return []
    client_id = rows[0].client_id
    ids = [row.report_id for row in rows]
    artifacts: dict[str, list[dict[str, Any]]] = {report_id: [] for report_id in ids}
    for report_id, fmt, size, digest in db.session.execute(
        db.select(
            ReportArtifact.report_id,
            ReportArtifact.format,
            ReportArtifact.size_bytes,
            ReportArtifact.sha256,
        )
        .where(ReportArtifact.client_id == client_id, ReportArtifact.report_id.in_(ids))
        .order_by(ReportArtifact.report_id, ReportArtifact.format)
    ):
        artifacts[report_id].append({"format": fmt, "size_bytes": size, "sha256": digest})
    shares: dict[str, list[dict[str, Any]]] = {report_id: [] for report_id in ids}
    if with_shares:
        for share in active_shares(client_id, ids):
            shares[share.report_id].append(share_view(share))
    views = []
    for report in rows:
        view: dict[str, Any] = {
            "report_id": report.report_id,
            "type": report.type,
            "status": report.status,
            "period_start": iso(report.period_start),
            "period_end": iso(report.period_end),
            "created_at": iso(report.created_at),
            "completed_at": iso(report.completed_at),
            "formats": list(report.formats),
            "artifacts": artifacts[report.report_id],
            "summary": dict(report.summary or {}),
            "progress": report.progress,
            "stage": report.stage,
            "error": report.error,
            "trigger": report.trigger,
            "ledger_event_uuid": report.ledger_event_uuid or None,
        }
        if with_shares:
            view["shares"] = shares[report.report_id]
        views.append(view)
    return views


def artifact(client_id: str, report_id: str, fmt: str) -> ReportArtifact:
    """An artifact's bytes: 409 with Retry-After while not ready, 404 for a format not made."""
    report = get_report(client_id, report_id)
    return _artifact_of(report, fmt)


def _artifact_of(report: Report, fmt: str) -> ReportArtifact:
    if fmt not in FORMATS:
        raise NotFound(f"unknown format {fmt[:40]!r}; reports come as pdf or json")
    if report.status in (REPORT_QUEUED, REPORT_RUNNING):
        raise Conflict(
            f"the report is {report.status}; try again shortly",
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    if report.status != REPORT_READY:
        raise NotFound("the report failed and has no artifacts")
    row = db.session.get(ReportArtifact, (report.report_id, fmt))
    if row is None or row.client_id != report.client_id:
        raise NotFound(f"this report was not generated as {fmt}")
    return row


# --- building (the job calls this) -------------------------------------------------------------


def build_report(report_id: str) -> str:
    """Gather, render, hash and record one report; returns its final status."""
    report = db.session.get(Report, report_id)
    if report is None or report.status not in (REPORT_QUEUED, REPORT_RUNNING):
        return "skipped"
    report.status, report.stage, report.progress = REPORT_RUNNING, "gathering", 5
    report.started_at = utcnow()
    db.session.commit()
    client_id = report.client_id
    try:
        # Seal what is pending first, so that the attestation covers every event of the
        # period that exists now (sealing is idempotent and takes the tenant's seal lock).
        _progress(report_id, "sealing", 8)
        sealing.seal_and_queue_exports(client_id)
        document = report_content.collect(
            client_id,
            report_id=report_id,
            period_start=report.period_start,
            period_end=report.period_end,
            seed=secrets.token_hex(16),
            progress=lambda stage, percent: _progress(report_id, stage, percent),
        )
        _progress(report_id, "rendering", 80)
        rendered = {fmt: report_render.render(document, fmt) for fmt in report.formats}
        report = db.session.get(Report, report_id)
        hashes = []
        for fmt, data in rendered.items():
            digest = hashlib.sha256(data).hexdigest()
            hashes.append({"format": fmt, "sha256": digest})
            db.session.add(
                ReportArtifact(
                    report_id=report_id,
                    format=fmt,
                    client_id=client_id,
                    content_type=report_render.CONTENT_TYPES[fmt],
                    size_bytes=len(data),
                    sha256=digest,
                    data=data,
                    created_at=utcnow(),
                )
            )
        event = append_event(
            client_id,
            EventContent(
                action_category="report_generated",
                reason=f"sox_404 report {report_id} generated",
                action_metadata={
                    "report_id": report_id,
                    "period_start": iso(report.period_start),
                    "period_end": iso(report.period_end),
                    "artifacts": hashes,
                },
            ),
        )
        report.ledger_event_uuid = event.event_uuid
        report.summary = document["summary"]
        report.status, report.stage, report.progress = REPORT_READY, "ready", 100
        report.completed_at = utcnow()
        db.session.commit()
        ready = report
    except Exception as error:  # noqa: BLE001 - any failure leaves a failed report, never half
        db.session.rollback()
        log.exception("report %s failed", report_id)
        _fail(report_id, f"generation failed ({type(error).__name__})")
        return REPORT_FAILED
    try:
        announce_ready(ready)
    except Exception:  # noqa: BLE001 - the report is ready; a lost email is logged, not fatal
        db.session.rollback()
        log.exception("could not queue the report.ready email for %s", report_id)
    return REPORT_READY


def _progress(report_id: str, stage: str, percent: int) -> None:
    # A short transaction of its own, so that the dashboard sees the stage while the job runs.
    db.session.query(Report).filter(Report.report_id == report_id).update(
        {"stage": stage, "progress": percent}
    )
    db.session.commit()


def _fail(report_id: str, message: str) -> None:
    report = db.session.get(Report, report_id)
    if report is None:
        return
    report.status, report.stage, report.error = REPORT_FAILED, "failed", message
    report.completed_at = utcnow()
    db.session.commit()


def _enqueue_build(report: Report) -> None:
    from webapp import queueing

    queueing.build_report(report.report_id, report.client_id)


# --- schedules and the report.ready email -----------------------------------------------------


def due_period(frequency: str, now: datetime) -> tuple[datetime, datetime]:
    """The last whole period before `now` (UTC): the previous ISO week (Monday to Monday), the
    previous calendar month, or the previous calendar quarter."""
    today = datetime(now.year, now.month, now.day, tzinfo=UTC)
    if frequency == "weekly":
        end = today - timedelta(days=today.weekday())
        return end - timedelta(days=7), end
    if frequency == "monthly":
        end = today.replace(day=1)
        return _months_before(end, 1), end
    if frequency == "quarterly":
        end = today.replace(day=1, month=((today.month - 1) // 3) * 3 + 1)
        return _months_before(end, 3), end
    raise ValueError(f"unknown frequency {frequency}")


def _months_before(moment: datetime, months: int) -> datetime:
    index = moment.year * 12 + (moment.month - 1) - months
    return moment.replace(year=index // 12, month=index % 12 + 1)


def run_schedules(now: datetime | None = None) -> list[str]:
    """Queue the due report of every tenant whose schedule is enabled, once per period;
    returns the new report ids. Idempotent: a period already reported is skipped."""
    from webapp.models import TenantSetting

    now = now or utcnow()
    created = []
    rows = list(db.session.scalars(db.select(TenantSetting).where(TenantSetting.kind == KIND)))
    for row in rows:
        current = {**DEFAULTS, **(row.value or {})}
        if not current["enabled"]:
            continue
        start, end = due_period(current["frequency"], now)
        exists = db.session.scalar(
            Report.for_tenant(row.client_id)
            .where(
                Report.trigger == "schedule",
                Report.period_start == start,
                Report.period_end == end,
            )
            .limit(1)
        )
        if exists is not None:
            continue
        new = NewReport(start, end, [f for f in FORMATS if f in current["formats"]])
        report = request_report(row.client_id, new, actor="schedule", trigger="schedule")
        created.append(report.report_id)
    return created


def announce_ready(report: Report) -> None:
    """Queue the `report.ready` email to the configured recipients (none: nothing to send),
    and the `report.ready` webhook event (CONTRACT §14) to the endpoints that want it."""
    from webapp.services import notifications, webhooks

    try:
        webhooks.emit(
            report.client_id,
            "report.ready",
            {
                "report_id": report.report_id,
                "type": report.type,
                "period_start": iso(report.period_start),
                "period_end": iso(report.period_end),
                "formats": list(report.formats),
                "completed_at": iso(report.completed_at),
            },
        )
    except Exception:  # noqa: BLE001 - a lost webhook must not cost the email
        log.exception("could not queue the report.ready webhook for %s", report.report_id)
    recipients = report_settings(report.client_id)["recipients"]
    if recipients:
        notifications.queue_email(report.client_id, "report.ready", report.report_id, recipients)


def ready_email(report_id: str, client_id: str) -> tuple[str, str, str]:
    """(subject, text, html) of the `report.ready` email. It links to the dashboard only:
    share tokens are never stored, so no public link can leak through it."""
    import html

    report = get_report(client_id, report_id)
    url = f"{vault().config.public_url.rstrip('/')}/dashboard/reports/{report.report_id}"
    period = f"{iso(report.period_start)[:10]} to {iso(report.period_end)[:10]} (end excluded)"
    summary = report.summary or {}
    facts = [
        ("Period", period),
        ("Decisions", str(summary.get("decisions", 0))),
        ("Manual reviews", str(summary.get("manual_reviews", 0))),
        ("Exceptions", str(summary.get("exceptions", 0))),
        ("Ledger intact", "yes" if summary.get("ledger_intact") else "NO"),
    ]
    subject = f"[Clearance Vault] SOX 404 report ready: {period}"
    text = "\n".join(
        [
            "A compliance report is ready.",
            "",
            *(f"{label + ':':<16}{value}" for label, value in facts),
            "",
            f"Open it in the dashboard: {url}",
            "",
        ]
    )
    rows = "".join(
        f"<tr><th align='left'>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
        for k, v in facts
    )
    body = (
        f"<p>A compliance report is ready.</p><table>{rows}</table>"
        f"<p><a href='{html.escape(url)}'>Open it in the dashboard</a></p>"
    )
    return subject, text, body


# --- share links -------------------------------------------------------------------------------


def share_report(
    client_id: str, report_id: str, seconds: int = DEFAULT_SHARE_SECONDS, *, actor: str
) -> dict[str, Any]:
    """A new share link valid for ``seconds`` (validated at the edge: ``ShareBody``):
    `{token, url, expires_at, token_id}`; the token is shown only here."""
    report = get_report(client_id, report_id)
    if report.status != REPORT_READY:
        raise Conflict(f"only a ready report can be shared (this one is {report.status})")
    now = utcnow().replace(microsecond=0)
    expires_at = now + timedelta(seconds=seconds)
    raw_id = secrets.token_bytes(_TOKEN_ID_BYTES)
    token = _sign_token(raw_id, expires_at)
    share = ReportShare(
        token_id=_token_id(raw_id),
        client_id=client_id,
        report_id=report.report_id,
        token_hash=hashlib.sha256(token.encode()).hexdigest(),
        created_by=actor,
        created_at=utcnow(),
        expires_at=expires_at,
        revoked_by="",
    )
    db.session.add(share)
    db.session.commit()
    return {
        "token": token,
        "url": shared_url(token),
        "expires_at": iso(expires_at),
        "token_id": share.token_id,
    }


def shared_url(token: str) -> str:
    return f"{vault().config.public_url.rstrip('/')}/reports/shared/{token}"


def revoke_share(client_id: str, report_id: str, token_or_id: str, *, actor: str) -> dict[str, Any]:
    """Revoke a link named by its token or its `token_id`; idempotent; 404 if unknown."""
    get_report(client_id, report_id)
    token_id = token_or_id
    raw = _unsigned_token_id(token_or_id)
    if raw is not None:
        token_id = _token_id(raw)
    share = db.session.get(ReportShare, token_id) if len(token_id) <= 64 else None
    if share is None or share.client_id != client_id or share.report_id != report_id:
        raise NotFound("no such share link")
    if share.revoked_at is None:
        share.revoked_at = utcnow()
        share.revoked_by = actor
        db.session.commit()
    return share_view(share)


def active_shares(client_id: str, report_ids: list[str]) -> list[ReportShare]:
    """The unrevoked, unexpired links of these reports, oldest first."""
    return list(
        db.session.scalars(
            ReportShare.for_tenant(client_id)
            .where(
                ReportShare.report_id.in_(report_ids),
                ReportShare.revoked_at.is_(None),
                ReportShare.expires_at > utcnow(),
            )
            .order_by(ReportShare.created_at)
        )
    )


def share_view(share: ReportShare) -> dict[str, Any]:
    """A link as listed: never the token itself."""
    return {
        "token_id": share.token_id,
        "expires_at": iso(share.expires_at),
        "created_at": iso(share.created_at),
        "created_by": share.created_by,
        "revoked_at": iso(share.revoked_at),
    }


def resolve_share(token: str) -> Report:
    """The ready report a valid, unexpired, unrevoked token shares; else the one 404."""
    raw = _verified_token(token)
    if raw is None:
        raise NotFound(NOT_SHARED)
    raw_id, expires = raw
    if expires <= utcnow():
        raise NotFound(NOT_SHARED)
    share = db.session.get(ReportShare, _token_id(raw_id))
    digest = hashlib.sha256(token.encode()).hexdigest()
    if (
        share is None
        or not hmac.compare_digest(share.token_hash, digest)
        or share.revoked_at is not None
        or share.expires_at <= utcnow()
    ):
        raise NotFound(NOT_SHARED)
    report = db.session.get(Report, share.report_id)
    if report is None or report.client_id != share.client_id or report.status != REPORT_READY:
        raise NotFound(NOT_SHARED)
    return report


def shared_artifact(token: str, fmt: str) -> ReportArtifact:
    return _artifact_of(resolve_share(token), fmt)


def shared_view(token: str) -> dict[str, Any]:
    """What an auditor gets: the record, and the proof material to check it offline."""
    from webapp.services import keys, proofs

    report = resolve_share(token)
    record = report_view(report, with_shares=False)
    record.pop("trigger", None)
    verification: dict[str, Any] = {"sealed": False, "bundle": None}
    if report.ledger_event_uuid:
        try:
            bundle = proofs.proof_bundle(report.client_id, event_uuid=report.ledger_event_uuid)
            verification = {"sealed": True, "bundle": bundle}
        except (Conflict, Unavailable):
            verification = {"sealed": False, "bundle": None}
    verification["jwks"] = keys.jwks()
    return {"report": record, "verification": verification}


def _sign_token(raw_id: bytes, expires_at: datetime) -> str:
    body = _TOKEN_VERSION + raw_id + int(expires_at.timestamp()).to_bytes(8, "big")
    mac = hmac.new(_share_key(), b"report-share\x00" + body, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(body + mac).decode().rstrip("=")


def _decode(token: str) -> bytes | None:
    if not isinstance(token, str) or len(token) != 76:
        return None
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (ValueError, UnicodeEncodeError):
        return None
    if len(raw) != _TOKEN_BYTES or raw[:1] != _TOKEN_VERSION:
        return None
    # Only the canonical encoding: another spelling of the same bytes is another token.
    if base64.urlsafe_b64encode(raw).decode().rstrip("=") != token:
        return None
    return raw


def _verified_token(token: str) -> tuple[bytes, datetime] | None:
    raw = _decode(token)
    if raw is None:
        return None
    body, mac = raw[:-_TOKEN_MAC_BYTES], raw[-_TOKEN_MAC_BYTES:]
    expected = hmac.new(_share_key(), b"report-share\x00" + body, hashlib.sha256).digest()
    if not hmac.compare_digest(mac, expected):
        return None
    raw_id = body[1 : 1 + _TOKEN_ID_BYTES]
    expires = datetime.fromtimestamp(int.from_bytes(body[1 + _TOKEN_ID_BYTES :], "big"), UTC)
    return raw_id, expires


def _unsigned_token_id(token: str) -> bytes | None:
    """The id inside a well-formed token whose signature holds (for revocation by token)."""
    verified = _verified_token(token)
    return verified[0] if verified else None


def _token_id(raw_id: bytes) -> str:
    return f"shr_{raw_id.hex()}"


def _share_key() -> bytes:
    return derived_key(vault().config, "report-share-links")
