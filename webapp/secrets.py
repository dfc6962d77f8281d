"""Key material: loaded from configuration, or generated once under ``instance/`` (mode 0600)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets as _random
from pathlib import Path

from config import Config


def _read_or_create(path: Path, size: int) -> bytes:
    """Return the bytes in ``path``, creating it atomically with fresh random bytes if absent."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        return base64.b64decode(path.read_text().strip())
    except FileNotFoundError:
        pass
    value = _random.token_bytes(size)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(base64.b64encode(value).decode() + "\n")
    try:
        # Another process may have won the race: link fails and we read its key instead.
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    return base64.b64decode(path.read_text().strip())


def flask_secret_key(config: Config) -> str:
    if config.secret_key:
        return config.secret_key
    return _read_or_create(config.instance_path / "secret_key", 32).hex()


def transport_key(config: Config) -> bytes:
    """The 32-byte key for ledger encryption at rest."""
    if config.transport_key:
        return config.transport_key
    return _read_or_create(config.instance_path / "transport.key", 32)


def signing_seed(config: Config) -> bytes:
    """The Ed25519 seed of the active signing key (``VAULT_KEY_ID``)."""
    if config.private_key_base64:
        return base64.b64decode(config.private_key_base64)[:32]
    if config.private_key_file:
        raw = Path(config.private_key_file).read_bytes()
        if len(raw) in (32, 64):
            return raw[:32]
        return base64.b64decode(raw.strip())[:32]
    # One file per key id, so that changing VAULT_KEY_ID rotates to a new key and keeps the old.
    return _read_or_create(config.instance_path / "keys" / f"{config.key_id}.key", 32)


def derived_key(config: Config, purpose: str) -> bytes:
    """A sub-key of the secret key for one purpose (API-key pepper, share tokens...)."""
    return hmac.new(flask_secret_key(config).encode(), purpose.encode(), hashlib.sha256).digest()
