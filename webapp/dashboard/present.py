"""Template helpers: how values read on a page. Pure functions of their arguments."""

from __future__ import annotations

import difflib
import json
import re
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, current_app
from flask_login import current_user
from markupsafe import Markup, escape

from webapp.dashboard.roles import can
from webapp.services import stored

# Operating points of the review threshold, as the settings page explains them.
OPERATING_POINTS = (
    (
        0.80,
        "0.80 — balanced",
        "The default. Routine actions the policy clearly allows pass; anything "
        "the judge is less than 80% sure of waits for a reviewer.",
    ),
    (
        0.90,
        "0.90 — cautious",
        "More requests go to review. For tenants whose agents move money or "
        "personal data, where a reviewer's minute is cheaper than a wrong approval.",
    ),
    (
        0.95,
        "0.95 — strict",
        "Only near-certain approvals pass alone. Expect a busy review queue; "
        "suited to new policies while you learn how the judge reads them.",
    ),
)

# The sections in the header, each with its own "g then <key>" shortcut. The keys are
# explicit, not first letters: Reviews and Reports both start with R.
NAV_ITEMS = (
    ("dashboard.overview", "Overview", "dashboard.overview.index", "o"),
    ("dashboard.reviews", "Reviews", "dashboard.reviews.queue", "r"),
    ("dashboard.policies", "Policies", "dashboard.policies.index", "p"),
    ("dashboard.ledger", "Ledger", "dashboard.ledger.search", "l"),
    ("dashboard.agents", "Agents", "dashboard.agents.index", "a"),
    ("dashboard.drift", "Drift", "dashboard.drift.index", "d"),
    ("dashboard.reports", "Reports", "dashboard.reports.index", "t"),
    ("dashboard.settings", "Settings", "dashboard.settings.index", "s"),
)

KEYBOARD_SHORTCUTS = (
    *((f"g then {key}", f"go to {label}") for _bp, label, _endpoint, key in NAV_ITEMS),
    ("a", "approve the open review; in the queue, approve the selection (after confirming)"),
    ("d", "deny the open review (a reason is required); in the queue, deny the selection"),
    ("j / k", "in the queue: move to the next / previous request"),
    ("x", "in the queue: select or unselect the current request"),
    ("r", "jump to the reason field of the open review"),
    ("/", "jump to the search box (the request id in the review queue)"),
    ("?", "show or hide this list"),
)


def install(blueprint: Blueprint) -> None:
    """Make the helpers available to every dashboard template."""
    blueprint.add_app_template_filter(when, "when")
    blueprint.add_app_template_filter(pretty_json, "pretty_json")
    blueprint.add_app_template_filter(percent, "percent")
    blueprint.add_app_template_filter(time_left, "time_left")
    blueprint.add_app_template_filter(check_summary, "check_summary")
    # Stored content that cannot be decoded shows as empty instead of failing the page.
    blueprint.add_app_template_global(stored.readable, "readable")
    blueprint.context_processor(_context)


