"""An internal failure of the built-in judge is retried like a remote judge's, never a deny."""

from __future__ import annotations

import pytest

from tests.helpers import register_policy
from webapp.judge.types import ClearanceQuery


def _nested(depth: int) -> dict:
    # Deeper than the interpreter's recursion limit: the engine's walk over the arguments fails.
    root: dict = {}
    node = root
    for _ in range(depth):
        node["x"] = {}
        node = node["x"]
    return root


def test_an_engine_failure_raises_judge_unavailable_and_the_inline_path_queues_it(app, tenant):
    from webapp.services import judging

    client = app.test_client()
    register_policy(client, tenant, "refunds", ["Refunds must not exceed 500 EUR."], ["issue_*"])
    poison = ClearanceQuery("issue_refund", {"amount": 10, "meta": _nested(5000)}, "agent-7")
    fine = ClearanceQuery("issue_refund", {"amount": 10, "currency": "EUR"}, "agent-7")
    with app.app_context():
        with pytest.raises(judging.JudgeUnavailable):
            judging.evaluate_locally(tenant.client_id, poison)
        # The web process does not answer it: the request goes to the slow lane, which retries.
        assert judging.judge_at_once(tenant.client_id, poison) is None
        verdict = judging.judge_at_once(tenant.client_id, fine)
        assert verdict is not None and verdict.decision == "allow"
