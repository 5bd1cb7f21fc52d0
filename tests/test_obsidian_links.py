"""Obsidian's choice of a link's file, on paths alone."""

from __future__ import annotations

import pytest

from kbtool.obsidian_links import Choice, choose, new_attachment_folder, subpath_parts

NOTES = ["Home.md", "A/Note.md", "B/Note.md", "B/C/Note.md", "Deep/X/Other.md"]


@pytest.mark.parametrize(
    ("linkpath", "reader", "chosen"),
    [
        ("note", "Home.md", Choice("A/Note.md", ("A/Note.md", "B/Note.md"))),  # a tie
        ("Note", "B/C/x.md", Choice("B/C/Note.md")),  # the reader's folder first
        ("Note", "A/y.md", Choice("A/Note.md")),
        ("C/Note", "Home.md", Choice("B/C/Note.md")),  # the path's end
        ("b/note", "A/y.md", Choice("B/Note.md")),  # the exact path from the root, any case
        ("B/Note.md", "A/y.md", Choice("B/Note.md")),
        ("X/Note", "Home.md", Choice(None)),
        ("other", "Home.md", Choice("Deep/X/Other.md")),
        ("Note", "Deep/z.md", Choice("A/Note.md", ("A/Note.md", "B/Note.md"))),
    ],
)
def test_the_note_obsidian_opens(linkpath: str, reader: str, chosen: Choice) -> None:
    candidates = [p for p in NOTES if p.rsplit("/", 1)[-1].lower() == "note.md"]
    if linkpath.lower() == "other":
        candidates = ["Deep/X/Other.md"]
    assert choose(linkpath, reader, candidates, note=True) == chosen


def test_the_shortest_path_wins_over_deeper_ones() -> None:
    files = ["img/deep/a.png", "a.png", "img/a.png"]
    assert choose("a.png", "Notes/n.md", files, note=False) == Choice("a.png")


@pytest.mark.parametrize(
    ("anchor", "parts"),
    [("Heading", ["Heading"]), ("A#B", ["A", "B"]), ("^id-1", ["^id-1"]), ("#A##B ", ["A", "B"])],
)
def test_subpath_parts(anchor: str, parts: list[str]) -> None:
    assert subpath_parts(anchor) == parts


@pytest.mark.parametrize(
    ("setting", "reader", "folder"),
    [("/", "a/b.md", ""), ("", "b.md", ""), ("./", "a/b.md", "a"), ("./img", "a/b.md", "a/img")]
    + [("Attachments", "a/b.md", "Attachments"), ("./", "b.md", "")],
)
def test_where_new_attachments_go(setting: str, reader: str, folder: str) -> None:
    assert new_attachment_folder(setting, reader) == folder
