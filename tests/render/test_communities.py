"""Communities of the link graph (kbtool.render.communities) and how graph-data.js carries
them, with the tags, dates and types the graph page filters by."""

from __future__ import annotations

import json

import networkx as nx

from kbtool.render.communities import communities
from kbtool.render.graphpage import GraphData, graph_script


def _two_cliques() -> list[tuple[int, int]]:
    first = [(a, b) for a in range(5) for b in range(5) if a != b]
    second = [(a + 5, b + 5) for a in range(4) for b in range(4) if a < b]
    return [*first, *second, (4, 5), (6, 8), (7, 8)]


def test_louvain_groups_are_numbered_largest_first_and_named_by_their_most_linked_page() -> None:
    edges = _two_cliques()
    member, labels = communities(9, edges)
    assert member == [0] * 5 + [1] * 4
    assert labels == [0, 8]  # node 8 has the most in-links of the second group
    assert communities(9, edges) == (member, labels)  # the seed is fixed
    undirected = nx.Graph(edges)
    expected = nx.community.louvain_communities(undirected, seed=27)
    assert sorted(map(sorted, expected)) == [[0, 1, 2, 3, 4], [5, 6, 7, 8]]


def test_graph_data_carries_what_the_filters_need() -> None:
    data = GraphData(
        paths=["wiki/a.md", "wiki/b.md", "sources/c.md"],
        titles=["A", "B <x>", "C"],
        types=["concept", "method", "source"],
        edges=[(0, 1), (2, 1)],
        tags=[("t1", "t2"), ("t2",), ()],
        updated=["2026-01-02", "", "1970-01-11"],
        type_labels={"concept": "概念", "method": "方法", "source": "来源"},
    )
    script = graph_script(data, [(0.0, 0.0), (0.5, -0.5), (1.0, 1.0)], ([0, 0, 1], [1, 2]))
    assert "<" not in script
    value = json.loads(script.removeprefix("window.KB_GRAPH = ").rstrip().removesuffix(";"))
    assert value["types"] == ["concept", "method", "source"]
    assert value["typeLabels"] == ["概念", "方法", "来源"]
    assert value["tags"] == ["t1", "t2"]
    assert value["communities"] == [1, 2]
    assert value["nodes"][0] == [0, 0, 0, "A", 0, 20455, [0, 1]]
    assert value["nodes"][1][3:] == ["B <x>", 0, -1, [1]]
    assert value["nodes"][2][4:6] == [1, 10]
    assert value["edges"] == [0, 1, 2, 1]
