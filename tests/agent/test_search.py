"""search, in process: the site's engine over an index kept as the wiki is, with type, tag
and folder filters."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.agent.errors import Refused
from kbtool.agent.search import SearchIndex, search
from tests.agent.test_graph import _wiki


def test_search_filters_by_type_tag_and_folder(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    index = SearchIndex(wiki)

    def paths(
        type: str | None = None, tag: str | None = None, folder: str | None = None
    ) -> list[str]:
        found = search(index, "attention", type=type, tag=tag, folder=folder)
        return sorted(hit.path for hit in found.hits)

    assert "wiki/methods/transformer.md" in paths()
    assert paths(type="method") == ["wiki/methods/transformer.md"]
    assert paths(tag="attention") == ["wiki/concepts/attention.md", "wiki/notes/a.md"]
    assert paths(folder="wiki/notes") == ["wiki/notes/a.md"]


def test_an_empty_query_says_what_a_query_is(tmp_path: Path) -> None:
    with pytest.raises(Refused, match="phrase"):
        search(SearchIndex(_wiki(tmp_path)), "  ")
