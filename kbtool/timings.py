"""Seconds per stage of a command, for ``--timings``: where a slow run spends its time."""

from __future__ import annotations

import time


class Timings:
    """Laps of a stopwatch, by stage name; a stage timed twice adds up."""

    def __init__(self, seconds: dict[str, float] | None = None) -> None:
        self.seconds = {} if seconds is None else seconds
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.seconds[stage] = self.seconds.get(stage, 0.0) + now - self._last
        self._last = now

    def format(self) -> str:
        """One line: ``timings: scan 0.12s, check 1.03s, total 1.15s``."""
        parts = [f"{stage} {seconds:.2f}s" for stage, seconds in self.seconds.items()]
        total = sum(self.seconds.values())
        return "timings: " + ", ".join([*parts, f"total {total:.2f}s"])
