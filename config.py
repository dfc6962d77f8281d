"""The service's configuration, read once from the environment and validated at start-up.

Every variable of the interface spec (§8.2) is listed in ``VARIABLES``: each one is either
honoured or refused with a message that says it is not supported yet. Nothing is silently
ignored, and an invalid value stops start-up with a message naming the variable.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent


class ConfigError(ValueError):
    """A configuration variable is invalid or unsupported; the message names it."""


def _parse_bool(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"{name} must be a boolean (true/false), got {raw!r}")


def _parse_int(name: str, raw: str, minimum: int | None = None, maximum: int | None = None) -> int:
    try:
        value = int(raw.strip(), 10)
    except ValueError:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ConfigError(f"{name} must be at most {maximum}, got {value}")
    return value


def _parse_float(name: str, raw: str, minimum: float, maximum: float) -> float:
    try:
        value = float(raw.strip())
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from None
    if not (minimum <= value <= maximum):
        raise ConfigError(f"{name} must lie in [{minimum}, {maximum}], got {value}")
    return value


def _parse_choice(name: str, raw: str, choices: tuple[str, ...]) -> str:
    value = raw.strip()
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, got {raw!r}")
    return value


def _parse_url(name: str, raw: str, schemes: tuple[str, ...] = ("http", "https")) -> str:
    from urllib.parse import urlsplit

    value = raw.strip()
    parts = urlsplit(value)
    if parts.scheme not in schemes or not (parts.netloc or parts.path):
        raise ConfigError(f"{name} must be a URL with scheme {'/'.join(schemes)}, got {raw!r}")
    return value


def _parse_key32(name: str, raw: str) -> bytes:
    try:
        key = base64.b64decode(raw.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise ConfigError(f"{name} must be base64") from None
    if len(key) != 32:
        raise ConfigError(f"{name} must decode to exactly 32 bytes, got {len(key)}")
    return key


# Variables this build refuses rather than ignores: each names what it would need.
UNSUPPORTED = {
    "VAULT_KMS_KEY_ID": "the aws_kms signer backend is not supported yet; use the local backend",
    "VAULT_TENANT_DB_MAX_OPEN_CONNS": "per-tenant databases are not supported yet; "
    "all tenants share DATABASE_URL (sized by VAULT_CONTROL_PLANE_DB_MAX_OPEN_CONNS)",
    "VAULT_TENANT_DB_SSLMODE": "per-tenant databases are not supported yet; put sslmode in "
    "DATABASE_URL",
    "TENANT_SECRET_PREFIX": "per-tenant secret bundles from a secrets manager are not supported yet",
    "VAULT_TENANT_SECRET_CACHE_TTL_SECONDS": "per-tenant secret bundles are not supported yet",
    "AWS_SECRET_NAME": "bootstrap secrets from a secrets manager are not supported yet; "
    "pass the variables in the environment",
    "VAULT_CLEARANCE_MQ_QUEUE_URL": "the hosted message-queue variant is not supported yet; "
    "clearance jobs run on RQ (REDIS_URL)",
    "VAULT_CLEARANCE_MQ_FIFO_GROUP_SHARDS": "the hosted message-queue variant is not supported yet",
    "VAULT_CLEARANCE_MQ_WAIT_TIME_SECONDS": "the hosted message-queue variant is not supported yet",
    "VAULT_CLEARANCE_MQ_VISIBILITY_TIMEOUT_SECONDS": "the hosted message-queue variant is not "
    "supported yet",
}


@dataclass(frozen=True)
class Config:
    """Validated settings. Build with ``Config.from_env()``; tests pass overrides."""

    env: str = "development"
    instance_path: Path = ROOT / "instance"
    host: str = "0.0.0.0"
    port: int = 8000
    database_url: str = ""
    db_max_open_conns: int = 50
    redis_url: str = ""
    secret_key: str = ""
    log_format: str = "json"
    log_level: str = "INFO"
    public_url: str = ""
    cors_allowed_origin: str = ""
    max_body_bytes: int = 1024 * 1024
    upload_max_bytes: int = 20 * 1024 * 1024
    admin_api_key: str = ""
    # Signing (A-JWT, receipts, checkpoints).
    signer_backend: str = "local"
    private_key_file: str = ""
    private_key_base64: str = ""
    key_id: str = "vault-key-001"
    jwt_ttl: int = 300
    jwt_issuer: str = "alcv-vault"
    jwt_audience: str = "ledgix-sdk"
    transport_key: bytes = b""
    # Clearance.
    clearance_workers: int = 2
    clearance_queue_size: int = 2048
    clearance_sync_wait_ms: int = 1500
    clearance_reap_seconds: int = 120
    # How often the reaper runs (services.reaper); 0: a quarter of the cutoff, from 5 to 15 s.
    clearance_reap_interval_seconds: int = 0
    # /ready answers 503 unless a clearance worker was seen within this many seconds; 0: no check.
    ready_worker_seconds: int = 60
    # Reverse proxies in front of the web tier whose X-Forwarded-For/-Proto are believed: the
    # client address then keys the per-IP rate limit and the sign-in throttle. 0 trusts none.
    trusted_proxy_hops: int = 0
    judge_url: str = ""
    judge_api_key: str = ""
    allow_stub_judge: bool = False
    judge_timeout_seconds: float = 10.0
    judge_retries: int = 2
    judge_retry_base_seconds: float = 1.0
    embedding_model: str = "hashing-v1"
    eval_model: str = ""
    eval_base_url: str = ""
    eval_api_key: str = ""
    # The standalone judge service.
    judge_service_api_key: str = ""
    judge_endpoint_rate: float = 10.0  # requests per second (JUDGE_ENDPOINT_RATE_LIMIT)
    judge_endpoint_burst: int = 600
    judge_workers: int = 2
    # Rate limits.
    rate_limit_rps: int = 20
    rate_limit_burst: int = 40
    rate_limit_ttl_seconds: int = 180
    # Reviews and notifications.
    review_ttl_seconds: int = 86400
    # POST /mint-token (the clients' decision cache, CONTRACT §5a): the oldest approval it repeats.
    decision_cache_ttl_seconds: int = 300
    webhook_allow_private: bool = False
    notify_retry_intervals: tuple[int, ...] = (10, 60, 300)
    smtp_host: str = ""
    smtp_port: int = 25
    smtp_username: str = ""
    smtp_password: str = ""
    smtp_security: str = "none"
    smtp_from: str = "clearance-vault@localhost"
    smtp_ca_file: str = ""
    # Ledger sealing and anchoring.
    anchor_dir: str = ""
    anchor_bucket: str = ""
    anchor_bucket_template: str = ""
    anchor_prefix: str = ""
    anchor_region: str = ""
    anchor_endpoint_url: str = ""
    require_bucket_versioning: bool = True
    require_object_lock: bool = False
    anchor_interval_seconds: int = 30
    anchor_batch_size: int = 500
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_production(self) -> bool:
        return self.env == "production"

    @property
    def uses_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Config:
        """Read and validate every variable; raise ConfigError naming the first bad one."""
        env = dict(os.environ if environ is None else environ)
        for name, why in UNSUPPORTED.items():
            if env.get(name, "").strip():
                raise ConfigError(f"{name} is not supported yet: {why}")

        values: dict[str, Any] = {}

        def take(name: str, key: str, parse: Callable[[str, str], Any]) -> None:
            raw = env.get(name)
            if raw is not None and raw.strip() != "":
                values[key] = parse(name, raw)

        take(
            "VAULT_ENV",
            "env",
            lambda n, r: _parse_choice(n, r, ("development", "test", "production")),
        )
        take("VAULT_INSTANCE_PATH", "instance_path", lambda n, r: Path(r).resolve())
        take("VAULT_HOST", "host", lambda n, r: r.strip())
        take("VAULT_PORT", "port", lambda n, r: _parse_int(n, r, 1, 65535))
        take("DATABASE_URL", "database_url", _parse_database_url)
        take(
            "VAULT_CONTROL_PLANE_DB_MAX_OPEN_CONNS",
            "db_max_open_conns",
            lambda n, r: _parse_int(n, r, 1, 10000),
        )
        take("REDIS_URL", "redis_url", lambda n, r: _parse_url(n, r, ("redis", "rediss", "unix")))
        take("VAULT_SECRET_KEY", "secret_key", _parse_secret)
        take("LOG_FORMAT", "log_format", lambda n, r: _parse_choice(n, r, ("json", "text")))
        take(
            "LOG_LEVEL",
            "log_level",
            lambda n, r: _parse_choice(n, r.upper(), ("DEBUG", "INFO", "WARNING", "ERROR")),
        )
        take("VAULT_PUBLIC_URL", "public_url", lambda n, r: _parse_url(n, r).rstrip("/"))
        take(
            "VAULT_CORS_ALLOWED_ORIGIN",
            "cors_allowed_origin",
            lambda n, r: _parse_url(n, r).rstrip("/"),
        )
        take(
            "VAULT_MAX_BODY_BYTES",
            "max_body_bytes",
            lambda n, r: _parse_int(n, r, 1024, 64 * 1024 * 1024),
        )
        take("VAULT_ADMIN_API_KEY", "admin_api_key", _parse_secret)
        take(
            "VAULT_SIGNER_BACKEND",
            "signer_backend",
            lambda n, r: _parse_choice(n, r, ("local", "aws_kms")),
        )
        take("VAULT_PRIVATE_KEY_FILE", "private_key_file", lambda n, r: r.strip())
        take("VAULT_PRIVATE_KEY_BASE64", "private_key_base64", lambda n, r: r.strip())
        take("VAULT_KEY_ID", "key_id", _parse_key_id)
        take("VAULT_JWT_TTL", "jwt_ttl", lambda n, r: _parse_int(n, r, 1, 86400))
        take("VAULT_JWT_ISSUER", "jwt_issuer", lambda n, r: r.strip())
        take("VAULT_JWT_AUDIENCE", "jwt_audience", lambda n, r: r.strip())
        take("VAULT_TRANSPORT_KEY_BASE64", "transport_key", _parse_key32)
        take(
            "VAULT_CLEARANCE_ASYNC_WORKERS",
            "clearance_workers",
            lambda n, r: _parse_int(n, r, 1, 256),
        )
        take(
            "VAULT_CLEARANCE_ASYNC_QUEUE_SIZE",
            "clearance_queue_size",
            lambda n, r: _parse_int(n, r, 1, 10_000_000),
        )
        take(
            "VAULT_CLEARANCE_SYNC_WAIT_MS",
            "clearance_sync_wait_ms",
            lambda n, r: _parse_int(n, r, 0, 60_000),
        )
        take(
            "VAULT_CLEARANCE_REAP_SECONDS",
            "clearance_reap_seconds",
            lambda n, r: _parse_int(n, r, 5, 86400),
        )
        take(
            "VAULT_READY_WORKER_SECONDS",
            "ready_worker_seconds",
            lambda n, r: _parse_int(n, r, 0, 86400),
        )
        take(
            "VAULT_CLEARANCE_REAP_INTERVAL_SECONDS",
            "clearance_reap_interval_seconds",
            lambda n, r: _parse_int(n, r, 0, 3600),
        )
        take(
            "VAULT_TRUSTED_PROXY_HOPS",
            "trusted_proxy_hops",
            lambda n, r: _parse_int(n, r, 0, 10),
        )
        take("VAULT_JUDGE_URL", "judge_url", lambda n, r: _parse_url(n, r).rstrip("/"))
        take("VAULT_JUDGE_API_KEY", "judge_api_key", _parse_secret)
        take("VAULT_ALLOW_STUB_JUDGE", "allow_stub_judge", _parse_bool)
        take(
            "VAULT_JUDGE_TIMEOUT_SECONDS",
            "judge_timeout_seconds",
            lambda n, r: _parse_float(n, r, 0.1, 300),
        )
        take("VAULT_JUDGE_RETRIES", "judge_retries", lambda n, r: _parse_int(n, r, 0, 10))
        take(
            "VAULT_JUDGE_RETRY_BASE_SECONDS",
            "judge_retry_base_seconds",
            lambda n, r: _parse_float(n, r, 0, 300),
        )
        take("EMBEDDING_MODEL", "embedding_model", _parse_embedding_model)
        take("EVAL_MODEL", "eval_model", lambda n, r: r.strip())
        take("EVAL_BASE_URL", "eval_base_url", lambda n, r: _parse_url(n, r).rstrip("/"))
        take("EVAL_API_KEY", "eval_api_key", _parse_secret)
        take("JUDGE_API_KEY", "judge_service_api_key", _parse_secret)
        take("JUDGE_UVICORN_WORKERS", "judge_workers", lambda n, r: _parse_int(n, r, 1, 64))
        raw_limit = env.get("JUDGE_ENDPOINT_RATE_LIMIT", "").strip()
        if raw_limit:
            values["judge_endpoint_burst"], values["judge_endpoint_rate"] = _parse_rate_limit(
                "JUDGE_ENDPOINT_RATE_LIMIT", raw_limit
            )
        take("VAULT_RATE_LIMIT_RPS", "rate_limit_rps", lambda n, r: _parse_int(n, r, 0, 1_000_000))
        take(
            "VAULT_RATE_LIMIT_BURST",
            "rate_limit_burst",
            lambda n, r: _parse_int(n, r, 0, 1_000_000),
        )
        take(
            "VAULT_RATE_LIMIT_TTL_SECONDS",
            "rate_limit_ttl_seconds",
            lambda n, r: _parse_int(n, r, 1, 86400),
        )
        take(
            "VAULT_REVIEW_TTL_SECONDS",
            "review_ttl_seconds",
            lambda n, r: _parse_int(n, r, 1, 365 * 86400),
        )
        take(
            "VAULT_DECISION_CACHE_TTL_SECONDS",
            "decision_cache_ttl_seconds",
            lambda n, r: _parse_int(n, r, 1, 86400),
        )
        take("VAULT_WEBHOOK_ALLOW_PRIVATE", "webhook_allow_private", _parse_bool)
        take("VAULT_NOTIFY_RETRY_INTERVALS", "notify_retry_intervals", _parse_intervals)
        take("SMTP_HOST", "smtp_host", lambda n, r: r.strip())
        take("SMTP_PORT", "smtp_port", lambda n, r: _parse_int(n, r, 1, 65535))
        take("SMTP_USERNAME", "smtp_username", lambda n, r: r.strip())
        take("SMTP_PASSWORD", "smtp_password", lambda n, r: r)
        take(
            "SMTP_SECURITY",
            "smtp_security",
            lambda n, r: _parse_choice(n, r, ("none", "starttls", "ssl")),
        )
        take(
            "SMTP_STARTTLS",
            "smtp_security",
            lambda n, r: "starttls" if _parse_bool(n, r) else "none",
        )
        take("SMTP_FROM", "smtp_from", lambda n, r: r.strip())
        take("SMTP_CA_FILE", "smtp_ca_file", _parse_existing_file)
        take("VAULT_LEDGER_ANCHOR_DIR", "anchor_dir", lambda n, r: str(Path(r).resolve()))
        take("VAULT_LEDGER_ANCHOR_BUCKET", "anchor_bucket", lambda n, r: r.strip())
        take(
            "VAULT_LEDGER_ANCHOR_BUCKET_TEMPLATE", "anchor_bucket_template", _parse_bucket_template
        )
        take("VAULT_LEDGER_ANCHOR_PREFIX", "anchor_prefix", lambda n, r: r.strip().strip("/"))
        take("VAULT_LEDGER_ANCHOR_REGION", "anchor_region", lambda n, r: r.strip())
        take(
            "VAULT_LEDGER_ANCHOR_ENDPOINT_URL", "anchor_endpoint_url", lambda n, r: _parse_url(n, r)
        )
        take("VAULT_LEDGER_REQUIRE_BUCKET_VERSIONING", "require_bucket_versioning", _parse_bool)
        take("VAULT_LEDGER_REQUIRE_OBJECT_LOCK", "require_object_lock", _parse_bool)
        take(
            "VAULT_LEDGER_ANCHOR_BACKFILL_INTERVAL_SECONDS",
            "anchor_interval_seconds",
            lambda n, r: _parse_int(n, r, 1, 86400),
        )
        take(
            "VAULT_LEDGER_ANCHOR_BACKFILL_BATCH_SIZE",
            "anchor_batch_size",
            lambda n, r: _parse_int(n, r, 1, 100_000),
        )
        if not values.get("anchor_region"):
            take("AWS_REGION", "anchor_region", lambda n, r: r.strip())

        values.update(overrides)
        config = cls(**values)
        return config._with_defaults()._validated()

    def _with_defaults(self) -> Config:
        from dataclasses import replace

        instance = Path(self.instance_path)
        return replace(
            self,
            instance_path=instance,
            database_url=self.database_url or f"sqlite:///{instance / 'vault.sqlite3'}",
            redis_url=self.redis_url or f"unix://{instance / 'redis.sock'}",
            anchor_dir=self.anchor_dir or str(instance / "anchor"),
            public_url=self.public_url or f"http://127.0.0.1:{self.port}",
        )

    def _validated(self) -> Config:
        if self.signer_backend == "aws_kms":
            raise ConfigError(
                "VAULT_SIGNER_BACKEND=aws_kms is not supported yet: use the local backend "
                "with VAULT_PRIVATE_KEY_FILE or VAULT_PRIVATE_KEY_BASE64"
            )
        if self.private_key_file and self.private_key_base64:
            raise ConfigError(
                "VAULT_PRIVATE_KEY_FILE and VAULT_PRIVATE_KEY_BASE64 are both set: choose one"
            )
        if self.private_key_base64:
            _parse_signing_key("VAULT_PRIVATE_KEY_BASE64", self.private_key_base64)
        if self.private_key_file and not Path(self.private_key_file).is_file():
            raise ConfigError(
                f"VAULT_PRIVATE_KEY_FILE names no readable file: {self.private_key_file}"
            )
        if self.rate_limit_rps and self.rate_limit_burst < 1:
            raise ConfigError("VAULT_RATE_LIMIT_BURST must be at least 1 while the limit is on")
        if self.judge_url and not self.judge_api_key:
            raise ConfigError("VAULT_JUDGE_API_KEY is required when VAULT_JUDGE_URL is set")
        if self.allow_stub_judge and self.is_production:
            raise ConfigError(
                "VAULT_ALLOW_STUB_JUDGE is for development only and is refused in production"
            )
        if self.eval_model and not self.eval_base_url:
            raise ConfigError("EVAL_BASE_URL is required when EVAL_MODEL is set")
        if self.anchor_bucket and self.anchor_bucket_template:
            raise ConfigError(
                "VAULT_LEDGER_ANCHOR_BUCKET and VAULT_LEDGER_ANCHOR_BUCKET_TEMPLATE are both set: choose one"
            )
        if self.is_production:
            missing = [
                name
                for name, value in (
                    ("VAULT_SECRET_KEY", self.secret_key),
                    ("VAULT_TRANSPORT_KEY_BASE64", self.transport_key),
                    ("DATABASE_URL", not self.uses_sqlite),
                )
                if not value
            ]
            if not (self.private_key_file or self.private_key_base64):
                missing.append("VAULT_PRIVATE_KEY_FILE or VAULT_PRIVATE_KEY_BASE64")
            if missing:
                raise ConfigError(
                    "production refuses to start without: "
                    + ", ".join(missing)
                    + " (DATABASE_URL must name PostgreSQL)"
                )
        return self

    @property
    def anchor_backend(self) -> str:
        return "s3" if (self.anchor_bucket or self.anchor_bucket_template) else "folder"


def _parse_database_url(name: str, raw: str) -> str:
    value = raw.strip()
    if value.startswith("postgres://"):
        value = "postgresql+psycopg://" + value[len("postgres://") :]
    elif value.startswith("postgresql://"):
        value = "postgresql+psycopg://" + value[len("postgresql://") :]
    if not (value.startswith("sqlite:///") or value.startswith("postgresql+psycopg://")):
        raise ConfigError(f"{name} must be a sqlite:/// or postgresql:// URL")
    return value


def _parse_secret(name: str, raw: str) -> str:
    value = raw.strip()
    if len(value) < 16:
        raise ConfigError(f"{name} must be at least 16 characters long")
    return value


def _parse_key_id(name: str, raw: str) -> str:
    import re

    value = raw.strip()
    if not re.fullmatch(r"[A-Za-z0-9._:-]{1,64}", value):
        raise ConfigError(f"{name} must be 1-64 characters of A-Z a-z 0-9 . _ : -")
    return value


def _parse_existing_file(name: str, raw: str) -> str:
    path = Path(raw.strip())
    if not path.is_file():
        raise ConfigError(f"{name} names no readable file: {raw.strip()}")
    return str(path)


def _parse_bucket_template(name: str, raw: str) -> str:
    value = raw.strip()
    if "{client_id}" not in value:
        raise ConfigError(f"{name} must contain {{client_id}}")
    return value


# The embedders ingest/embed.py provides, by their canonical names (stored with every vector).
EMBEDDING_MODELS = {
    "hashing-v1": "hashing-v1",
    "all-minilm-l6-v2": "all-MiniLM-L6-v2",
    "sentence-transformers/all-minilm-l6-v2": "all-MiniLM-L6-v2",
}


def _parse_embedding_model(name: str, raw: str) -> str:
    canonical = EMBEDDING_MODELS.get(raw.strip().lower())
    if canonical is None:
        raise ConfigError(f"{name} must be hashing-v1 or all-MiniLM-L6-v2, got {raw!r}")
    return canonical


def _parse_intervals(name: str, raw: str) -> tuple[int, ...]:
    """``10,60,300`` → seconds before each retry (one retry per number, at most 10)."""
    try:
        values = tuple(int(part) for part in raw.split(",") if part.strip())
    except ValueError:
        raise ConfigError(f"{name} must be comma-separated whole seconds, e.g. 10,60,300") from None
    if not values or len(values) > 10 or any(v < 0 or v > 86400 for v in values):
        raise ConfigError(f"{name} must list 1 to 10 intervals of 0 to 86400 seconds")
    return values


def _parse_rate_limit(name: str, raw: str) -> tuple[int, float]:
    """``600/minute`` → (burst 600, 10.0 per second)."""
    import re

    match = re.fullmatch(r"(\d+)\s*/\s*(second|minute|hour)", raw.strip().lower())
    if not match or int(match.group(1)) < 1:
        raise ConfigError(f"{name} must look like 600/minute (per second, minute or hour)")
    count = int(match.group(1))
    seconds = {"second": 1, "minute": 60, "hour": 3600}[match.group(2)]
    return count, count / seconds


def _parse_signing_key(name: str, raw: str) -> bytes:
    try:
        key = base64.b64decode(raw.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise ConfigError(f"{name} must be base64") from None
    # Accept a 32-byte seed, or libsodium's 64-byte seed||public form.
    if len(key) not in (32, 64):
        raise ConfigError(f"{name} must decode to a 32-byte Ed25519 seed (or 64-byte secret key)")
    return key[:32]
