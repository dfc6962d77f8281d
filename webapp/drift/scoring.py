"""How signals combine into ``drift_score`` and ``risk_level`` (reasoning in docs/drift.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from webapp.drift.signals import SIGNALS, History, SignalResult, evaluate_all

LOW, MEDIUM, HIGH, LEARNING = "low", "medium", "high", "learning"
RISK_LEVELS = (LOW, MEDIUM, HIGH, LEARNING)
# Medium starts at this share of the tenant's score_threshold (which is where high starts).
MEDIUM_SHARE = 0.6


@dataclass(frozen=True)
class Assessment:
    drift_score: float
    risk_level: str
    baseline_events: int
    window_events: int
    signals: list[SignalResult]

    def signals_view(self) -> dict[str, Any]:
        return {s.kind: {"score": round(s.score, 4), "evidence": s.evidence} for s in self.signals}

    def firing(self) -> list[SignalResult]:
        """The signals that contribute, strongest first (what an event lists)."""
        return sorted((s for s in self.signals if s.score > 0), key=lambda s: -s.score)


def combine(results: list[SignalResult]) -> float:
    """The strongest weighted signal counts fully, the next half, the next a quarter…: one
    clear sign is enough, several weak ones corroborate, and many faint ones stay faint."""
    contributions = sorted(
        (SIGNALS[r.kind].weight * r.score if r.kind in SIGNALS else r.score for r in results),
        reverse=True,
    )
    remaining = 1.0
    for rank, contribution in enumerate(contributions):
        remaining *= 1 - contribution * 0.5**rank
    return round(1 - remaining, 4)


def risk_level(score: float, baseline_events: int, settings: Mapping[str, Any]) -> str:
    """``learning`` below ``min_events`` (never high, never medium), else by the threshold."""
    if baseline_events < settings["min_events"]:
        return LEARNING
    threshold = settings["score_threshold"]
    if score >= threshold:
        return HIGH
    if score >= threshold * MEDIUM_SHARE:
        return MEDIUM
    return LOW


def assess(history: History, settings: Mapping[str, Any]) -> Assessment:
    """Score one agent's history under the tenant's drift settings."""
    results = evaluate_all(history)
    score = combine(results)
    return Assessment(
        drift_score=score,
        risk_level=risk_level(score, history.baseline_events, settings),
        baseline_events=history.baseline_events,
        window_events=history.window_events,
        signals=results,
    )


def split_history(
    buckets: Mapping[int, Mapping[str, int]],
    now_hour: int,
    settings: Mapping[str, Any],
    now_quarter: int = 3,
    first_seen: Mapping[str, int] | None = None,
) -> History:
    """Cut hourly buckets into the window (the last ``window_hours``, this hour included) and
    the baseline (the ``baseline_days`` before it); older buckets are ignored. ``now_quarter``
    says how far into the current hour we are (0..3)."""
    window_hours = int(settings["window_hours"])
    baseline_hours = int(settings["baseline_days"]) * 24
    window_start = now_hour - window_hours + 1
    baseline_start = window_start - baseline_hours
    return History(
        baseline={h: b for h, b in buckets.items() if baseline_start <= h < window_start},
        window={h: b for h, b in buckets.items() if window_start <= h <= now_hour},
        now_hour=now_hour,
        window_hours=window_hours,
        baseline_hours=baseline_hours,
        now_quarter=now_quarter,
        first_seen=first_seen,
    )
