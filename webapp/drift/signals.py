"""The drift signals: one class per kind, each scoring 0..1 with the evidence behind it.

Every signal compares the agent's recent window (``window_hours``) with its baseline (the
``baseline_days`` before the window), both given as hourly counter buckets (see
``webapp.drift.features``). Signals look only upward (more, new, larger, stranger): a quieter
agent is not a compromised one. See docs/drift.md for the reasoning behind each cut-off.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from statistics import median
from typing import Any, ClassVar

from webapp.drift.features import OUTCOMES, SEP, TOTAL, bin_upper_edge

Buckets = Mapping[int, Mapping[str, int]]


def ramp(value: float, low: float, high: float) -> float:
    """0 at or below ``low``, 1 at or above ``high``, linear between."""
    if value <= low:
        return 0.0
    if value >= high:
        return 1.0
    return (value - low) / (high - low)


def robust_z(value: float, sample: list[float]) -> tuple[float, float, float]:
    """(z, median, spread): the median/MAD z-score, with a floor on the spread a little above
    the Poisson one (√(m+1) + 1), so that a very regular or very quiet baseline (MAD 0) does
    not turn a few extra requests into a huge z."""
    if not sample:
        return 0.0, 0.0, 1.0
    centre = median(sample)
    mad = median(abs(x - centre) for x in sample)
    spread = max(1.4826 * mad, math.sqrt(centre + 1.0) + 1.0)
    return (value - centre) / spread, centre, spread


@dataclass(frozen=True)
class History:
    """An agent's buckets split into baseline and window, with the hours they cover."""

    baseline: Buckets
    window: Buckets
    now_hour: int
    window_hours: int
    baseline_hours: int
    now_quarter: int = 3
    # When each tool and counterparty ("t\t…", "c\t…") was first seen, as an hour, over the
    # whole retained history (longer than the baseline); None to judge by the baseline alone.
    first_seen: Mapping[str, int] | None = None

    @cached_property
    def baseline_total(self) -> Counter:
        return _merge(self.baseline)

    @cached_property
    def window_total(self) -> Counter:
        return _merge(self.window)

    def is_new(self, key: str) -> bool:
        """Whether a tool or counterparty key was never seen before the window."""
        if self.first_seen is not None and key in self.first_seen:
            return self.first_seen[key] >= self.window_start
        return not self.baseline_total.get(key)

    @property
    def baseline_events(self) -> int:
        return self.baseline_total[TOTAL]

    @property
    def window_events(self) -> int:
        return self.window_total[TOTAL]

    @property
    def window_start(self) -> int:
        return self.now_hour - self.window_hours + 1

    @property
    def baseline_start(self) -> int:
        return self.window_start - self.baseline_hours


@dataclass(frozen=True)
class SignalResult:
    kind: str
    score: float
    evidence: dict[str, Any] = field(default_factory=dict)

    def view(self) -> dict[str, Any]:
        return {"kind": self.kind, "score": round(self.score, 4), "evidence": self.evidence}


class Signal:
    """One kind of drift. ``weight`` scales its score in the combination (docs/drift.md)."""

    kind: ClassVar[str]
    weight: ClassVar[float] = 1.0
    description: ClassVar[str] = ""

    def evaluate(self, history: History) -> SignalResult:
        raise NotImplementedError

    def result(self, score: float, **evidence: Any) -> SignalResult:
        return SignalResult(self.kind, max(0.0, min(1.0, score)), evidence)


SIGNALS: dict[str, Signal] = {}


def register(cls: type[Signal]) -> type[Signal]:
    """Add a signal kind to the registry (one instance per kind)."""
    SIGNALS[cls.kind] = cls()
    return cls


def evaluate_all(history: History) -> list[SignalResult]:
    return [signal.evaluate(history) for signal in SIGNALS.values()]


# --- the signals -----------------------------------------------------------------------------


