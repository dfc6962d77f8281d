"""Drift signals on crafted histories: pure functions, no database, no Redis."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from webapp.drift import features
from webapp.drift.scoring import (
    HIGH,
    LEARNING,
    LOW,
    MEDIUM,
    assess,
    combine,
    risk_level,
    split_history,
)
from webapp.drift.signals import SIGNALS, SignalResult, evaluate_all, is_weekend

SETTINGS = {
    "enabled": True,
    "baseline_days": 7,
    "window_hours": 24,
    "score_threshold": 0.7,
    "min_events": 20,
    "auto_lockdown": False,
}
# A Wednesday, 14:00 UTC, as an hour index.
NOW = 491_390
KNOWN_IBANS = [f"DE89370400440532013{n:03d}" for n in range(8)]


def test_the_test_clock_is_a_working_wednesday_afternoon():
    assert NOW % 24 == 14 and not is_weekend(NOW) and (NOW // 24 + 3) % 7 == 2


class Agent:
    """Builds an agent's hourly buckets with the real counter encoding."""

    def __init__(self, seed: int = 7) -> None:
        self.random = random.Random(seed)
        self.buckets: dict[int, Counter] = {}

    def decide(self, hour: int, tool: str = "pay", amount: float | None = None, **extra) -> None:
        args = {"amount": amount if amount is not None else self.random.uniform(80, 120)}
        args["iban"] = extra.pop("iban", self.random.choice(KNOWN_IBANS))
        outcome = extra.pop("outcome", "allow")
        counters = features.decision_counters(tool, {**args, **extra}, {}, outcome)
        self.buckets.setdefault(hour, Counter()).update(counters)

    def token(self, hour: int, event: str, times: int = 1) -> None:
        self.buckets.setdefault(hour, Counter())[features.token_counter(event)] += times

    def normal_days(self, days: int = 8, per_hour: int = 4, until: int = NOW) -> Agent:
        """Weekday working hours (09–17 UTC), two tools, amounts ~100, known IBANs."""
        for hour in range(until - days * 24, until):
            if is_weekend(hour) or not 9 <= hour % 24 < 17:
                continue
            for _ in range(per_hour + self.random.choice((-1, 0, 0, 1))):
                tool = "pay" if self.random.random() < 0.8 else "refund"
                self.decide(hour, tool)
                self.token(hour, "minted")
                self.token(hour, "consumed")
        return self

    def signals(self, settings: dict | None = None) -> dict[str, SignalResult]:
        history = split_history(self.buckets, NOW, settings or SETTINGS)
        return {r.kind: r for r in evaluate_all(history)}

    def assessment(self, settings: dict | None = None):
        return assess(split_history(self.buckets, NOW, settings or SETTINGS), settings or SETTINGS)


def test_every_signal_is_quiet_for_an_agent_that_keeps_its_habits():
    results = Agent().normal_days().signals()
    assert set(results) == set(SIGNALS)
    for result in results.values():
        assert result.score < 0.3, (result.kind, result.score, result.evidence)
    assessment = Agent().normal_days().assessment()
    assert assessment.risk_level == LOW


def test_volume_burst_scores_high_with_a_robust_z_score():
    agent = Agent().normal_days()
    for _ in range(25):
        agent.decide(NOW)
    volume = agent.signals()["volume"]
    assert volume.score >= 0.9
    assert volume.evidence["last_hour"] >= 25 and volume.evidence["z"] > 6


def test_a_slightly_busier_hour_is_not_drift():
    agent = Agent().normal_days()
    for _ in range(7):
        agent.decide(NOW)
    assert agent.signals()["volume"].score == 0


def test_new_capability_counts_calls_of_tools_never_seen_in_the_baseline():
    agent = Agent().normal_days()
    for _ in range(4):
        agent.decide(NOW, tool="export_customers")
    signal = agent.signals()["new_capability"]
    assert signal.score == 1.0
    assert signal.evidence["new_tools"] == {"export_customers": 4}
    one = Agent().normal_days()
    one.decide(NOW, tool="export_customers")
    assert 0 < one.signals()["new_capability"].score < 0.5


