"""Configuration: every variable honoured or refused, bad values named."""

from __future__ import annotations

import base64

import pytest

from config import UNSUPPORTED, Config, ConfigError


def build(**env: str) -> Config:
    return Config.from_env({"VAULT_INSTANCE_PATH": "/tmp/vault-config-test", **env})


def test_defaults_follow_the_spec():
    config = build()
    assert (config.host, config.port) == ("0.0.0.0", 8000)
    assert config.key_id == "vault-key-001"
    assert (config.jwt_ttl, config.jwt_issuer, config.jwt_audience) == (
        300,
        "alcv-vault",
        "ledgix-sdk",
    )
    assert (config.rate_limit_rps, config.rate_limit_burst, config.rate_limit_ttl_seconds) == (
        20,
        40,
        180,
    )
    assert config.database_url.startswith("sqlite:///") and config.database_url.endswith(
        "vault.sqlite3"
    )
    assert config.redis_url.startswith("unix://") and config.redis_url.endswith("redis.sock")
    assert config.max_body_bytes == 1024 * 1024
    assert config.clearance_queue_size == 2048 and config.clearance_sync_wait_ms == 1500
    assert config.anchor_interval_seconds == 30 and config.anchor_batch_size == 500
    assert config.require_bucket_versioning is True and config.require_object_lock is False


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("VAULT_PORT", "eighty"),
        ("VAULT_PORT", "70000"),
        ("VAULT_JWT_TTL", "0"),
        ("VAULT_RATE_LIMIT_RPS", "-1"),
        ("VAULT_SIGNER_BACKEND", "hsm"),
        ("VAULT_LEDGER_REQUIRE_BUCKET_VERSIONING", "maybe"),
        ("VAULT_TRANSPORT_KEY_BASE64", base64.b64encode(b"short").decode()),
        ("VAULT_TRANSPORT_KEY_BASE64", "%%%not-base64%%%"),
        ("DATABASE_URL", "mysql://root@localhost/vault"),
        ("REDIS_URL", "http://127.0.0.1:6379"),
        ("LOG_FORMAT", "xml"),
        ("VAULT_KEY_ID", "bad key id with spaces"),
        ("VAULT_ADMIN_API_KEY", "short"),
        ("VAULT_LEDGER_ANCHOR_BUCKET_TEMPLATE", "no-placeholder"),
        ("VAULT_PRIVATE_KEY_BASE64", base64.b64encode(b"x" * 10).decode()),
        ("VAULT_PRIVATE_KEY_FILE", "/definitely/not/here.key"),
        ("VAULT_MAX_BODY_BYTES", "12"),
        ("EMBEDDING_MODEL", "word2vec"),
        ("JUDGE_ENDPOINT_RATE_LIMIT", "lots"),
        ("VAULT_NOTIFY_RETRY_INTERVALS", "10,soon"),
    ],
)
def test_invalid_values_stop_start_up_and_name_the_variable(name, value):
    with pytest.raises(ConfigError) as error:
        build(**{name: value})
    assert name in str(error.value)


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported_variables_are_refused_not_ignored(name):
    with pytest.raises(ConfigError) as error:
        build(**{name: "something"})
    assert name in str(error.value) and "not supported yet" in str(error.value)


def test_aws_kms_backend_is_refused_with_a_clear_message():
    with pytest.raises(ConfigError, match="aws_kms is not supported yet"):
        build(VAULT_SIGNER_BACKEND="aws_kms")


def test_stub_judge_is_refused_in_production():
    with pytest.raises(ConfigError, match="VAULT_ALLOW_STUB_JUDGE"):
        build(VAULT_ENV="production", VAULT_ALLOW_STUB_JUDGE="true")


def test_production_refuses_to_start_without_its_secrets():
    with pytest.raises(ConfigError) as error:
        build(VAULT_ENV="production")
    message = str(error.value)
    for name in (
        "VAULT_SECRET_KEY",
        "VAULT_TRANSPORT_KEY_BASE64",
        "DATABASE_URL",
        "VAULT_PRIVATE_KEY",
    ):
        assert name in message


def test_postgres_urls_are_normalised_to_psycopg():
    assert build(DATABASE_URL="postgresql://u@h/db").database_url == "postgresql+psycopg://u@h/db"
    assert build(DATABASE_URL="postgres://u@h/db").database_url == "postgresql+psycopg://u@h/db"


def test_judge_url_needs_its_key():
    with pytest.raises(ConfigError, match="VAULT_JUDGE_API_KEY"):
        build(VAULT_JUDGE_URL="http://127.0.0.1:9000")


def test_embedding_model_names_are_canonical():
    assert build(EMBEDDING_MODEL="ALL-minilm-L6-v2").embedding_model == "all-MiniLM-L6-v2"
    assert build().embedding_model == "hashing-v1"


def test_judge_endpoint_rate_limit_is_parsed():
    config = build(JUDGE_ENDPOINT_RATE_LIMIT="120/minute")
    assert (config.judge_endpoint_burst, config.judge_endpoint_rate) == (120, 2.0)


def test_smtp_starttls_switch():
    assert build(SMTP_STARTTLS="true").smtp_security == "starttls"
    assert build(SMTP_SECURITY="ssl").smtp_security == "ssl"


def test_supervisor_exits_with_the_message(tmp_path):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "jobs/supervisor.py"],
        env={
            "VAULT_PORT": "not-a-port",
            "PATH": "/usr/bin:/bin",
            "VAULT_INSTANCE_PATH": str(tmp_path),
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "VAULT_PORT" in result.stderr
