"""Posting lists spelled as text and read back: every page id, weight and position as
written, however large the numbers (a long page's positions pass the codec's table)."""

from __future__ import annotations

from pathlib import Path

from kbtool.search.codec import codes
from kbtool.search.page_terms import merge, spell
from kbtool.search.postings import SEPARATOR, Entry, decode_entries
from tests.search.support import build, doc, found

PAST_TABLE = len(codes())  # the first number spelled without the table


def _spelled(entries: list[Entry]) -> str:
    """The posting list of one term on the pages of ``entries``, merged as an index is."""
    pages = [(e.doc, "\t".join(("t", *spell(e.weight, list(e.positions))))) for e in entries]
    heads, places = merge(pages)["t"].text()
    return heads + SEPARATOR + places


def test_entries_round_trip_with_positions_past_the_table() -> None:
    entries = [
        Entry(0, 3, (PAST_TABLE + 5,)),  # first position past the table
        Entry(1, 4, (2, PAST_TABLE + 9)),  # a gap past the table
        Entry(5, 1, (7,)),
        Entry(PAST_TABLE + 40, 2, ()),  # an id delta past the table
    ]
    assert decode_entries(_spelled(entries)) == entries


def test_a_page_longer_than_the_table_keeps_the_next_pages_ids(tmp_path: Path) -> None:
    long_body = "甲乙" * PAST_TABLE + " uniqueword 丙丁"  # its words come after 65,536 positions
    folder = build(
        tmp_path / "search",
        [
            doc("wiki/a.md", "a", "hello"),
            doc("wiki/b.md", "b", "丙丁 " + long_body),
            doc("wiki/c.md", "c", "uniqueword 丙丁 here"),
        ],
    )
    assert found(folder, "uniqueword") == ["wiki/c.md", "wiki/b.md"]
    assert set(found(folder, '"uniqueword 丙丁"')) == {"wiki/b.md", "wiki/c.md"}
    assert found(folder, "hello") == ["wiki/a.md"]