def test_tool_mix_shift_is_a_divergence_between_distributions():
    agent = Agent().normal_days()
    for _ in range(60):
        agent.decide(NOW - 1, tool="refund")  # 20 % in the baseline, most of the window now
    signal = agent.signals()["tool_mix"]
    assert signal.score > 0.3 and signal.evidence["divergence"] > 0.15
    few = Agent().normal_days()
    for _ in range(3):
        few.decide(NOW, tool="refund")
    assert few.signals()["tool_mix"].score < 0.1  # three calls are no distribution


def test_argument_outliers_beyond_the_baselines_p99_for_that_tool():
    agent = Agent().normal_days()
    for amount in (500, 900, 1500, 2500):
        agent.decide(NOW, amount=amount)
    signal = agent.signals()["argument_outliers"]
    assert signal.score >= 0.9
    (worst,) = signal.evidence["outliers"]
    assert (worst["tool"], worst["argument"], worst["above_p99"]) == ("pay", "amount", 4)
    assert worst["baseline_p99"] < 200 and worst["window_max"] > 2000
    # The same amounts on a tool whose baseline is too small to have quantiles: no verdict.
    thin = Agent().normal_days()
    for amount in (500, 900, 1500, 2500):
        thin.decide(NOW, tool="payroll", amount=amount)
    assert thin.signals()["argument_outliers"].score == 0


def test_new_counterparties_are_counted_beyond_the_baselines_own_pace():
    agent = Agent().normal_days()
    for n in range(4):
        agent.decide(NOW, iban=f"GB33BUKB20201555555{n:03d}")
    signal = agent.signals()["new_counterparties"]
    assert signal.score >= 0.8 and signal.evidence["new_counterparties"] == 4
    known = Agent().normal_days()
    for iban in KNOWN_IBANS[:4]:
        known.decide(NOW, iban=iban)
    assert known.signals()["new_counterparties"].score == 0


def test_counterparties_come_from_destination_fields_ibans_domains_and_accounts():
    parties = features.counterparties(
        {
            "amount": 5,
            "note": "GB33 BUKB 2020 1555 5555 55",  # an IBAN anywhere counts
            "webhook_url": "https://www.evil.example/path",
            "account_id": "acct-42",
            "memo": "lunch",
        },
        {"destination_provider": "stripe"},
    )
    assert len(parties) == 4
    same_domain = features.counterparties({"webhook_url": "https://evil.example/other"}, {})
    assert set(same_domain) <= set(parties)  # a URL counts by its domain
    counters = features.decision_counters("pay", {"iban": "GB33BUKB20201555555555"}, {}, "allow")
    assert not any("GB33" in key for key in counters)  # digests only, never the raw value


def test_outcome_shift_is_a_spike_in_denials_or_reviews():
    agent = Agent().normal_days()
    for _ in range(10):
        agent.decide(NOW, outcome="deny")
    signal = agent.signals()["outcome_shift"]
    assert signal.score >= 0.9 and signal.evidence["window_rate"] > signal.evidence["baseline_rate"]


def test_off_hours_is_activity_outside_the_hour_of_week_profile():
    agent = Agent().normal_days()
    for _ in range(5):
        agent.decide(NOW - 11)  # 03:00 UTC
    signal = agent.signals()["off_hours"]
    assert signal.score >= 0.75 and signal.evidence["hours_utc"] == [3]
    late = Agent().normal_days()
    late.decide(NOW - 11)
    assert late.signals()["off_hours"].score == 0  # one late request is not a pattern


def test_weekend_activity_is_off_hours_for_an_agent_that_never_works_weekends():
    saturday_noon = NOW - 24 * 4 - 2
    assert is_weekend(saturday_noon) and saturday_noon % 24 == 12
    settings = {**SETTINGS, "window_hours": 168, "baseline_days": 14}
    agent = Agent().normal_days(days=22)
    for _ in range(6):
        agent.decide(saturday_noon)
    signal = agent.signals(settings)["off_hours"]
    assert signal.score >= 0.75 and signal.evidence["works_weekends"] is False


def test_token_hygiene_args_mismatch_and_replays_are_strong_signs():
    agent = Agent().normal_days()
    agent.token(NOW, "args_mismatch")
    one = agent.signals()["token_hygiene"].score
    agent.token(NOW, "replay")
    two = agent.signals()["token_hygiene"]
    assert 0.5 <= one < two.score and two.score >= 0.75
    assert (two.evidence["args_mismatch"], two.evidence["replays"]) == (1, 1)