@register
class Volume(Signal):
    """Request rate against the baseline, as robust z-scores at three time scales: the last
    quarter hour (and the last two), the last hour (and two), and the whole window against
    baseline blocks of the same length. Each is compared with the baseline's active periods."""

    kind = "volume"
    description = "request rate against the baseline (robust z-score)"

    def evaluate(self, history: History) -> SignalResult:
        now, q = history.now_hour, history.now_quarter
        hourly = {h: b.get(TOTAL, 0) for h, b in history.baseline.items() if b.get(TOTAL, 0)}
        quarters = {
            (h, i): b.get(f"q{SEP}{i}", 0)
            for h, b in history.baseline.items()
            for i in range(4)
            if b.get(f"q{SEP}{i}", 0)
        }
        current = history.window.get(now, {})
        previous = history.window.get(now - 1, {})
        last_quarter = current.get(f"q{SEP}{q}", 0)
        before = current.get(f"q{SEP}{q - 1}", 0) if q else previous.get(f"q{SEP}3", 0)
        last = current.get(TOTAL, 0)
        zs = {
            "quarter": robust_z(last_quarter, list(quarters.values()))[0],
            "two_quarters": robust_z(last_quarter + before, _pairs(quarters, _next_quarter))[0],
            "hour": robust_z(last, list(hourly.values()))[0],
            "two_hours": robust_z(last + previous.get(TOTAL, 0), _pairs(hourly, _next_hour))[0],
        }
        blocks = [
            sum(
                hourly.get(h, 0)
                for h in range(
                    history.baseline_start + i * history.window_hours,
                    history.baseline_start + (i + 1) * history.window_hours,
                )
            )
            for i in range(history.baseline_hours // history.window_hours)
        ]
        window_median = median(blocks) if blocks else 0
        if len(blocks) >= 3:
            zs["window"] = robust_z(history.window_events, blocks)[0]
        scale, z = max(zs.items(), key=lambda item: item[1])
        return self.result(
            ramp(z, 3.0, 6.0),
            z=round(z, 2),
            time_scale=scale,
            last_quarter_hour=last_quarter,
            last_hour=last,
            baseline_hour_median=median(hourly.values()) if hourly else 0,
            window_requests=history.window_events,
            baseline_window_median=window_median,
        )


@register
class NewCapability(Signal):
    """Tools the agent never used before the window."""

    kind = "new_capability"
    description = "tools never used in the baseline"

    def evaluate(self, history: History) -> SignalResult:
        new = {
            key.split(SEP, 1)[1]: count
            for key, count in history.window_total.items()
            if key.startswith("t" + SEP) and history.is_new(key)
        }
        calls = sum(new.values())
        # Good-Turing: an agent whose baseline has tools used once meets new ones now and then.
        expected = history.window_events * _unseen_share(_prefixed(history.baseline_total, "t"))
        return self.result(
            ramp(calls - expected, 0.0, 4.0),
            new_tools=dict(sorted(new.items())[:10]),
            expected=round(expected, 2),
        )


@register
class ToolMixShift(Signal):
    """Jensen-Shannon divergence between the window's and the baseline's tool distributions,
    discounted while the window holds few requests (a handful of calls is no distribution)."""

    kind = "tool_mix"
    weight = 0.6
    description = "divergence between the window's and the baseline's tool mix"

    def evaluate(self, history: History) -> SignalResult:
        base = _prefixed(history.baseline_total, "t")
        window = _prefixed(history.window_total, "t")
        n = sum(window.values())
        if not base or not n:
            return self.result(0.0, divergence=0.0, window_requests=n)
        divergence = jensen_shannon(base, window)
        return self.result(
            ramp(divergence, 0.1, 0.4) * min(1.0, n / 15),
            divergence=round(divergence, 3),
            window_requests=n,
        )


@register
class ArgumentOutliers(Signal):
    """Numeric arguments beyond the baseline's quantiles for that tool: above its p99 counts
    half, beyond twice the baseline's largest value counts one, less what chance explains."""

    kind = "argument_outliers"
    description = "numeric arguments above the baseline's p99 for that tool"
    MIN_BASELINE = 20

    def evaluate(self, history: History) -> SignalResult:
        base = _histograms(history.baseline_total)
        window = _histograms(history.window_total)
        weighted = expected = 0.0
        worst: list[dict[str, Any]] = []
        for key, bins in window.items():
            reference = base.get(key)
            if not reference or sum(reference.values()) < self.MIN_BASELINE:
                continue
            size = sum(reference.values())
            p99 = _quantile_bin(reference, 0.99)
            top = max(reference)
            above_p99 = sum(c for b, c in bins.items() if b > p99)
            far = sum(c for b, c in bins.items() if b > top + 4)  # over twice the largest
            # A small baseline's p99 is really its maximum: a new value beats it 1/(m+1) times.
            expected += sum(bins.values()) * (0.01 + 1 / (size + 1))
            weighted += 0.5 * (above_p99 - far) + far
            if above_p99:
                tool, arg = key
                worst.append(
                    {
                        "tool": tool,
                        "argument": arg,
                        "baseline_p99": round(bin_upper_edge(p99), 2),
                        "baseline_max": round(bin_upper_edge(top), 2),
                        "window_max": round(bin_upper_edge(max(bins)), 2),
                        "above_p99": above_p99,
                    }
                )
        worst.sort(key=lambda w: -w["above_p99"])
        # Exceedances of the p99 weigh half; allow their expected count plus two deviations.
        excess = weighted - 0.5 * expected - math.sqrt(expected)
        return self.result(
            ramp(excess, 0.5, 3.0), outliers=worst[:5], expected_above_p99=round(expected, 2)
        )


@register
class NewCounterparties(Signal):
    """Destination values (IBANs, accounts, domains…) never seen before the window, beyond
    the pace at which the baseline itself met new ones."""

    kind = "new_counterparties"
    description = "destinations never seen in the baseline"

    def evaluate(self, history: History) -> SignalResult:
        parties = _prefixed(history.baseline_total, "c")
        new = [
            key for key in history.window_total if key.startswith("c" + SEP) and history.is_new(key)
        ]
        # Good-Turing: the share of baseline calls to a party met only once estimates how
        # often the next call meets a new one; allow that, plus two deviations.
        calls = sum(v for k, v in history.window_total.items() if k.startswith("c" + SEP))
        expected = calls * _unseen_share(parties)
        excess = len(new) - expected - 2 * math.sqrt(expected)
        return self.result(
            ramp(excess, 1.0, 3.5),
            new_counterparties=len(new),
            expected=round(expected, 2),
            known_counterparties=len(parties),
        )


@register
class OutcomeShift(Signal):
    """A spike in the judge's denial-or-review rate (a binomial z-score against the baseline)."""

    kind = "outcome_shift"
    weight = 0.8
    description = "a spike in the denial or review rate"

    def evaluate(self, history: History) -> SignalResult:
        def counts(total: Counter) -> tuple[int, int]:
            outcomes = {o: total.get(f"o{SEP}{o}", 0) for o in OUTCOMES}
            return outcomes["deny"] + outcomes["review"], sum(outcomes.values())

        bad_b, n_b = counts(history.baseline_total)
        bad_w, n_w = counts(history.window_total)
        if n_w < 5 or not n_b:
            return self.result(0.0, window_rate=0.0, baseline_rate=0.0, window_decisions=n_w)
        p = min(0.95, max(0.02, bad_b / n_b))
        expected = n_w * p
        z = (bad_w - expected) / math.sqrt(n_w * p * (1 - p))
        score = ramp(z, 3.0, 7.0) if bad_w - expected >= 3 else 0.0
        return self.result(
            score,
            window_rate=round(bad_w / n_w, 3),
            baseline_rate=round(bad_b / n_b, 3),
            window_decisions=n_w,
            z=round(z, 2),
        )


@register
class OffHours(Signal):
    """Activity outside the agent's hour-of-week profile: an hour of the day whose three-hour
    neighbourhood held under 1 % of the baseline, or a weekend for an agent that does not work
    weekends."""

    kind = "off_hours"
    description = "activity outside the agent's hour-of-week profile"
    QUIET_SHARE = 0.01

    def evaluate(self, history: History) -> SignalResult:
        total = history.baseline_events
        if not total:
            return self.result(0.0, off_hours_requests=0)
        by_hour = [0] * 24
        for hour, bucket in history.baseline.items():
            by_hour[hour % 24] += bucket.get(TOTAL, 0)
        # Days are cut at the agent's own night (twelve hours from the centre of its activity),
        # so that an agent working Friday evening in UTC−8 is not "working on Saturday".
        night = _night_hour(by_hour)
        weekend = sum(
            bucket.get(TOTAL, 0)
            for hour, bucket in history.baseline.items()
            if is_weekend(hour, night)
        )
        quiet_weekends = weekend / total < self.QUIET_SHARE
        off = 0
        off_hours: set[int] = set()
        for hour, bucket in history.window.items():
            n = bucket.get(TOTAL, 0)
            h = hour % 24
            around = by_hour[(h - 1) % 24] + by_hour[h] + by_hour[(h + 1) % 24]
            if n and (
                around / total < self.QUIET_SHARE or (quiet_weekends and is_weekend(hour, night))
            ):
                off += n
                off_hours.add(h)
        expected = self.QUIET_SHARE * history.window_events
        return self.result(
            ramp(off - expected, 1.0, 5.0),
            off_hours_requests=off,
            hours_utc=sorted(off_hours),
            works_weekends=not quiet_weekends,
        )


@register
class TokenHygiene(Signal):
    """Approval tokens never consumed (against the baseline's habit), tokens shown with other
    arguments (``args_mismatch``) and replays: the last two are strong signs of theft."""

    kind = "token_hygiene"
    description = "unconsumed tokens, args_mismatch burns and replays"

    def evaluate(self, history: History) -> SignalResult:
        def get(total: Counter, name: str) -> int:
            return total.get(f"k{SEP}{name}", 0)

        w, b = history.window_total, history.baseline_total
        bad = get(w, "args_mismatch") + get(w, "replay")
        bad_rate = (get(b, "args_mismatch") + get(b, "replay")) / max(1, history.baseline_events)
        excess_bad = bad - bad_rate * history.window_events
        s_bad = 1 - 0.45**excess_bad if excess_bad >= 1 else 0.0
        # Tokens minted in the current hour may still be consumed: leave them out.
        minted = get(w, "minted") - history.window.get(history.now_hour, {}).get(f"k{SEP}minted", 0)
        unconsumed_w = max(0.0, 1 - get(w, "consumed") / minted) if minted >= 5 else 0.0
        minted_b = get(b, "minted")
        unconsumed_b = max(0.0, 1 - get(b, "consumed") / minted_b) if minted_b else 1.0
        s_unconsumed = ramp(unconsumed_w - unconsumed_b, 0.25, 0.75)
        return self.result(
            max(s_bad, s_unconsumed),
            args_mismatch=get(w, "args_mismatch"),
            replays=get(w, "replay"),
            unconsumed_share=round(unconsumed_w, 3),
            baseline_unconsumed_share=round(unconsumed_b, 3),
        )


# --- helpers ---------------------------------------------------------------------------------


def is_weekend(hour: int, night: int = 0) -> bool:
    """Saturday or Sunday, for days that start at UTC hour ``night``."""
    # Hour 0 of the epoch was a Thursday: day 0 → weekday 3 (Monday is 0).
    return ((hour - night) // 24 + 3) % 7 >= 5


def _night_hour(by_hour: list[int]) -> int:
    """The UTC hour twelve hours away from the circular mean of the agent's activity."""
    x = sum(n * math.cos(2 * math.pi * h / 24) for h, n in enumerate(by_hour))
    y = sum(n * math.sin(2 * math.pi * h / 24) for h, n in enumerate(by_hour))
    if not x and not y:
        return 0
    centre = math.atan2(y, x) * 24 / (2 * math.pi)
    return round(centre + 12) % 24


def jensen_shannon(p_counts: Mapping[str, int], q_counts: Mapping[str, int]) -> float:
    """JS divergence (base 2, so 0..1) of two count maps, with add-half smoothing."""
    keys = set(p_counts) | set(q_counts)
    p_total = sum(p_counts.values()) + 0.5 * len(keys)
    q_total = sum(q_counts.values()) + 0.5 * len(keys)
    divergence = 0.0
    for key in keys:
        p = (p_counts.get(key, 0) + 0.5) / p_total
        q = (q_counts.get(key, 0) + 0.5) / q_total
        m = (p + q) / 2
        divergence += 0.5 * p * math.log2(p / m) + 0.5 * q * math.log2(q / m)
    return max(0.0, min(1.0, divergence))


def _unseen_share(counts: Mapping[str, int]) -> float:
    """Good-Turing estimate of the chance that the next observation is new: singletons / total."""
    total = sum(counts.values())
    return sum(1 for c in counts.values() if c == 1) / total if total else 0.0


def _next_hour(key: int) -> int:
    return key + 1


def _next_quarter(key: tuple[int, int]) -> tuple[int, int]:
    hour, quarter = key
    return (hour, quarter + 1) if quarter < 3 else (hour + 1, 0)


def _pairs(counts: Mapping[Any, int], following: Any) -> list[float]:
    """Sums over two consecutive periods, for every pair that starts with an active one."""
    return [count + counts.get(following(key), 0) for key, count in counts.items()]


def _merge(buckets: Buckets) -> Counter:
    total: Counter = Counter()
    for bucket in buckets.values():
        total.update(bucket)
    return total


def _prefixed(total: Counter, prefix: str) -> dict[str, int]:
    start = prefix + SEP
    return {k[len(start) :]: v for k, v in total.items() if k.startswith(start) and v}


def _histograms(total: Counter) -> dict[tuple[str, str], dict[int, int]]:
    found: dict[tuple[str, str], dict[int, int]] = {}
    for key, count in total.items():
        if not key.startswith("a" + SEP) or not count:
            continue
        parts = key.split(SEP)
        if len(parts) != 4:
            continue
        try:
            index = int(parts[3])
        except ValueError:
            continue
        found.setdefault((parts[1], parts[2]), {})[index] = count
    return found


def _quantile_bin(bins: Mapping[int, int], q: float) -> int:
    total = sum(bins.values())
    running = 0
    for index in sorted(bins):
        running += bins[index]
        if running >= q * total:
            return index
    return max(bins)
