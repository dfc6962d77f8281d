"""Structured logging (json or text) with request ids and secret redaction."""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime

# Anything shaped like a credential is masked before a line is written, whoever logged it.
_SECRET_PATTERNS = [
    re.compile(r"vk_[A-Za-z0-9_\-]{8,}"),  # tenant API keys
    re.compile(r"eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*"),  # JWTs
    re.compile(r"https?://hooks\.[^\s\"']+"),  # chat webhook URLs
    re.compile(r"https?://[^\s\"']*/services/[^\s\"']+"),
    re.compile(
        r"(?i)(x-vault-api-key|x-admin-api-key|x-api-key|authorization)([\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"
    ),
]


def redact(text: str) -> str:
    """Mask API keys, tokens and webhook URLs in a log message."""
    for pattern in _SECRET_PATTERNS:
        if pattern.groups >= 2:
            text = pattern.sub(lambda m: m.group(1) + m.group(2) + "[redacted]", text)
        else:
            text = pattern.sub("[redacted]", text)
    return text


class ContextFilter(logging.Filter):
    """Attach the current request id (or job id) to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = _current_request_id()
        return True


def _current_request_id() -> str:
    try:
        from flask import g, has_app_context

        if has_app_context():
            return getattr(g, "request_id", "") or getattr(g, "job_id", "") or ""
    except Exception:  # noqa: BLE001 - logging must never fail
        return ""
    return ""


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat().replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "msg": redact(record.getMessage()),
            "request_id": getattr(record, "request_id", ""),
        }
        for key in ("client_id", "job_id", "method", "path", "status", "duration_ms"):
            if hasattr(record, key):
                entry[key] = getattr(record, key)
        if record.exc_info:
            entry["exc"] = redact(self.formatException(record.exc_info))
        return json.dumps(entry, default=str)


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def configure_logging(log_format: str, level: str = "INFO") -> None:
    """Install one handler on the root logger; idempotent across app factories."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_vault", False):
            root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler._vault = True  # type: ignore[attr-defined]
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    handler.addFilter(ContextFilter())
    root.addHandler(handler)
    root.setLevel(level)
    # Werkzeug's access log repeats query strings; our own access line replaces it.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
