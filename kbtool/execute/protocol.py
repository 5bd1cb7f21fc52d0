"""Messages between kbtool, its warm worker and the page processes: JSON, one object a line.

Plain JSON keeps the three processes independent of each other's classes, and a message
written by a cell that scribbles on our pipe is detected as garbage instead of unpickled.
"""

from __future__ import annotations

import json
import os
from typing import Any


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def write_all(fd: int, data: bytes) -> None:
    """Write every byte (pipes accept large writes in pieces)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class LineReader:
    """Bytes from a pipe in, whole decoded messages out."""

    def __init__(self) -> None:
        self._pending = b""

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self._pending += data
        if b"\n" not in self._pending:
            return []
        *lines, self._pending = self._pending.split(b"\n")
        return [decode(line) for line in lines if line.strip()]


class ProtocolError(ValueError):
    pass


def decode(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ProtocolError(f"unreadable message {line[:80]!r}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"unexpected message {line[:80]!r}")
    return message
