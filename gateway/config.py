"""The gateway's settings, read from the environment once and validated at start-up."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit


class GatewayConfigError(ValueError):
    """A setting is missing or malformed; the message names the variable."""


@dataclass(frozen=True)
class GatewayConfig:
    vault_url: str
    vault_api_key: str
    routes_file: str
    host: str = "127.0.0.1"
    port: int = 8100
    max_body_bytes: int = 1024 * 1024
    vault_timeout_seconds: float = 10.0
    upstream_timeout_seconds: float = 30.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> GatewayConfig:
        env = os.environ if environ is None else environ

        def required(name: str) -> str:
            value = env.get(name, "").strip()
            if not value:
                raise GatewayConfigError(f"{name} must be set")
            return value

        vault_url = required("GATEWAY_VAULT_URL").rstrip("/")
        parts = urlsplit(vault_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise GatewayConfigError("GATEWAY_VAULT_URL must be an http or https URL")
        return cls(
            vault_url=vault_url,
            vault_api_key=required("GATEWAY_VAULT_API_KEY"),
            routes_file=required("GATEWAY_ROUTES_FILE"),
            host=env.get("GATEWAY_HOST", "").strip() or "127.0.0.1",
            port=_int(env, "GATEWAY_PORT", 8100, 1, 65535),
            max_body_bytes=_int(env, "GATEWAY_MAX_BODY_BYTES", 1024 * 1024, 1024, 64 << 20),
            vault_timeout_seconds=_float(env, "GATEWAY_VAULT_TIMEOUT_SECONDS", 10.0),
            upstream_timeout_seconds=_float(env, "GATEWAY_UPSTREAM_TIMEOUT_SECONDS", 30.0),
        )


def _int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if not (raw.isascii() and raw.isdigit()) or not low <= int(raw) <= high:
        raise GatewayConfigError(f"{name} must be an integer from {low} to {high}")
    return int(raw)


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.1 <= value <= 600:
        raise GatewayConfigError(f"{name} must be a number of seconds from 0.1 to 600")
    return value
