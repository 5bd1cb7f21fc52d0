"""The page card: one description of a page, as the listings and search carry it."""

from __future__ import annotations

import json

from kbtool.parse.page import parse_page
from kbtool.render.card import PageCard, Ref
from kbtool.render.site import Listing, PageInfo

PAGE = """---
type: method
summary: [多头注意力,  "see  also"]
tags: [transformer, 2017, transformer]
---
# 缩放点积注意力

正文。
"""


def test_a_card_is_made_from_its_page() -> None:
    path = "wiki/methods/attention.md"
    card = PageCard.of(parse_page(path, PAGE.encode(), "wiki"))
    assert card.ref == Ref(path, "wiki/methods/attention.html", "缩放点积注意力", "method")
    assert (card.path, card.url, card.title, card.type) == card.ref.parts()
    assert card.summary == "多头注意力, see also"  # a list is one line of text
    assert card.tags == ("transformer", "2017")


def test_a_dated_summary_is_its_text() -> None:
    text = "---\nsummary: 2026-01-02\n---\n正文\n"
    card = PageCard.of(parse_page("sources/papers/x.md", text.encode(), "source"))
    assert (card.summary, card.type, card.title, card.tags) == ("2026-01-02", "source", "x", ())


def _info(ref: Ref) -> PageInfo:
    back = Ref("wiki/b.md", "wiki/b.html", "B", "concept")
    return PageInfo(ref, "摘要", "", "2026-01-01", ("t1", "t2"), (), (), (back,), (), ())


def test_a_listing_holds_the_ref_of_its_page_info() -> None:
    ref = Ref("wiki/a.md", "wiki/a.html", "A", "concept")
    listing = Listing.of(_info(ref))
    assert listing.card.ref is ref
    assert listing.card == PageCard(ref, "摘要", ("t1", "t2"))
    assert (listing.updated, listing.backlinks) == ("2026-01-01", ("wiki/b.md",))


def test_a_listing_record_keeps_its_layout_and_gives_back_the_very_ref() -> None:
    listing = Listing.of(_info(Ref("wiki/a.md", "wiki/a.html", "A", "concept")))
    record = listing.record()
    assert record == ["摘要", "2026-01-01", ("t1", "t2"), ("wiki/b.md",), listing.info_digest]
    # read back as the store gives it (JSON), with the ref the page gives now
    ref = Ref("wiki/a.md", "wiki/a.html", "A", "concept")
    back = Listing.from_record(ref, json.loads(json.dumps(record)))
    assert back == listing
    assert back.card.ref is ref  # one object: a page's key compares its similar pages' refs
