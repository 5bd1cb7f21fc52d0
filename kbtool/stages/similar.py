"""Site facts, continued: each page's similar pages (:mod:`kbtool.render.similar`), made
again only for the pages an edit can change.

One record holds every page's list and a digest of each node's neighbours as they were made
from. While no listing changed the lists are the record's; otherwise the graph is made from
the listings (backlinks and tags: no page is read) and only the pages whose neighbours, or
whose neighbours' neighbours, changed get a new list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbtool.render.similar import Graph, affected, node_digests, page_graph, similar_all
from kbtool.render.site import Listing
from kbtool.reuse.values import WHOLE
from kbtool.stages.reused import SIMILAR_LISTS
from kbtool.stages.run import Run
from kbtool.store.records import SIMILAR

_NAME = "site"
#: Below this many lists to make, forking workers costs more than it saves.
_PARALLEL_THRESHOLD = 1000


def similar_pages(
    run: Run, listings: Mapping[str, Listing], digest: str
) -> dict[str, tuple[str, ...]]:
    """Every page's similar pages, by path (in the listings' order); ``digest``: the digest
    of every listing (:mod:`kbtool.stages.listed`)."""
    held = run.reuse.get(SIMILAR_LISTS, WHOLE, digest)
    if held is not None:
        return held
    stored = _stored(run) if run.use_store else None
    if stored is not None and stored["listings"] == digest:
        found = {path: tuple(stored["similar"].get(path, ())) for path in listings}
        return run.reuse.put(SIMILAR_LISTS, WHOLE, digest, found)
    graph = page_graph(
        {path: item.backlinks for path, item in listings.items()},
        {path: item.card.tags for path, item in listings.items()},
    )
    nodes = node_digests(graph)
    if stored is None:
        kept: dict[str, tuple[str, ...]] = {}
        redo = set(listings)
    else:
        redo = affected(graph, stored["nodes"], nodes)
        kept = {p: tuple(v) for p, v in stored["similar"].items() if p in listings}
        redo |= {path for path in listings if path not in kept}
    kept.update(_made(run, graph, sorted(redo)))
    found = run.reuse.put(SIMILAR_LISTS, WHOLE, digest, {path: kept[path] for path in listings})
    if run.use_store:
        value = {"listings": digest, "nodes": nodes, "similar": found}
        with run.store.transaction():
            run.store.put(SIMILAR, [(_NAME, SIMILAR.key(), SIMILAR.codec.encode(value))])
    return found


def _made(run: Run, graph: Graph, pages: list[str]) -> dict[str, tuple[str, ...]]:
    """The lists of ``pages``, shared among the run's workers when there are many."""
    sources = run.config.sources.rstrip("/") + "/"
    work = (graph, sources)
    if not run.workers.worth_forking(len(pages), _PARALLEL_THRESHOLD):
        return _lists(work, pages)
    # One piece a worker: each makes its own index of the graph's candidates first.
    jobs = run.workers.jobs
    chunks = [pages[i::jobs] for i in range(jobs)]
    made: dict[str, tuple[str, ...]] = {}
    for done in run.workers.map(_lists, work, chunks):
        made.update(done)
    return made


def _lists(work: tuple[Graph, str], pages: list[str]) -> dict[str, tuple[str, ...]]:
    graph, sources = work

    def group(path: str) -> str:  # a wiki page is shown wiki pages, a source sources
        return "source" if path.startswith(sources) else "wiki"

    return similar_all(graph, pages, group)


def _stored(run: Run) -> dict[str, Any] | None:
    value = run.store.get(SIMILAR, _NAME, SIMILAR.key())
    data = SIMILAR.codec.decode(value) if value is not None else None
    if not isinstance(data, dict) or not {"listings", "nodes", "similar"} <= data.keys():
        return None  # none, damaged or foreign: every list made again
    return data
