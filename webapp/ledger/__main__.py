"""Command line: `python -m webapp.ledger verify-bundle bundle.json [--jwks jwks.json]`.

Prints one ✓ or ✗ line per check and exits 0 only when the bundle is intact (1 otherwise, also
for unreadable input). Needs only this package, PyNaCl and rfc8785: no Flask, no database.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .verify import verify_bundle


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the process exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m webapp.ledger", description="Offline checks of ledger proof bundles."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify-bundle", help="verify a proof bundle (CONTRACT §11)")
    verify.add_argument("bundle", type=Path, help="the JSON of GET /ledger/proof/bundle")
    verify.add_argument("--jwks", type=Path, help="the JSON of GET /.well-known/jwks.json")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)

    try:
        bundle = _load_json(args.bundle)
        jwks = _load_json(args.jwks) if args.jwks else None
    except (OSError, ValueError) as exc:
        print(f"✗ input — {exc}")
        print("NOT INTACT")
        return 1

    report = verify_bundle(bundle, jwks)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        for check in report.checks:
            print(f"{'✓' if check.ok else '✗'} {check.name} — {check.detail}")
        print("INTACT" if report.intact else "NOT INTACT")
    return 0 if report.intact else 1


def _load_json(path: Path) -> Any:
    def refuse_constant(name: str) -> None:
        raise ValueError(f"{path}: {name} is not JSON")

    try:
        return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from exc


if __name__ == "__main__":
    sys.exit(main())
