"""The pages most like a page that it does not link: what ``kbtool related`` prints and what
the editor offers first for a ``related:`` entry. The measure is the build's "pages like this
one" (Adamic–Adar over shared neighbours and tags, :mod:`kbtool.render.similar`), among the
pages of the page's own kind (a wiki page is shown wiki pages, a source sources).

Both read what every page shows of itself (its kind, its tags), not the pages: the editor
has those of every page from its check."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kbtool.render.similar import Graph, page_graph, similar_to


def pages_graph(tags: Mapping[str, Iterable[str]], links_to: Mapping[str, Iterable[str]]) -> Graph:
    """The graph of the pages (``tags``: every page's tags) and their tags; ``links_to``:
    each page's backlinks."""
    return page_graph({path: links_to.get(path, ()) for path in tags}, tags)


def related_pages(
    kinds: Mapping[str, str], graph: Graph, path: str, limit: int
) -> list[tuple[str, float]]:
    """The ``limit`` pages most like ``path`` that it does not link, best first, with their
    scores; ``kinds``: every page's kind, ``graph``: :func:`pages_graph` of the pages."""
    kind = kinds[path]
    among = [other for other, its in kinds.items() if its == kind and other != path]
    return similar_to(graph, path, limit, among)
