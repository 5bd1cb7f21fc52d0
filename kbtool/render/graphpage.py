"""The whole-graph page: ``graph.html`` and its data, ``graph-data.js``.

The layout is computed here, at build time, so the browser only draws: at 7,000 pages that is
the difference between a page that opens at once and one that freezes. The data is a script
(not JSON fetched at run time) so the page also works when opened from ``file://``.
Positions are kept in the cache folder and seed the next layout.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from kbtool.graph import edges
from kbtool.render import urls
from kbtool.render.context import SiteContext
from kbtool.render.indexes import IndexPage
from kbtool.render.layout import layout

_POSITIONS_FILE = "graph-layout.json"
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
    paths = sorted(site.infos)
    index = {path: i for i, path in enumerate(paths)}
    pairs = sorted({(index[a], index[b]) for a, b, _ in edges(site.wiki)})
    return GraphData(
        paths,
        [site.infos[p].ref.title for p in paths],
        [site.infos[p].ref.type for p in paths],
        pairs,
    )


def graph_page(site: SiteContext, data: GraphData) -> IndexPage:
    return IndexPage(
        urls.GRAPH,
        "graph.html",
        site.t("graph_title"),
        {"node_count": len(data.paths), "edge_count": len(data.edges)},
    )


def _load_positions(cache_dir: Path) -> dict[str, tuple[float, float]]:
    try:
        raw = json.loads((cache_dir / _POSITIONS_FILE).read_text(encoding="utf-8"))
        return {str(k): (float(v[0]), float(v[1])) for k, v in raw.items()}
    except (OSError, ValueError, TypeError, IndexError, AttributeError):
        return {}


def _save_positions(cache_dir: Path, positions: dict[str, tuple[float, float]]) -> None:
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cache_dir / (_POSITIONS_FILE + ".tmp")
        tmp.write_text(json.dumps(positions), encoding="utf-8")
        tmp.replace(cache_dir / _POSITIONS_FILE)
    except OSError:
        pass  # Only a seed for next time.


def graph_script(site: SiteContext, data: GraphData) -> str:
    """``graph-data.js``: ``window.KB_GRAPH = {types, nodes, edges, paths}``; a node is
    ``[x, y, type index, title, url]``, edges a flat list of node index pairs."""
    cache_dir = site.config.cache_path
    previous = _load_positions(cache_dir)
    seed = [previous.get(p) for p in data.paths] if previous else None
    points = layout(len(data.paths), data.edges, seed)
    _save_positions(cache_dir, dict(zip(data.paths, points, strict=True)))
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
