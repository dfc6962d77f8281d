"""The public auditor page of a shared report: no login, printable, verifiable in the browser."""

from __future__ import annotations

import json
from typing import Any

from flask import render_template


def render_shared_report(token: str, view: dict[str, Any]) -> str:
    """The HTML page for a shared report; the proof material rides along as inert JSON."""
    report = view["report"]
    return render_template(
        "reports/shared.html",
        token=token,
        report=report,
        summary=report.get("summary") or {},
        verification=view["verification"],
        proof_json=_script_safe(json.dumps(view["verification"], sort_keys=True)),
    )


def _script_safe(text: str) -> str:
    # Inside <script type="application/json">, "</script>" or "<!--" in a value would end the
    # element early; JSON allows these characters escaped.
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
