"""Per-app runtime objects (config, signer, keys, Redis), reachable from services and jobs."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import redis
from flask import current_app

from config import Config
from webapp.secrets import derived_key, transport_key
from webapp.signer import Signer, build_signer


@dataclass
class Vault:
    config: Config
    signer: Signer = field(init=False)
    api_key_pepper: bytes = field(init=False)
    transport_key: bytes = field(init=False)

    def __post_init__(self) -> None:
        self.signer = build_signer(self.config)
        self.api_key_pepper = derived_key(self.config, "api-key-pepper")
        self.transport_key = transport_key(self.config)

    @cached_property
    def redis(self) -> redis.Redis:
        # Short timeouts: a dead Redis must turn into a fast 503, not a hung worker.
        return redis.Redis.from_url(
            self.config.redis_url,
            socket_timeout=5,
            socket_connect_timeout=2,
            health_check_interval=30,
        )


def vault() -> Vault:
    """The runtime of the current app."""
    return current_app.extensions["vault"]
