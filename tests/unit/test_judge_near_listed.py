"""A value that carries a deny-listed value inside it is close to the list: review, not approval."""

from __future__ import annotations

from webapp.judge.checks import SATISFIED, UNKNOWN, ValueList
from webapp.judge.history import NoHistory
from webapp.judge.request_view import RequestView


def _deny(*values: str) -> ValueList:
    return ValueList(
        rule_index=0,
        source="test",
        effect="deny",
        mode="deny",
        values=values,
        kind_words=("namespace",),
    )


def test_a_listed_value_inside_a_longer_one_is_undecided():
    check = _deny("kube-system", "istio-system")
    outcome = check.evaluate(_view({"namespace": "kube-system-old"}))
    assert outcome.status == UNKNOWN


def test_an_unrelated_value_is_still_satisfied():
    check = _deny("kube-system", "istio-system")
    outcome = check.evaluate(_view({"namespace": "team-a"}))
    assert outcome.status == SATISFIED


def _view(args: dict) -> RequestView:
    return RequestView("k8s.delete_namespace", args, "ops-agent", NoHistory())
