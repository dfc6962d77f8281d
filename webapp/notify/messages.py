"""What a reviewer is told about a pending request, as email and as a Block Kit chat message.

Pure functions over a ReviewNotice. Arguments the tenant marks sensitive are replaced by
``[hidden]`` at any depth, and their values are scrubbed from the free text (reason, policy
text) too, so that neither channel carries them; the reviewer sees them in the dashboard.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

HIDDEN = "[hidden]"
MAX_ARGS_SHOWN = 12
MAX_VALUE_CHARS = 160
MAX_REASON_CHARS = 1200


@dataclass(frozen=True)
class ReviewNotice:
    """Everything a notification shows, already stripped of sensitive argument values."""

    request_id: str
    tool_name: str
    agent_id: str
    session_id: str
    policy_id: str
    reason: str
    reason_code: str
    confidence: float
    confidence_bucket: str
    threshold: float
    threshold_bucket: str
    key_arguments: tuple[tuple[str, str], ...]
    more_arguments: int
    review_url: str
    expires_at: str = ""
    is_test: bool = False
    citations: tuple[str, ...] = field(default_factory=tuple)


def build_notice(
    *,
    request_id: str,
    tool_name: str,
    tool_args: dict[str, Any],
    agent_id: str,
    session_id: str,
    policy_id: str,
    reason: str,
    reason_code: str,
    confidence: float,
    confidence_bucket: str,
    threshold: float,
    threshold_bucket: str,
    public_url: str,
    sensitive_args: list[str] | tuple[str, ...],
    expires_at: str = "",
    citations: list[str] | tuple[str, ...] = (),
    is_test: bool = False,
    link: str = "",
) -> ReviewNotice:
    """Mask sensitive arguments and scrub their values from the text fields."""
    sensitive = {name.strip().lower() for name in sensitive_args if name.strip()}
    masked, secrets = mask_arguments(tool_args, sensitive)
    items = list(masked.items()) if isinstance(masked, dict) else []
    shown = tuple((one_line(str(k), 80), _render_value(v)) for k, v in items[:MAX_ARGS_SHOWN])
    return ReviewNotice(
        request_id=request_id,
        tool_name=one_line(tool_name, 200),
        agent_id=one_line(agent_id, 200),
        session_id=one_line(session_id, 200),
        policy_id=one_line(policy_id, 128),
        reason=_clip(scrub(reason, secrets), MAX_REASON_CHARS),
        reason_code=reason_code,
        confidence=confidence,
        confidence_bucket=confidence_bucket,
        threshold=threshold,
        threshold_bucket=threshold_bucket,
        key_arguments=tuple((k, scrub(v, secrets)) for k, v in shown),
        more_arguments=max(0, len(items) - MAX_ARGS_SHOWN),
        # ``link``: a signed, expiring link to the review page (services.review_links).
        review_url=link
        or (
            review_url(public_url, request_id)
            if request_id
            else f"{public_url.rstrip('/')}/dashboard/reviews"
        ),
        expires_at=expires_at,
        is_test=is_test,
        citations=tuple(_clip(scrub(text, secrets), 300) for text in citations[:3]),
    )


def review_url(public_url: str, request_id: str) -> str:
    """The dashboard page where this request is reviewed."""
    return f"{public_url.rstrip('/')}/dashboard/reviews/{request_id}"


def mask_arguments(value: Any, sensitive: set[str]) -> tuple[Any, list[str]]:
    """Replace values under sensitive keys (any depth, case-insensitive) by ``[hidden]``.

    Returns the masked copy and the string forms of every hidden leaf value, for scrubbing.
    """
    secrets: list[str] = []

    def collect(hidden: Any) -> None:
        if isinstance(hidden, dict):
            for item in hidden.values():
                collect(item)
        elif isinstance(hidden, list):
            for item in hidden:
                collect(item)
        elif hidden is not None and not isinstance(hidden, bool):
            text = str(hidden)
            if len(text) >= 3:
                secrets.append(text)

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for key, item in node.items():
                if str(key).strip().lower() in sensitive:
                    collect(item)
                    out[key] = HIDDEN
                else:
                    out[key] = walk(item)
            return out
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    return walk(value), secrets


def scrub(text: str, secrets: list[str]) -> str:
    """Remove every occurrence of a hidden value from free text."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        text = text.replace(secret, HIDDEN)
    return text


