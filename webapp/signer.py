"""The signer: one interface for Ed25519 signatures on tokens, receipts and checkpoints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from nacl.signing import SigningKey

from config import Config
from webapp.secrets import signing_seed


class Signer(Protocol):
    key_id: str

    def sign(self, data: bytes) -> bytes: ...

    def public_key(self) -> bytes: ...


@dataclass
class LocalSigner:
    """Ed25519 with a key held in this process (file, base64, or generated in instance/)."""

    key_id: str
    _key: SigningKey

    @classmethod
    def from_config(cls, config: Config) -> LocalSigner:
        return cls(config.key_id, SigningKey(signing_seed(config)))

    def sign(self, data: bytes) -> bytes:
        return self._key.sign(data).signature

    def public_key(self) -> bytes:
        return bytes(self._key.verify_key)


def build_signer(config: Config) -> Signer:
    """The configured backend; Config already refused the ones this build lacks."""
    return LocalSigner.from_config(config)
