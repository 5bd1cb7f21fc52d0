"""Helpers of the search tests: SearchDocs, an index in a folder, and queries over it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from kbtool.render.card import PageCard, Ref
from kbtool.search.engine import IndexFiles, hits, rank
from kbtool.search.text import SearchDoc
from kbtool.search.writer import write_search_index


def doc(
    path: str,
    title: str = "",
    body: str = "",
    summary: str = "",
    tags: tuple[str, ...] = (),
    headings: tuple[str, ...] = (),
    type: str = "concept",
) -> SearchDoc:
    ref = Ref(path, path[:-3] + ".html", title, type)
    return SearchDoc(PageCard(ref, summary, tags), headings, body)


def build(folder: Path, docs: list[SearchDoc], links: Mapping[str, int] | None = None) -> Path:
    """An index of ``docs`` in ``folder``; ``links``: how many pages link to each."""
    write_search_index({d.card.path: d for d in docs}, folder, links=links)
    return folder


def found(folder: Path, query: str) -> list[str]:
    """Paths of every page that matches ``query``, best first."""
    index = IndexFiles(folder)
    return [h.doc.card.path for h in hits(index, rank(index, query))]
