"""A cell's captured output, kept up to a limit; the rest is counted, not stored."""

from __future__ import annotations

import codecs


class CappedBuffer:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._chunks: list[bytes] = []
        self.size = 0  # every byte received, kept or not

    @property
    def overflowed(self) -> bool:
        return self.size > self.limit

    def add(self, data: bytes) -> None:
        room = self.limit - min(self.size, self.limit)
        if room:
            self._chunks.append(data[:room])
        self.size += len(data)

    def text(self) -> str:
        # A cut at the limit may split a UTF-8 character: a non-final decode leaves that tail out.
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        text = decoder.decode(b"".join(self._chunks), final=not self.overflowed)
        if self.overflowed:
            written, kept = mebibytes(self.size), mebibytes(self.limit)
            text += f"\n… output truncated: {written} written, {kept} kept\n"
        return text


def mebibytes(count: int) -> str:
    return f"{count / 2**20:.2f} MiB" if count >= 2**20 else f"{count / 1024:.1f} KiB"


class CellSplitter:
    """Splits a page process's stdout or stderr at the end-of-cell markers it writes.

    After each cell the page process writes ``marker(position)`` to both streams, so the bytes
    before it belong to that cell: no round trip between the processes is needed to attribute
    output, and output of processes the cell started lands in the cell that was running. The
    marker carries a random nonce per page, so cell output cannot end a cell by accident.
    """

    _DIGITS = 12

    def __init__(self, nonce: str) -> None:
        self.prefix = marker_prefix(nonce)
        self._pending = b""

    def feed(self, data: bytes) -> list[tuple[bytes, int | None]]:
        """(bytes, position of the cell that ended after them, or None) for ``data``."""
        pending = self._pending + data
        pieces: list[tuple[bytes, int | None]] = []
        while True:
            start = pending.find(self.prefix)
            if start < 0:
                keep = self._partial_prefix(pending)
                pieces.append((pending[: len(pending) - keep], None))
                pending = pending[len(pending) - keep :]
                break
            digits = start + len(self.prefix)
            end = pending.find(b"\x00", digits, digits + self._DIGITS + 1)
            if end < 0 and len(pending) - digits <= self._DIGITS:
                pieces.append((pending[:start], None))  # the rest of the marker is on its way
                pending = pending[start:]
                break
            if end < 0 or not pending[digits:end].isdigit():  # looks like a marker, is not one
                pieces.append((pending[:digits], None))
                pending = pending[digits:]
                continue
            pieces.append((pending[:start], int(pending[digits:end])))
            pending = pending[end + 1 :]
        self._pending = pending
        return [(chunk, ended) for chunk, ended in pieces if chunk or ended is not None]

    def flush(self) -> bytes:
        """What is held back as a possible start of a marker, once no more data comes."""
        pending, self._pending = self._pending, b""
        return pending

    def _partial_prefix(self, data: bytes) -> int:
        """Length of the longest end of ``data`` that begins the marker."""
        for size in range(min(len(self.prefix) - 1, len(data)), 0, -1):
            if data.endswith(self.prefix[:size]):
                return size
        return 0


def marker_prefix(nonce: str) -> bytes:
    return b"\x00kbtool-cell-end:" + nonce.encode() + b":"


def end_marker(nonce: str, position: int) -> bytes:
    return marker_prefix(nonce) + str(position).encode() + b"\x00"
