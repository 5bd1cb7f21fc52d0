"""A page's facts as stored: read back as they were written, and a damaged record told
without decoding it exactly where decoding it fails."""

from __future__ import annotations

import pytest

from kbtool.stages.facts import Facts, decode_facts, encode_facts, facts_intact

FACTS = Facts(
    "wiki", "注意力", ("a", "b"), "2026-01-02", "concept", True, ("x", "y"), "2026-02-03",
    ("Attention",), (12, 40),
)  # fmt: skip


@pytest.mark.parametrize("facts", [FACTS, Facts("source", "S", ())])
def test_facts_read_back_as_written(facts: Facts) -> None:
    back = decode_facts(encode_facts(facts))
    assert back == facts
    assert back is not None and (back.aliases, back.diagrams) == (facts.aliases, facts.diagrams)


@pytest.mark.parametrize(
    "data",
    [
        encode_facts(FACTS),
        encode_facts(FACTS)[:20],
        encode_facts(FACTS).replace("注".encode(), b"\xff"),
        encode_facts(FACTS).replace(b"12\x0140", b"12\x01\x0140"),
        encode_facts(FACTS).replace(b"12\x0140", b"1x"),
        encode_facts(FACTS).replace(b"12\x0140", "١".encode()),
    ],
)
def test_intact_exactly_when_decoded(data: bytes) -> None:
    assert facts_intact(data) == (decode_facts(data) is not None)
