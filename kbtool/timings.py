"""Seconds per stage of a command, for ``--timings``: where a slow run spends its time, and
how much of it the worker processes had the work (the rest is this process's own, serial)."""

from __future__ import annotations

import time
from collections.abc import Callable


class Timings:
    """Laps of a stopwatch, by stage name; a stage timed twice adds up. ``in_workers`` gets,
    per stage, the seconds ``workers_clock`` (the workers' running total) advanced."""

    def __init__(
        self,
        seconds: dict[str, float] | None = None,
        in_workers: dict[str, float] | None = None,
        workers_clock: Callable[[], float] | None = None,
    ) -> None:
        self.seconds = {} if seconds is None else seconds
        self.in_workers = {} if in_workers is None else in_workers
        self._workers_clock = workers_clock
        self._last = time.perf_counter()
        self._last_workers = workers_clock() if workers_clock else 0.0

    def count_workers(self, workers_clock: Callable[[], float]) -> None:
        """From now on, note the workers' share of each lap."""
        self._workers_clock, self._last_workers = workers_clock, workers_clock()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.seconds[stage] = self.seconds.get(stage, 0.0) + now - self._last
        self._last = now
        if self._workers_clock is not None:
            total = self._workers_clock()
            share = total - self._last_workers
            if share > 0:
                self.in_workers[stage] = self.in_workers.get(stage, 0.0) + share
            self._last_workers = total

    def format(self) -> str:
        """One line: ``timings: scan 0.12s, check 1.03s (0.80s in workers), total 1.15s``."""
        parts = []
        for stage, seconds in self.seconds.items():
            shared = self.in_workers.get(stage, 0.0)
            share = f" ({shared:.2f}s in workers)" if shared >= 0.005 else ""
            parts.append(f"{stage} {seconds:.2f}s{share}")
        total = sum(self.seconds.values())
        return "timings: " + ", ".join([*parts, f"total {total:.2f}s"])
