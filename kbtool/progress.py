"""A one-line progress bar on the terminal, for long builds; silent when not on a TTY."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(
        self, total: int, label: str, stream: TextIO | None = None, width: int = 30
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = max(total, 1)
        self.label = label
        self.width = width
        self.done = 0
        self.enabled = total > 0 and _is_tty(self.stream)
        self._last = 0.0

    def advance(self, count: int = 1) -> None:
        self.done = min(self.total, self.done + count)
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.1 or self.done == self.total):
            self._last = now
            filled = self.width * self.done // self.total
            bar = "█" * filled + "░" * (self.width - filled)
            self.stream.write(f"\r{self.label} {bar} {self.done}/{self.total}")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[K")  # clear the line: the summary follows
            self.stream.flush()


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class StepProgress:
    """A bar for a step that learns its total only as it runs: ``bar(done, total)``.

    Nothing is shown for a step that has nothing to do (every page came from the cache).
    """

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = stream
        self._bar: Progress | None = None

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None or self._bar.total != max(total, 1):
            self.close()
            self._bar = Progress(total, self.label, self.stream)
        self._bar.advance(done - self._bar.done)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