def test_token_hygiene_unconsumed_tokens_against_the_baselines_habit():
    agent = Agent().normal_days(days=7, until=NOW - 23)
    for hour in range(NOW - 8, NOW):
        agent.decide(hour)
        agent.token(hour, "minted", 2)  # minted, never consumed
    signal = agent.signals()["token_hygiene"]
    assert signal.score >= 0.7 and signal.evidence["baseline_unconsumed_share"] == 0
    # An integration that never consumes tokens has nothing unusual about it.
    never = Agent()
    for hour in range(NOW - 24 * 8, NOW):
        if 9 <= hour % 24 < 17 and not is_weekend(hour):
            never.decide(hour)
            never.token(hour, "minted")
    assert never.signals()["token_hygiene"].score == 0


def test_an_agent_with_a_thin_baseline_is_learning_never_high():
    agent = Agent()
    for hour in range(NOW - 30, NOW - 25):
        agent.decide(hour)
    for _ in range(30):
        agent.decide(NOW, tool="wire", iban=f"GB33BUKB20201555555{random.randrange(999):03d}")
    assessment = agent.assessment()
    assert assessment.drift_score >= 0.7
    assert assessment.risk_level == LEARNING


def test_risk_levels_follow_the_threshold():
    assert risk_level(0.75, 100, SETTINGS) == HIGH
    assert risk_level(0.5, 100, SETTINGS) == MEDIUM
    assert risk_level(0.3, 100, SETTINGS) == LOW
    assert risk_level(0.99, 19, SETTINGS) == LEARNING
    assert risk_level(0.5, 100, {**SETTINGS, "score_threshold": 0.5}) == HIGH


def test_one_clear_signal_is_enough_and_weak_ones_corroborate_without_running_away():
    def results(*scores):
        kinds = ["volume", "new_capability", "argument_outliers", "off_hours", "token_hygiene"]
        return [SignalResult(kind, s) for kind, s in zip(kinds, scores, strict=False)]

    assert combine(results(0.9)) == pytest.approx(0.9)
    assert combine(results(0.5, 0.5)) > 0.6
    assert combine(results(0.1, 0.1, 0.1, 0.1, 0.1)) < 0.25
    assert combine(results(0.0, 0.0)) == 0
    # A lighter signal weighs less: tool mix alone never reaches high.
    assert combine([SignalResult("tool_mix", 1.0)]) == pytest.approx(SIGNALS["tool_mix"].weight)


def test_numeric_arguments_are_binned_on_a_log_scale():
    assert features.value_bin(0.5) == 0
    assert features.value_bin(100) == -features.value_bin(-100)
    assert features.value_bin(2 * 100) - features.value_bin(100) == features.BINS_PER_OCTAVE
    assert features.bin_upper_edge(features.value_bin(100)) >= 100


def test_a_burst_inside_a_quarter_hour_is_seen_before_the_hour_is_over():
    agent = Agent().normal_days()
    for bucket in agent.buckets.values():  # spread the baseline over its quarters
        n = bucket["n"]
        for q in range(4):
            bucket[f"q\t{q}"] = n // 4 + (1 if q < n % 4 else 0)
    burst = Counter({"n": 14, "q\t1": 14, "t\tpay": 14})
    agent.buckets[NOW] = burst
    history = split_history(agent.buckets, NOW, SETTINGS, now_quarter=1)
    volume = next(r for r in evaluate_all(history) if r.kind == "volume")
    assert volume.score >= 0.7 and volume.evidence["time_scale"] in ("quarter", "two_quarters")
    assert volume.evidence["last_quarter_hour"] == 14


def test_never_seen_before_looks_past_the_baseline():
    agent = Agent().normal_days()
    old_partner = f"t{features.SEP}ledger_export"
    for _ in range(4):
        agent.decide(NOW, tool="ledger_export")
    fresh = split_history(agent.buckets, NOW, SETTINGS, first_seen={})
    remembered = split_history(
        agent.buckets, NOW, SETTINGS, first_seen={old_partner: NOW - 24 * 40}
    )
    by_kind = {r.kind: r for r in evaluate_all(fresh)}
    assert by_kind["new_capability"].score == 1.0
    by_kind = {r.kind: r for r in evaluate_all(remembered)}
    assert by_kind["new_capability"].score == 0  # used 40 days ago: not new
