"""The pages most like a page that it does not link: what ``kbtool related`` prints and what
the editor offers first for a ``related:`` entry. The measure is the build's "pages like this
one" (Adamic–Adar over shared neighbours and tags, :mod:`kbtool.render.similar`), among the
pages of the page's own kind (a wiki page is shown wiki pages, a source sources)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kbtool.parse.fields import tags_of
from kbtool.render.similar import Graph, page_graph, similar_to
from kbtool.report.graph import backlinks
from kbtool.wiki import Wiki


def wiki_graph(wiki: Wiki, links_to: Mapping[str, Iterable[str]] | None = None) -> Graph:
    """The graph of the wiki's pages and tags; ``links_to``: each page's backlinks, if known
    (the store's link table has them), else found from the wiki's links."""
    found = backlinks(wiki) if links_to is None else links_to
    every = {path: found.get(path, ()) for path in wiki.pages}
    return page_graph(every, {path: tags_of(p) for path, p in wiki.pages.items()})


def related_pages(
    wiki: Wiki, path: str, limit: int, graph: Graph | None = None
) -> list[tuple[str, float]]:
    """The ``limit`` pages most like ``path`` that it does not link, best first, with their
    scores; ``graph``: :func:`wiki_graph` of ``wiki``, if made already."""
    kind = wiki.pages[path].kind
    among = [p for p, page in wiki.pages.items() if page.kind == kind and p != path]
    return similar_to(graph if graph is not None else wiki_graph(wiki), path, limit, among)