def when(value: datetime | str | None) -> str:
    """A UTC timestamp to the minute, the way every page shows time."""
    if value is None or value == "":
        return "—"
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def time_left(until: datetime | None, now: datetime | None = None) -> str:
    """How long until ``until``, coarsely ("3 h 12 min", "4 min", "expired")."""
    if until is None:
        return "—"
    if until.tzinfo is None:
        until = until.replace(tzinfo=UTC)
    seconds = int((until - (now or datetime.now(UTC))).total_seconds())
    if seconds <= 0:
        return "expired"
    hours, minutes = divmod(max(1, seconds // 60), 60)
    if hours >= 24:
        return f"{hours // 24} d {hours % 24} h"
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min"


def pretty_json(value: Any) -> str:
    """Readable JSON (sorted keys, two-space indent); the template escapes it."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)


def percent(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{float(value) * 100:.0f}%"


_OPS = {"gt": ">", "ge": "≥", "lt": "<", "le": "≤", "eq": "=", "ne": "≠"}
_KINDS = {
    "numeric_limit": "limit",
    "value_list": "allowed values",
    "required_argument": "required argument",
    "required_flag": "required flag",
    "first_time_counterparty": "new counterparty",
    "argument_comparison": "comparison",
    "action": "action",
    "reserved_act": "who may act",
    "agent_scope": "what one agent may do",
}


def check_summary(described: dict[str, Any]) -> str:
    """One line for a compiled check (``Check.describe()``), e.g. ``review if refund > 500 EUR``."""
    kind = described.get("kind", "check")
    effect = described.get("effect", "")
    subject = " ".join(described.get("terms") or []) or "the request"
    if kind == "numeric_limit":
        what = "calls" if described.get("counts_calls") else subject
        unit = described.get("currency") or described.get("unit") or ""
        window = f" per {described['window']}" if described.get("window") else ""
        threshold = described.get("threshold", 0)
        number = f"{threshold:,.0f}" if float(threshold).is_integer() else f"{threshold:,}"
        detail = f"{what} {_OPS.get(described.get('op', ''), described.get('op', ''))} {number} {unit}{window}"
    elif kind == "value_list":
        mode = "only" if described.get("mode") == "allow" else "not"
        detail = f"{subject}: {mode} {', '.join(map(str, described.get('values') or []))}"
    elif kind == "required_argument":
        detail = (
            f"needs {described.get('exact_name') or ' '.join(described.get('arg_words') or [])}"
        )
    elif kind == "agent_scope":
        detail = f"{', '.join(described.get('agents') or [])} does anything but {subject}"
    elif kind == "reserved_act":
        # 'deny if vendor payout initi by an agent other than payouts-orchestrator'
        who = [
            *(described.get("agents") or []),
            *(f"{p}*" for p in described.get("prefixes") or []),
        ]
        detail = (
            f"{subject} by an agent other than {', '.join(who)}"
            if who
            else f"{subject} (reserved to {described.get('holder') or 'people'})"
        )
    else:
        detail = subject
    return f"{effect} if {detail}" if effect in ("deny", "review") else f"{effect}: {detail}"


def rule_reading(rule: Any) -> str:
    """How the engine reads one compiled rule: understood, partly, as text, or informational."""
    return {
        "understood": "understood",
        "partly_understood": "partly",
        "not_understood": "text",
        "informational": "informational",
    }[rule.understanding]


def highlight_unaccounted(text: str, unaccounted: Any) -> Markup:
    """The rule text, escaped, with the words no check accounts for in <mark>."""
    wanted = {w.lower() for w in unaccounted or ()}
    out = []
    for piece in re.split(r"([A-Za-z][A-Za-z0-9_\-']*)", text):
        if piece and piece.lower() in wanted:
            out.append(Markup("<mark>%s</mark>") % piece)
        else:
            out.append(escape(piece))
    return Markup("").join(out)


def line_diff(old: list[str], new: list[str]) -> list[tuple[str, str]]:
    """Rule-by-rule diff of two versions: (kind, text) with kind in same/added/removed."""
    out: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(("same", line) for line in old[i1:i2])
            continue
        out.extend(("removed", line) for line in old[i1:i2])
        out.extend(("added", line) for line in new[j1:j2])
    return out


def highlight(text: str, quotes: list[str]) -> list[tuple[str, bool]]:
    """Split ``text`` into (piece, is_cited) so quoted passages can be marked when rendered."""
    spans: list[tuple[int, int]] = []
    lowered = text.lower()
    for quote in quotes:
        quote = (quote or "").strip()
        if len(quote) < 3:
            continue
        start = lowered.find(quote.lower())
        while start != -1:
            spans.append((start, start + len(quote)))
            start = lowered.find(quote.lower(), start + len(quote))
    if not spans:
        return [(text, False)] if text else []
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    pieces: list[tuple[str, bool]] = []
    cursor = 0
    for start, end in merged:
        if start > cursor:
            pieces.append((text[cursor:start], False))
        pieces.append((text[start:end], True))
        cursor = end
    if cursor < len(text):
        pieces.append((text[cursor:], False))
    return pieces


def _context() -> dict[str, Any]:
    return {
        "can": can,
        "user": current_user,
        "keyboard_shortcuts": KEYBOARD_SHORTCUTS,
        "nav_items": NAV_ITEMS,
        "has_page": lambda endpoint: endpoint in current_app.view_functions,
        "rule_reading": rule_reading,
        "pending_count": _pending_count,
        "highlight_unaccounted": highlight_unaccounted,
    }


def _pending_count() -> int:
    """The header's count of waiting reviews (called only by pages that show it)."""
    from webapp.services import reviews

    return reviews.count_pending(current_user.client_id)
