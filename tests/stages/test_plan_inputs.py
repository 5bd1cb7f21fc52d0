"""Which pages' output keys an edit can have changed, told from the last plan's inputs."""

from __future__ import annotations

from typing import Any, cast

from kbtool.stages.plan_inputs import PlanInputs

PAGES = {"a.md": 1, "b.md": 2, "c.md": 3}


def _inputs(**change: Any) -> PlanInputs:
    listings = change.pop("listings", LISTINGS)
    made = {
        "digests": {"a.md": "1", "b.md": "2", "c.md": "3"},
        "listings": listings,
        "results": {"c.md": "r"},
        "similar": {"a.md": ("b.md",), "b.md": ("a.md",), "c.md": ()},
        "embeds": {"a.md": ("e", ("b.md",))},
    }
    return PlanInputs(**(made | change))


LISTINGS = cast("dict[str, Any]", {path: object() for path in PAGES})
BEFORE = _inputs()


def test_nothing_changed_changes_no_page() -> None:
    assert _inputs().changed_since(BEFORE, PAGES) == set()


def test_an_edited_file_changes_its_page_alone() -> None:
    now = _inputs(digests={"a.md": "1", "b.md": "2*", "c.md": "3"})
    assert now.changed_since(BEFORE, PAGES) == {"b.md"}


def test_a_page_listed_again_changes_the_pages_showing_it_among_their_similar_pages() -> None:
    now = _inputs(listings=LISTINGS | {"a.md": object()})
    assert now.changed_since(BEFORE, PAGES) == {"a.md", "b.md"}


def test_other_similar_pages_or_cell_results_change_the_page() -> None:
    similar = {"a.md": ("b.md",), "b.md": ("a.md", "c.md"), "c.md": ()}
    assert _inputs(similar=similar).changed_since(BEFORE, PAGES) == {"b.md"}
    assert _inputs(results={}).changed_since(BEFORE, PAGES) == {"c.md"}
    assert _inputs(results={"c.md": "r", "a.md": "s"}).changed_since(BEFORE, PAGES) == {"a.md"}


def test_a_page_the_last_plan_did_not_have_is_changed_and_a_page_gone_is_not_told() -> None:
    pages = {"a.md": 1, "b.md": 2, "d.md": 4}
    now = _inputs(digests={"a.md": "1", "b.md": "2", "d.md": "4"}, listings=LISTINGS | {"d.md": 0})
    assert now.changed_since(BEFORE, pages) == {"d.md"}


def test_what_a_page_embeds_shows_changes_the_page() -> None:
    assert _inputs(embeds={"a.md": ("e*", ("b.md",))}).changed_since(BEFORE, PAGES) == {"a.md"}
    assert _inputs(embeds={}).changed_since(BEFORE, PAGES) == {"a.md"}
    assert _inputs(embeds={"c.md": ("e", ())} | BEFORE.embeds).changed_since(BEFORE, PAGES) == {
        "c.md"
    }
