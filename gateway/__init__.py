"""The tool gateway (CONTRACT §13), a process of its own in front of a protected service.

It calls the vault over HTTP only; nothing here imports ``webapp``.
"""

from __future__ import annotations

import logging

from gateway.app import Gateway
from gateway.config import GatewayConfig, GatewayConfigError
from gateway.routes import RoutesError, load_routes

__all__ = ["Gateway", "GatewayConfig", "GatewayConfigError", "RoutesError", "create_gateway"]


def create_gateway(config: GatewayConfig | None = None) -> Gateway:
    """Build the WSGI application from ``config`` (default: the environment)."""
    config = config or GatewayConfig.from_env()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    return Gateway(config, load_routes(config.routes_file))
