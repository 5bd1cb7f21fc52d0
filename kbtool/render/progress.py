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