def subject(notice: ReviewNotice) -> str:
    if notice.is_test:
        return "[Clearance Vault] Test notification"
    return one_line(
        f"[Clearance Vault] Review needed: {notice.tool_name} by {notice.agent_id}", 200
    )


def email_message(notice: ReviewNotice, *, sender: str, recipients: list[str]) -> EmailMessage:
    """A multipart/alternative message: plain text first, HTML second."""
    return build_email(
        subject(notice),
        email_text(notice),
        email_html(notice),
        sender=sender,
        recipients=recipients,
    )


def build_email(
    subject_line: str, text: str, html_body: str, *, sender: str, recipients: list[str]
) -> EmailMessage:
    """An automatic multipart/alternative message (plain text first, HTML second); every
    notification the vault sends by email (reviews, drift) is built here."""
    message = EmailMessage()
    message["Subject"] = subject_line
    message["From"] = sender
    message["To"] = ", ".join(recipients)
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or "clearance-vault")
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(text)
    message.add_alternative(html_body, subtype="html")
    return message


def email_text(notice: ReviewNotice) -> str:
    if notice.is_test:
        return (
            "This is a test notification from Clearance Vault.\n\n"
            "Email notifications for pending reviews will arrive at this address.\n"
            f"Review queue: {notice.review_url}\n"
        )
    lines = [
        "A request is waiting for your review.",
        "",
        *(f"{label + ':':<13}{value}" for label, value in _facts(notice)),
        "",
        "Reason:",
        f"  {notice.reason}" if notice.reason else "  (none given)",
        "",
        "Key arguments:",
        *(f"  {name}: {value}" for name, value in notice.key_arguments),
    ]
    if not notice.key_arguments:
        lines.append("  (none)")
    if notice.more_arguments:
        lines.append(f"  … and {notice.more_arguments} more (see the review page)")
    if notice.citations:
        lines += ["", "Policy text:", *(f"  - {text}" for text in notice.citations)]
    lines += ["", f"Review it: {notice.review_url}", ""]
    if notice.expires_at:
        lines.append(
            f"If nobody decides by {notice.expires_at}, the request is denied (review_expired)."
        )
    return "\n".join(lines) + "\n"


def email_html(notice: ReviewNotice) -> str:
    e = html.escape
    link = e(notice.review_url, quote=True)
    if notice.is_test:
        return (
            '<!doctype html><html><body style="font-family:sans-serif">'
            "<p>This is a test notification from Clearance Vault.</p>"
            "<p>Email notifications for pending reviews will arrive at this address.</p>"
            f'<p><a href="{link}">Open the review queue</a></p></body></html>'
        )
    facts = "".join(
        f'<tr><th align="left" style="padding-right:1em">{e(label)}</th><td>{e(value)}</td></tr>'
        for label, value in _facts(notice)
    )
    args = (
        "".join(
            f"<tr><td><code>{e(name)}</code></td><td><code>{e(value)}</code></td></tr>"
            for name, value in notice.key_arguments
        )
        or '<tr><td colspan="2">(none)</td></tr>'
    )
    more = (
        f"<p>… and {notice.more_arguments} more on the review page.</p>"
        if notice.more_arguments
        else ""
    )
    citations = (
        "<h3>Policy text</h3><ul>"
        + "".join(f"<li>{e(text)}</li>" for text in notice.citations)
        + "</ul>"
        if notice.citations
        else ""
    )
    expiry = (
        f'<p style="color:#666">If nobody decides by {e(notice.expires_at)}, the request is denied '
        "(review_expired).</p>"
        if notice.expires_at
        else ""
    )
    return (
        '<!doctype html><html><body style="font-family:sans-serif">'
        "<h2>A request is waiting for your review</h2>"
        f"<table>{facts}</table>"
        f"<h3>Reason</h3><p>{e(notice.reason) or '(none given)'}</p>"
        f"<h3>Key arguments</h3><table>{args}</table>{more}{citations}"
        f'<p><a href="{link}" style="font-weight:bold">Review this request</a></p>'
        f'<p style="color:#666">{link}</p>{expiry}'
        "</body></html>"
    )


