"""The index pages and the graph, planned: home, one page per type and per tag, sources,
search, 404, the sitemap, the graph page and its data.

They show nothing of a page but its listing, so while no page's listing changed (one digest
of every page's path and PageInfo digest, with the settings) their keys are the last build's,
read from one record: a build after an edit to a page's text does not make their data at
all. It is made when one of them is to be rendered (:func:`with_data`). A vault's page of
notes not created yet is keyed apart, by the names the listings hold: a link written to a
new name makes that page again, and none of the others.
"""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import replace

from kbtool.render import urls
from kbtool.render.context import SiteContext
from kbtool.render.graphpage import graph_data, graph_page
from kbtool.render.indexes import index_pages, unresolved_page
from kbtool.render.vault import UNRESOLVED
from kbtool.render.whatsnew import whatsnew_pages
from kbtool.stages.planned import GraphOutput, IndexOutput, Planned
from kbtool.store.db import Store
from kbtool.store.records import INDEXES

_NAME = "site"


def index_outputs(
    store: Store | None, site: SiteContext, listed: str
) -> list[IndexOutput | GraphOutput]:
    """The index pages and the graph with their keys; without their data when the keys are
    the last build's (``store``: None to trust no record; ``listed``: the digest of every
    page's listing, :mod:`kbtool.stages.listed`)."""
    key = INDEXES.key(_digest(site, listed))
    value = store.get(INDEXES, _NAME, key) if store is not None else None
    if value is not None:
        with contextlib.suppress(TypeError, ValueError):  # damaged or foreign: made again
            rows = INDEXES.codec.decode(value)
            unmade = [_unmade(str(name), str(k), str(kind)) for name, k, kind in rows]
            return unmade + _unresolved(site, listed)
    planned = _made(site)
    if store is not None:
        rows = [[item.name, item.key, item.kind] for item in planned]
        with store.transaction():
            store.put(INDEXES, [(_NAME, key, INDEXES.codec.encode(rows))])
    return planned + _unresolved(site, listed)


def _unresolved(site: SiteContext, listed: str) -> list[IndexOutput | GraphOutput]:
    """A vault's page of notes not created yet, keyed by what it shows of the listings,
    without its data."""
    if not site.vault:
        return []
    digest = hashlib.blake2b(site.common_key_bytes, digest_size=16)
    digest.update(listed.encode())
    for path, item in site.listings.items():
        if item.missing:
            digest.update(f"{path}\x00{item.missing!r}\x00".encode())
    return [IndexOutput(UNRESOLVED, digest.hexdigest(), None)]


def _unmade(name: str, key: str, kind: str) -> IndexOutput | GraphOutput:
    if kind == GraphOutput.kind:
        return GraphOutput(name, key, None)
    if kind == IndexOutput.kind:
        return IndexOutput(name, key, None)
    raise ValueError(kind)  # a foreign record: made again


def with_data(site: SiteContext, items: list[Planned]) -> list[Planned]:
    """``items``, each index or graph among them that was planned without its data given it."""
    unmade = [
        item
        for item in items
        if isinstance(item, IndexOutput)
        and item.page is None
        or isinstance(item, GraphOutput)
        and item.data is None
    ]
    if not unmade:
        return items
    made: dict[str, IndexOutput | GraphOutput] = {}
    if any(item.name == UNRESOLVED for item in unmade):  # made apart: see _unresolved
        made[UNRESOLVED] = IndexOutput(UNRESOLVED, "", unresolved_page(site))
    if any(item.name != UNRESOLVED for item in unmade):
        made |= {item.name: item for item in _made(site)}

    def given(item: Planned) -> Planned:
        if isinstance(item, IndexOutput) and item.page is None:
            found = made[item.name]
            assert isinstance(found, IndexOutput)
            return replace(item, page=found.page)
        if isinstance(item, GraphOutput) and item.data is None:
            found = made[item.name]
            assert isinstance(found, GraphOutput)
            return replace(item, data=found.data)
        return item

    return [given(item) for item in items]


def _made(site: SiteContext) -> list[IndexOutput | GraphOutput]:
    planned: list[IndexOutput | GraphOutput] = [
        IndexOutput(index.output, index.key(site), index) for index in index_pages(site)
    ]
    data = graph_data(site)
    page = graph_page(site, data)
    planned.append(IndexOutput(urls.GRAPH, page.key(site), page))
    planned.append(GraphOutput(urls.GRAPH_DATA, data.key(site), data))
    planned += [IndexOutput(p.output, p.key(site), p) for p in whatsnew_pages(site)]
    return planned


def _digest(site: SiteContext, listed: str) -> str:
    """What every index (but the page of notes not created yet) and the graph depend on:
    the settings and what every page's listing shows."""
    digest = hashlib.blake2b(site.common_key_bytes, digest_size=16)
    digest.update(listed.encode())
    for change in site.changes:  # what's new shows the history too
        digest.update(f"{change.day}\x00{change.kind}\x00{change.path}\x00".encode())
    return digest.hexdigest()
