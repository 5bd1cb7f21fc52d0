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

from kbtool.render import urls
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

    def key(self, site: SiteContext) -> str:
        text = json.dumps(
            [site.common_key(), self.paths, self.titles, self.types, self.edges], ensure_ascii=False
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
        [listings[p].ref.title for p in paths],
        [listings[p].ref.type for p in paths],
        pairs,
    )


def graph_page(site: SiteContext, data: GraphData) -> IndexPage:
    return IndexPage(
        urls.GRAPH,
        "graph.html",
        site.t("graph_title"),
        {"node_count": len(data.paths), "edge_count": len(data.edges)},
    )


def _structure_key(data: GraphData) -> str:
    text = json.dumps([data.paths, data.edges], ensure_ascii=False)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


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


def graph_script(data: GraphData, points: list[tuple[float, float]]) -> str:
    """``graph-data.js``: ``window.KB_GRAPH = {types, nodes, edges, paths}``; a node is
    ``[x, y, type index, title, url]`` (``points``: :func:`graph_layout`), edges a flat list
    of node index pairs."""
    type_names = sorted(set(data.types))
    type_index = {name: i for i, name in enumerate(type_names)}
    nodes = [
        [round(x * _SCALE), round(y * _SCALE), type_index[kind], title, urls.page_output(path)]
        for (x, y), kind, title, path in zip(
            points, data.types, data.titles, data.paths, strict=True
        )
    ]
    payload = {
        "types": type_names,
        "nodes": nodes,
        "edges": [n for pair in data.edges for n in pair],
        "paths": data.paths,
    }
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    # `</script>` cannot occur in a .js file, but `<!--` and U+2028 are kept out anyway.
    text = text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"window.KB_GRAPH = {text};\n"
