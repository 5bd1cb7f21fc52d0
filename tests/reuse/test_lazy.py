"""Values by name, got when first asked for: and let go of when a stage is done with them."""

from __future__ import annotations

from kbtool.reuse.lazy import decoding


def test_cleared_values_and_sources_are_let_go() -> None:
    decoded: list[bytes] = []

    def decode(data: bytes) -> str:
        decoded.append(data)
        return data.decode()

    lazy = decoding(decode, {"a": "known"}, {"b": b"pending"})
    assert list(lazy) == ["a", "b"] and lazy["b"] == "pending"
    lazy.clear()
    assert len(lazy) == 0 and "a" not in lazy and "b" not in lazy
    assert lazy.got("a") is None and decoded == [b"pending"]
