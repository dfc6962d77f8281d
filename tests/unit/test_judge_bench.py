"""The whole benchmark case set: never an unsafe approval, and agreement at the issue's target."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "judge.py"


def _load_bench():
    spec = importlib.util.spec_from_file_location("judge_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


_BENCH = _load_bench()
# The sets are the bench's own lists, so a set added there is held here without a second copy.
_BLIND_SETS = [s for s in _BENCH.HOLDOUT_SETS if s not in ("holdout_2", "holdout_3", "holdout_4")]


@pytest.fixture(scope="module")
def bench():
    return _BENCH


def test_cases_are_well_formed(bench):
    cases = bench.load_cases()
    assert len(cases) >= 150
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids))
    cats = {c["category"] for c in cases}
    assert {"payments", "payouts", "cloud_admin", "data_export", "email", "hr", "deploys"} <= cats
    for c in cases:
        assert c["expected"] in ("approved", "denied", "pending_review"), c["id"]
        assert isinstance(c["tool_args"], dict) and c["note"], c["id"]


def test_no_unsafe_approvals_and_agreement_target(bench):
    cases = bench.load_cases()
    result = bench.run_all(cases)
    assert result["unsafe"] == [], result["unsafe"]
    # The whole main set, development files included, at the target (85 %)...
    assert result["agree"] / result["total"] >= 0.85, result["misses"]
    # ...and the original category files at 0.90, not the 0.95 of the tuned engine: a partly
    # understood rule now goes to review by design (issue #10), which costs a few cases where the
    # old reading guessed right.
    original = [c for c in cases if not c["id"].startswith(("d4-", "lead4-", "d6-", "d8-"))]
    result = bench.run_all(original)
    assert result["agree"] / result["total"] >= 0.90, result["misses"]


def test_the_second_holdout_is_well_formed_and_runs_apart(bench):
    cases = bench.load_cases(case_set="holdout_2")
    assert len(cases) >= 60
    assert not {c["id"] for c in cases} & {c["id"] for c in bench.load_cases()}
    assert {c["category"] for c in cases} == {
        "healthcare",
        "procurement",
        "cloud_iam",
        "crm",
        "trading",
        "support",
    }
    for c in cases:
        assert c["expected"] in ("approved", "denied", "pending_review"), c["id"]
    result = bench.run_all(cases)  # a measurement, never a target to tune on (bench/README.md)
    assert result["total"] == len(cases)


@pytest.mark.parametrize("case_set", _BLIND_SETS)
def test_the_blind_sets_run_apart_with_no_unsafe_approval(bench, case_set):
    # Blind when written; their first and final blind runs are in bench/README.md. Seen since,
    # so this guards the fail-safes found on them, it does not measure generalisation.
    cases = bench.load_cases(case_set=case_set)
    assert len(cases) == 70
    assert not {c["id"] for c in cases} & {c["id"] for c in bench.load_cases()}
    result = bench.run_all(cases)
    assert result["unsafe"] == [], result["unsafe"]


@pytest.mark.parametrize("case_set", _BENCH.APART_SETS)
def test_the_development_sets_run_apart_with_no_unsafe_approval(bench, case_set):
    # written to find misreadings (each first run is in bench/README.md); every unsafe approval
    # they found was fixed by class, and none may come back
    cases = bench.load_cases(case_set=case_set)
    assert cases
    assert not {c["id"] for c in cases} & {c["id"] for c in bench.load_cases()}
    result = bench.run_all(cases)
    assert result["unsafe"] == [], result["unsafe"]
