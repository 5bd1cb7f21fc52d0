"""The link graph: pages as nodes, resolved links as edges, exported with networkx.

Edge kinds: ``related`` and ``source`` (frontmatter lists) and ``link`` (body links,
images and wikilinks). networkx is imported only here, where it is needed.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from kbtool.wiki import Wiki

if TYPE_CHECKING:
    import networkx as nx

EDGE_KINDS = {
    "related": "related",
    "source": "source",
    "link": "link",
    "image": "link",
    "wikilink": "link",
}


def edges(wiki: Wiki) -> list[tuple[str, str, str]]:
    """(from, to, kind) between two different pages; kind is related, source or link."""
    return merged_edges(wiki.edges)


def merged_edges(found: Iterable[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """``found`` (from, to, link kind) with the kind as the graph has it, without repeats."""
    return list(dict.fromkeys((frm, to, EDGE_KINDS[kind]) for frm, to, kind in found))


def backlinks(wiki: Wiki) -> dict[str, list[str]]:
    """For each page, the sorted pages that link to it (any kind)."""
    incoming: dict[str, set[str]] = {path: set() for path in wiki.pages}
    for frm, to, _ in edges(wiki):
        incoming[to].add(frm)
    return {path: sorted(sources) for path, sources in incoming.items()}


def build_graph(wiki: Wiki) -> nx.MultiDiGraph:
    import networkx as nx

    graph = nx.MultiDiGraph()
    for page in wiki.pages.values():
        tags = page.meta.get("tags")
        graph.add_node(
            page.path,
            path=page.path,
            kind=page.kind,
            type=str(page.meta.get("type", "source" if page.kind == "source" else "")),
            title=page.title,
            tags=[t for t in tags if isinstance(t, str)] if isinstance(tags, list) else [],
        )
    for frm, to, kind in edges(wiki):
        graph.add_edge(frm, to, kind=kind)
    return graph


def export(graph: nx.MultiDiGraph, fmt: str) -> str:
    import networkx as nx

    if fmt == "json":
        data = nx.node_link_data(graph, edges="edges")
        return json.dumps(data, ensure_ascii=False, indent=2)
    if fmt == "graphml":
        flat = graph.copy()
        for _, attrs in flat.nodes(data=True):
            attrs["tags"] = ",".join(attrs["tags"])  # GraphML has no list type
            for key, value in attrs.items():
                attrs[key] = _xml_text(value)
        flat = nx.relabel_nodes(flat, {n: _xml_text(n) for n in flat if _xml_text(n) != n})
        buffer = io.BytesIO()
        nx.write_graphml(flat, buffer, encoding="utf-8")
        return buffer.getvalue().decode("utf-8")
    if fmt == "dot":
        return _to_dot(graph)
    raise ValueError(f"unknown graph format {fmt!r}")


# Characters XML 1.0 cannot hold at all, not even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(value: Any) -> Any:
    """``value`` with characters XML cannot hold replaced by U+FFFD (strings only)."""
    return _NOT_XML.sub("\ufffd", value) if isinstance(value, str) else value


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _to_dot(graph: nx.MultiDiGraph) -> str:
    """DOT written directly: pydot/pygraphviz would be a heavy dependency for one format."""
    styles = {"related": "solid", "source": "dashed", "link": "dotted"}
    lines = ["digraph wiki {", "  node [shape=box];"]
    for node, attrs in graph.nodes(data=True):
        lines.append(
            f"  {_quote(node)} [label={_quote(attrs['title'])}, type={_quote(attrs['type'])}];"
        )
    for frm, to, attrs in graph.edges(data=True):
        kind = attrs["kind"]
        lines.append(f"  {_quote(frm)} -> {_quote(to)} [kind={kind}, style={styles[kind]}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def stats(graph: nx.MultiDiGraph, top: int = 10) -> dict[str, Any]:
    import networkx as nx

    by_type = Counter(attrs["type"] or "(none)" for _, attrs in graph.nodes(data=True))
    by_kind = Counter(attrs["kind"] for _, _, attrs in graph.edges(data=True))
    simple = nx.DiGraph(graph)
    components = list(nx.weakly_connected_components(simple))
    in_degree = sorted(((simple.in_degree(n), n) for n in simple), key=lambda x: (-x[0], x[1]))
    orphans = sorted(
        n
        for n, attrs in graph.nodes(data=True)
        if attrs["kind"] == "wiki" and not any(src != n for src in simple.predecessors(n))
    )
    return {
        "pages": graph.number_of_nodes(),
        "edges": graph.number_of_edges(),
        "pages_by_type": dict(sorted(by_type.items())),
        "edges_by_kind": dict(sorted(by_kind.items())),
        "components": len(components),
        "largest_component": max((len(c) for c in components), default=0),
        "most_linked": [{"path": n, "backlinks": d} for d, n in in_degree[:top] if d > 0],
        "orphans": orphans,
    }


def format_stats(data: dict[str, Any]) -> str:
    lines = [
        f"{data['pages']} pages, {data['edges']} edges, {data['components']} components "
        f"(largest: {data['largest_component']} pages)",
        "",
        "pages by type:",
    ]
    lines += [f"  {k:<14} {v}" for k, v in data["pages_by_type"].items()]
    lines += ["", "edges by kind:"]
    lines += [f"  {k:<14} {v}" for k, v in data["edges_by_kind"].items()]
    lines += ["", "most linked:"]
    lines += [f"  {item['backlinks']:>5}  {item['path']}" for item in data["most_linked"]]
    lines += ["", f"orphans ({len(data['orphans'])}):"]
    lines += [f"  {path}" for path in data["orphans"]]
    return "\n".join(lines)
