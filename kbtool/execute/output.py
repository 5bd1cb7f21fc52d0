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
