"""Layering of the queue: services enqueue through webapp/queueing.py and never import jobs."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_service_imports_jobs():
    offenders = []
    for path in sorted((ROOT / "webapp").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            offenders += [
                f"{path.relative_to(ROOT)}: {name}"
                for name in names
                if name == "jobs" or name.startswith("jobs.")
            ]
    assert offenders == []


def test_every_queued_job_names_a_real_entry_point_and_queue():
    import importlib

    from jobs import queues
    from webapp import queueing

    assert queueing.ALL == queues.ALL  # the worker listens on the queues the web enqueues to
    source = (ROOT / "webapp" / "queueing.py").read_text()
    dotted = [
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith("jobs.")
    ]
    assert len(dotted) == 7
    for name in dotted:
        module, function = name.rsplit(".", 1)
        assert callable(getattr(importlib.import_module(module), function)), name
