"""What people are told when an agent drifts (``drift.detected``): email and chat messages.

Pure functions over a DriftNotice. No argument values are shown, only signal names, scores and
counts, so nothing a tenant marks sensitive can leak through this channel.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

from webapp.notify.messages import build_email, one_line


@dataclass(frozen=True)
class DriftNotice:
    event_id: str
    agent_id: str
    drift_score: float
    risk_level: str
    action: str
    detected_at: str
    signals: tuple[tuple[str, float], ...]
    drift_url: str


def build_notice(event: dict[str, Any], public_url: str) -> DriftNotice:
    """A notice from an event as the API shows it (``drift.event_view``)."""
    return DriftNotice(
        event_id=event["event_id"],
        agent_id=one_line(event["agent_id"], 200),
        drift_score=float(event["drift_score"]),
        risk_level=event["risk_level"],
        action=event["action"],
        detected_at=event["detected_at"] or "",
        signals=tuple(
            (one_line(str(s.get("kind", "")), 60), float(s.get("score", 0)))
            for s in event["signals"][:8]
        ),
        drift_url=f"{public_url.rstrip('/')}/dashboard/drift",
    )


def subject(notice: DriftNotice) -> str:
    what = "locked down" if notice.action == "lockdown" else "drifting"
    return one_line(f"[Clearance Vault] Agent {what}: {notice.agent_id}", 200)


def email_message(notice: DriftNotice, *, sender: str, recipients: list[str]) -> EmailMessage:
    return build_email(
        subject(notice),
        email_text(notice),
        email_html(notice),
        sender=sender,
        recipients=recipients,
    )


def email_text(notice: DriftNotice) -> str:
    lines = [
        f"Agent {notice.agent_id} is acting out of character.",
        "",
        f"Drift score: {notice.drift_score:.2f} ({notice.risk_level} risk)",
        f"Detected:    {notice.detected_at}",
        f"Action:      {_action(notice)}",
        "",
        "Signals:",
        *(f"  {kind}: {score:.2f}" for kind, score in notice.signals),
        "",
        f"Review it: {notice.drift_url}",
        "",
    ]
    return "\n".join(lines)


def email_html(notice: DriftNotice) -> str:
    e = html.escape
    rows = "".join(
        f"<tr><td>{e(kind)}</td><td>{score:.2f}</td></tr>" for kind, score in notice.signals
    )
    return (
        '<!doctype html><html><body style="font-family:sans-serif">'
        f"<h2>Agent {e(notice.agent_id)} is acting out of character</h2>"
        f"<p>Drift score {notice.drift_score:.2f} ({e(notice.risk_level)} risk), "
        f"detected {e(notice.detected_at)}.</p><p>{e(_action(notice))}</p>"
        f"<table><tr><th>Signal</th><th>Score</th></tr>{rows}</table>"
        f'<p><a href="{e(notice.drift_url, quote=True)}">Open the Drift page</a></p>'
        "</body></html>"
    )


def slack_payload(notice: DriftNotice) -> dict[str, Any]:
    signals = "\n".join(f"{_mrkdwn(kind)}: {score:.2f}" for kind, score in notice.signals)
    return {
        "text": subject(notice),
        "blocks": [
            {
                "type": "section",
                "text": {
                    "type": "mrkdwn",
                    "text": (
                        f"*Agent {_mrkdwn(notice.agent_id)} is acting out of character*\n"
                        f"Drift score {notice.drift_score:.2f} ({notice.risk_level} risk). "
                        f"{_mrkdwn(_action(notice))}\n```{signals or '(none)'}```"
                    )[:3000],
                },
            },
            {
                "type": "actions",
                "elements": [
                    {
                        "type": "button",
                        "text": {"type": "plain_text", "text": "Open the Drift page"},
                        "url": notice.drift_url,
                        "action_id": "open_drift",
                    }
                ],
            },
        ],
    }


def _action(notice: DriftNotice) -> str:
    if notice.action == "lockdown":
        return "The agent was locked down automatically; release it only after a human review."
    return "Every request of this agent now goes to a reviewer."


def _mrkdwn(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
