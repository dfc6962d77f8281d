"""Simple History implementations: none at all, or fixed facts (benchmarks, tests, the stub judge)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


class NoHistory:
    """A tenant with no earlier requests: nothing spent today, nothing counted, nobody seen."""

    def total_today(self, agent_id: str, tool_name: str, arg: str) -> float:
        """Always 0."""
        return 0.0

    def count_last_hour(self, agent_id: str, tool_name: str) -> int:
        """Always 0."""
        return 0

    def count_today(self, agent_id: str, tool_name: str) -> int:
        """Always 0."""
        return 0

    def seen_value(self, agent_id: str, tool_name: str, arg: str, value: str) -> bool:
        """Never seen."""
        return False


class StaticHistory:
    """Fixed facts for one agent and tool: {'total_today': {arg: x}, 'count_last_hour': n,
    'count_today': n, 'seen': {arg: [...]}}."""

    def __init__(
        self,
        total_today: Mapping[str, float] | None = None,
        count_last_hour: int = 0,
        seen: Mapping[str, Iterable[str]] | None = None,
        count_today: int | None = None,
    ) -> None:
        self._totals = dict(total_today or {})
        self._count = int(count_last_hour)
        self._seen = {k: {str(v) for v in vs} for k, vs in (seen or {}).items()}
        # None: the facts do not say (a benchmark case that gives only the hour's count), so a
        # daily count is not known; given, it is at least the hour's
        self._today = None if count_today is None else max(int(count_today), self._count)

    @classmethod
    def from_dict(cls, data: Mapping | None) -> StaticHistory:
        """Build from the `history` object of a benchmark case."""
        if not data:
            return cls(count_today=0)  # no history at all: nothing counted today either
        return cls(
            data.get("total_today"),
            data.get("count_last_hour", 0),
            data.get("seen"),
            data.get("count_today"),
        )

    def total_today(self, agent_id: str, tool_name: str, arg: str) -> float:
        """Today's total of `arg` (matched by full path or last segment)."""
        return float(self._totals.get(arg, self._totals.get(arg.rsplit(".", 1)[-1], 0.0)))

    def count_last_hour(self, agent_id: str, tool_name: str) -> int:
        """Requests in the last hour."""
        return self._count

    def count_today(self, agent_id: str, tool_name: str) -> int | None:
        """Requests since midnight UTC; None when the facts do not say."""
        return self._today

    def seen_value(self, agent_id: str, tool_name: str, arg: str, value: str) -> bool:
        """Whether `value` was seen for `arg`."""
        values = self._seen.get(arg, self._seen.get(arg.rsplit(".", 1)[-1], set()))
        return value in values
