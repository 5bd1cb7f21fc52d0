"""KB3xx: the link graph as a whole — orphans, one-way `related`, uncited sources.

These rules read the link graph through a :class:`Graph`: what each page contributes to it
(its :class:`PageLinks`), rather than the parsed pages. A build's check keeps the table in the
store and the same rules ask it there, so that nothing of an unchanged page is loaded; a
check of a wiki in memory asks a :class:`TableGraph`. Each rule is written once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from kbtool.checks.base import diagnostic
from kbtool.diagnostics import Diagnostic
from kbtool.model import Page, Span
from kbtool.wiki import ResolvedLink, ShownLink, Wiki


@dataclass(frozen=True)
class PageLinks:
    """One page's part of the graph: the pages it reaches, and its `related` entries."""

    kind: str
    #: (target path, link kind) of every link that reaches another page, in order
    edges: tuple[tuple[str, str], ...]
    #: (target path, line, col, entry as written) of every `related` entry naming another page
    related: tuple[tuple[str, int, int, str], ...]


LinkTable = dict[str, PageLinks]


def page_links(page: Page, links: list[ResolvedLink]) -> PageLinks:
    """What ``page`` contributes to the graph, from its resolved ``links``."""
    edges: dict[tuple[str, str], None] = {}
    related = []
    for item in links:
        edge = ShownLink.of(item).edge()  # the one rule for the edge a link makes
        if edge is not None:
            edges[(edge[1], edge[2])] = None
        if item.link.kind == "related" and edge is not None:  # an entry naming another page
            span = item.link.span
            related.append((edge[1], span.line, span.col, item.link.target))
    return PageLinks(page.kind, tuple(edges), tuple(related))


def link_table(wiki: Wiki) -> LinkTable:
    """Every checked page's :class:`PageLinks`."""
    by_page: dict[str, list[ResolvedLink]] = {path: [] for path in wiki.pages}
    for item in wiki.links:
        by_page[item.page.path].append(item)
    return {page.path: page_links(page, by_page[page.path]) for page in wiki.checked_pages}


def _orphan(path: str) -> Diagnostic:
    message = "orphan page: no other page links to it (add it to a related page's `related`)"
    return diagnostic("KB301", Span(path), message)


def _one_way(path: str, line: int, col: int, raw: str) -> Diagnostic:
    message = f"'{raw}' does not list this page in its `related`"
    return diagnostic("KB302", Span(path, line, col), message)


def _uncited(path: str) -> Diagnostic:
    return diagnostic("KB303", Span(path), "no wiki page cites this source")


class Graph(Protocol):
    """What the graph rules read of the whole link graph: a :class:`LinkTable` in memory
    (:class:`TableGraph`) or the one the store keeps (:class:`~kbtool.store.db.Store`) answer
    the same questions, so each rule is written once."""

    def graph_pages(self, kind: str) -> list[str]:
        """The pages of ``kind``, in path order."""
        ...

    def reached(self, from_kind: str | None = None) -> set[str]:
        """Every page a link reaches (from a page of ``from_kind``, else from any)."""
        ...

    def related_edges(self) -> set[tuple[str, str]]:
        """(from, to) of every `related` link between two pages."""
        ...

    def related_entries(self) -> list[tuple[str, str, int, int, str]]:
        """(page, target, line, col, as written) of every `related` entry naming another
        page, in page order."""
        ...


class TableGraph:
    """A :class:`LinkTable` asked as a :class:`Graph`."""

    def __init__(self, table: LinkTable) -> None:
        self._table = table

    def graph_pages(self, kind: str) -> list[str]:
        return sorted(path for path, links in self._table.items() if links.kind == kind)

    def reached(self, from_kind: str | None = None) -> set[str]:
        return {
            to
            for links in self._table.values()
            if from_kind is None or links.kind == from_kind
            for to, _ in links.edges
        }

    def related_edges(self) -> set[tuple[str, str]]:
        return {
            (path, to)
            for path, links in self._table.items()
            for to, kind in links.edges
            if kind == "related"
        }

    def related_entries(self) -> list[tuple[str, str, int, int, str]]:
        return [
            (path, *entry) for path in sorted(self._table) for entry in self._table[path].related
        ]


def check_orphans(graph: Graph) -> Iterator[Diagnostic]:
    linked = graph.reached()
    for path in graph.graph_pages("wiki"):
        if path not in linked:
            yield _orphan(path)


def check_one_way_related(graph: Graph) -> Iterator[Diagnostic]:
    related = graph.related_edges()
    for path, target, line, col, raw in graph.related_entries():
        if (target, path) not in related:
            yield _one_way(path, line, col, raw)


def check_uncited_sources(graph: Graph) -> Iterator[Diagnostic]:
    cited = graph.reached(from_kind="wiki")
    for path in graph.graph_pages("source"):
        if path not in cited:
            yield _uncited(path)
