"""KB3xx: the link graph as a whole — orphans, one-way `related`, uncited sources.

These rules read a :class:`LinkTable`, what each page contributes to the graph, rather than
the parsed pages. An incremental check keeps the same table in the store and asks it the same
questions in SQL (:func:`stored_graph_diagnostics`), so that nothing of an unchanged page is
loaded; tests compare the two on random edit sequences.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from kbtool.checks.base import diagnostic
from kbtool.diagnostics import Diagnostic
from kbtool.model import Page, Span
from kbtool.store.db import Store
from kbtool.wiki import ResolvedLink, Wiki


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
        target = item.target
        if target.page is None or target.page.path == page.path:
            continue
        if target.status.value in ("ok", "ambiguous"):
            edges[(target.page.path, item.link.kind)] = None
        if item.link.kind == "related":
            span = item.link.span
            related.append((target.page.path, span.line, span.col, item.link.target))
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


def check_orphans(table: LinkTable) -> Iterator[Diagnostic]:
    linked = {to for links in table.values() for to, _ in links.edges}
    for path, links in table.items():
        if links.kind == "wiki" and path not in linked:
            yield _orphan(path)


def check_one_way_related(table: LinkTable) -> Iterator[Diagnostic]:
    related = {(a, b) for a, links in table.items() for b, kind in links.edges if kind == "related"}
    for path, links in table.items():
        for target, line, col, raw in links.related:
            if (target, path) not in related:
                yield _one_way(path, line, col, raw)


def check_uncited_sources(table: LinkTable) -> Iterator[Diagnostic]:
    cited = {to for links in table.values() if links.kind == "wiki" for to, _ in links.edges}
    for path, links in table.items():
        if links.kind == "source" and path not in cited:
            yield _uncited(path)


def stored_graph_diagnostics(store: Store, enabled: Callable[[str], bool]) -> list[Diagnostic]:
    """The same rules, asked of the link table kept in the store (an incremental check)."""
    found: list[Diagnostic] = []
    if enabled("KB301"):
        found += map(_orphan, store.orphans())
    if enabled("KB302"):
        found += (_one_way(*row) for row in store.one_way_related())
    if enabled("KB303"):
        found += map(_uncited, store.uncited_sources())
    return found
