"""The whole-graph page: ``graph.html`` and its data, ``graph-data.js``.

The layout is computed here, at build time, so the browser only draws: at 7,000 pages that is
the difference between a page that opens at once and one that freezes. The data is a script
(not JSON fetched at run time) so the page also works when opened from ``file://``.
Positions are kept in the store: the same graph (same pages, same links) gets the same
positions back without a layout, and a changed graph is laid out from the previous positions.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import date

from kbtool.render import urls
from kbtool.render.communities import communities
from kbtool.render.context import SiteContext
from kbtool.render.indexes import IndexPage
from kbtool.render.layout import layout
from kbtool.store.db import Store
from kbtool.store.records import LAYOUT

_SCALE = 10_000  # positions are written as integers in [-_SCALE, _SCALE]


@dataclass(frozen=True)
class GraphData:
    paths: list[str]
    titles: list[str]
    types: list[str]
    edges: list[tuple[int, int]]
    tags: list[tuple[str, ...]]
    updated: list[str]
    #: type name -> its label in the site's language
    type_labels: dict[str, str]

    def key(self, site: SiteContext) -> str:
        text = json.dumps(
            [site.common_key(), self.paths, self.titles, self.types, self.edges, self.tags]
            + [self.updated, self.type_labels],
            ensure_ascii=False,
        )
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def graph_data(site: SiteContext) -> GraphData:
    listings = site.listings
    paths = sorted(listings)
    index = {path: i for i, path in enumerate(paths)}
    # Every link between two pages is some page's backlink.
    pairs = sorted({(index[b], index[p]) for p in paths for b in listings[p].backlinks})
    return GraphData(
        paths,
        [listings[p].card.title for p in paths],
        [listings[p].card.type for p in paths],
        pairs,
        [listings[p].card.tags for p in paths],
        [listings[p].updated for p in paths],
        {kind: _type_label(site, kind) for p in paths if (kind := listings[p].card.type)},
    )


def _type_label(site: SiteContext, kind: str) -> str:
    # Source pages carry the type "source" unless they say otherwise: named as the site does.
    if kind == "source" and kind not in site.config.type_labels:
        return site.t("sources")
    return site.type_label(kind)


def graph_page(site: SiteContext, data: GraphData) -> IndexPage:
    shown: dict[str, object] = {"node_count": len(data.paths), "edge_count": len(data.edges)}
    if site.vault and not site.type_names():  # one colour for every note says nothing
        shown["colour_by"] = "community"
    return IndexPage(urls.GRAPH, "graph.html", site.t("graph_title"), shown)


def _structure_key(data: GraphData) -> str:
    text = json.dumps([data.paths, data.edges], ensure_ascii=False)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _stored(store: Store, name: str, key: str) -> object | None:
    found = store.some(LAYOUT, [name]).get(name)
    if not found or found[0] != key:
        return None
    try:
        value: object = json.loads(found[1])
    except ValueError:
        return None  # damaged: made afresh
    return value


def graph_layout(store: Store, data: GraphData) -> list[tuple[float, float]]:
    """The layout of ``data``: stored for this very graph, or computed (seeded by the last)."""
    key = LAYOUT.key(_structure_key(data))
    previous: dict[str, tuple[float, float]] = {}
    for name, (stored_key, value) in store.some(LAYOUT, ["graph"]).items():
        try:
            raw = json.loads(value)
            previous = {str(k): (float(v[0]), float(v[1])) for k, v in raw.items()}
        except (ValueError, TypeError, IndexError, AttributeError):
            break  # damaged: lay the graph out afresh
        if stored_key == key and name == "graph" and set(previous) == set(data.paths):
            return [previous[p] for p in data.paths]
    seed = [previous.get(p) for p in data.paths] if previous else None
    points = layout(len(data.paths), data.edges, seed)
    value = json.dumps(dict(zip(data.paths, points, strict=True))).encode()
    with store.transaction():
        store.put(LAYOUT, [("graph", key, value)])
    return points


def graph_communities(store: Store, data: GraphData) -> tuple[list[int], list[int]]:
    """:func:`~kbtool.render.communities.communities` of ``data``, stored for this very graph
    (Louvain takes seconds at 7,000 pages; an edit that changes no link should not pay them)."""
    key = LAYOUT.key(_structure_key(data))
    found = _stored(store, "communities", key)
    if isinstance(found, list) and len(found) == 2 and len(found[0]) == len(data.paths):
        return list(found[0]), list(found[1])
    member, labels = communities(len(data.paths), data.edges)
    with store.transaction():
        store.put(LAYOUT, [("communities", key, json.dumps([member, labels]).encode())])
    return member, labels


def _day(text: str) -> int:
    """Days since 1970-01-01 of an ISO date, or -1 when there is none."""
    try:
        return (date.fromisoformat(text[:10]) - date(1970, 1, 1)).days
    except ValueError:
        return -1


def graph_script(
    data: GraphData, points: list[tuple[float, float]], groups: tuple[list[int], list[int]]
) -> str:
    """``graph-data.js``: ``window.KB_GRAPH = {types, typeLabels, tags, communities, nodes,
    edges, paths}``. A node is ``[x, y, type, title, community, updated, tags]``: ``points`` from
    :func:`graph_layout`, type and tags as indices into ``types`` and ``tags``, community an
    index into ``communities`` (each the index of its label node; ``groups`` from
    :func:`graph_communities`), updated in days since 1970 (-1: none). Edges are a flat list
    of (linking, linked) node index pairs; a node's page is ``paths[i]``, its URL that with
    ``.html`` for ``.md``."""
    type_names = sorted(set(data.types))
    type_index = {name: i for i, name in enumerate(type_names)}
    tag_names = sorted({tag for tags in data.tags for tag in tags})
    tag_index = {name: i for i, name in enumerate(tag_names)}
    member, labels = groups
    nodes = [
        [
            round(x * _SCALE),
            round(y * _SCALE),
            type_index[kind],
            title,
            member[i],
            _day(updated),
            [tag_index[tag] for tag in tags],
        ]
        for i, ((x, y), kind, title, updated, tags) in enumerate(
            zip(points, data.types, data.titles, data.updated, data.tags, strict=True)
        )
    ]
    payload = {
        "types": type_names,
        "typeLabels": [data.type_labels.get(name, name) for name in type_names],
        "tags": tag_names,
        "communities": labels,
        "nodes": nodes,
        "edges": [n for pair in data.edges for n in pair],
        "paths": data.paths,
    }
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    # `</script>` cannot occur in a .js file, but `<!--` and U+2028 are kept out anyway.
    text = text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"window.KB_GRAPH = {text};\n"