def slack_payload(notice: ReviewNotice) -> dict[str, Any]:
    """A Slack-compatible incoming-webhook body: fallback ``text`` plus Block Kit ``blocks``."""
    if notice.is_test:
        return {
            "text": "Clearance Vault test notification",
            "blocks": [
                {
                    "type": "section",
                    "text": {
                        "type": "mrkdwn",
                        "text": (
                            "*Clearance Vault test notification*\nPending reviews will be announced in this channel."
                        ),
                    },
                },
                _button(notice.review_url, "Open the review queue"),
            ],
        }
    facts = [
        {"type": "mrkdwn", "text": f"*{label}*\n{_mrkdwn(value)}"}
        for label, value in _facts(notice)
    ]
    arguments = "\n".join(f"{name}: {value}" for name, value in notice.key_arguments) or "(none)"
    if notice.more_arguments:
        arguments += f"\n… and {notice.more_arguments} more"
    blocks: list[dict[str, Any]] = [
        {
            "type": "header",
            "text": {
                "type": "plain_text",
                "text": _clip(f"Review needed: {notice.tool_name}", 150),
            },
        },
        {"type": "section", "fields": [_clip_field(f) for f in facts[:10]]},
        {
            "type": "section",
            "text": {
                "type": "mrkdwn",
                "text": _clip(f"*Reason*\n{_mrkdwn(notice.reason or '(none given)')}", 3000),
            },
        },
        {
            "type": "section",
            "text": {
                "type": "mrkdwn",
                "text": _clip(f"*Key arguments*\n```{_mrkdwn(arguments)}```", 3000),
            },
        },
        _button(notice.review_url, "Review request"),
    ]
    if notice.expires_at:
        blocks.append(
            {
                "type": "context",
                "elements": [
                    {
                        "type": "mrkdwn",
                        "text": _mrkdwn(
                            f"Request {notice.request_id} · denied automatically if undecided by {notice.expires_at}"
                        ),
                    }
                ],
            }
        )
    return {
        "text": _clip(f"Review needed: {notice.tool_name} by {notice.agent_id}", 300),
        "blocks": blocks,
    }


def _facts(notice: ReviewNotice) -> list[tuple[str, str]]:
    facts = [
        ("Tool", notice.tool_name),
        ("Agent", notice.agent_id),
    ]
    if notice.session_id:
        facts.append(("Session", notice.session_id))
    facts += [
        ("Policy", notice.policy_id or "(none)"),
        (
            "Confidence",
            f"{notice.confidence:.2f} ({notice.confidence_bucket}); threshold {notice.threshold:.2f} ({notice.threshold_bucket})",
        ),
        ("Reason code", notice.reason_code),
        ("Request", notice.request_id),
    ]
    return facts


def _button(url: str, label: str) -> dict[str, Any]:
    return {
        "type": "actions",
        "elements": [
            {
                "type": "button",
                "text": {"type": "plain_text", "text": label},
                "url": url,
                "style": "primary",
                "action_id": "open_review",
            }
        ],
    }


def _mrkdwn(text: str) -> str:
    # Slack treats & < > as control characters (<!channel>, <url|label>): escape them.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _render_value(value: Any) -> str:
    text = (
        value
        if isinstance(value, str)
        else json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    )
    return _clip(one_line(text, 10_000), MAX_VALUE_CHARS)


def one_line(text: str, limit: int) -> str:
    """``text`` without control characters, clipped to ``limit``."""
    # Header injection and layout: no control characters in names that reach headers or tables.
    cleaned = "".join(ch if ch.isprintable() else " " for ch in text)
    return _clip(cleaned, limit)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clip_field(block: dict[str, Any]) -> dict[str, Any]:
    return {**block, "text": _clip(block["text"], 2000)}
