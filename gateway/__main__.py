"""``make gateway``: check the settings and the routes file, then serve in the foreground."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gateway.config import GatewayConfig, GatewayConfigError
from gateway.routes import RoutesError, load_routes


def main() -> int:
    try:
        config = GatewayConfig.from_env()
        routes = load_routes(config.routes_file)
    except (GatewayConfigError, RoutesError) as error:
        print(f"gateway configuration error: {error}", file=sys.stderr)
        return 2
    for route in routes.routes:
        methods = ",".join(sorted(route.methods))
        print(f"route {route.path} [{methods}] -> tool {route.tool} at {route.upstream}")
    print(f"tool gateway listening on http://{config.host}:{config.port}", flush=True)
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    root = str(Path(__file__).resolve().parent.parent)
    # gunicorn handles SIGINT/SIGTERM; gthread workers keep streamed answers flowing.
    os.execv(
        gunicorn,
        [
            gunicorn,
            "--bind",
            f"{config.host}:{config.port}",
            "--workers",
            os.environ.get("GATEWAY_WORKERS", "2"),
            "--worker-class",
            "gthread",
            "--threads",
            "16",
            "--graceful-timeout",
            "10",
            "--access-logfile",
            "-" if os.environ.get("GATEWAY_ACCESS_LOG") else "/dev/null",
            "--no-control-socket",
            "--chdir",
            root,
            "gateway_wsgi:app",
        ],
    )
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
