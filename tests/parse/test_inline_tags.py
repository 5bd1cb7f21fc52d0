"""Obsidian's ``#tags`` in a note's text (parse/inline_tags.py): which ``#`` starts a tag, and
the page's tags with them (parse/fields.py)."""

from __future__ import annotations

import pytest

from kbtool.parse.fields import tags_of
from kbtool.parse.page import parse_page


def _tags(text: str, flavor: str = "obsidian") -> tuple[str, ...]:
    return parse_page("Note.md", text.encode(), "wiki", flavor=flavor).inline_tags


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ("Read #later and #later again.\n", ("later",)),
        ("#start of a line, #area/home/garden, #阅读。\n", ("start", "area/home/garden", "阅读")),
        ("#with-dash_and_underscore #y2024\n", ("with-dash_and_underscore", "y2024")),
        ("Numbers alone: #2024 #1/2\n", ()),
        ("Not after a letter: a#b, [[Note#Heading]], [x](Other.md#part), &#35;x\n", ()),
        ("Not in code: `#code`\n\n```\n#fence\n```\n", ()),
        ("Escaped: \\#not\n", ()),
        ("- a list item #inlist\n\n> quoted #quoted\n", ("inlist", "quoted")),
    ],
)
def test_which_hash_starts_a_tag(text: str, tags: tuple[str, ...]) -> None:
    assert _tags(text) == tags


def test_githubs_flavor_reads_no_tag_in_the_text() -> None:
    assert _tags("Read #later.\n", flavor="gfm") == ()


def test_a_headings_tag_is_part_of_its_text_and_slug() -> None:
    page = parse_page("Note.md", b"## Topic #draft\n", "wiki", flavor="obsidian")
    assert [(h.text, h.slug) for h in page.headings] == [("Topic #draft", "topic-draft")]
    assert page.inline_tags == ("draft",)


def test_the_pages_tags_are_its_frontmatters_then_its_texts() -> None:
    text = "---\ntags: [garden, summer]\n---\nA #summer note on #soil.\n"
    page = parse_page("Note.md", text.encode(), "wiki", flavor="obsidian")
    assert tags_of(page) == ("garden", "summer", "soil")
