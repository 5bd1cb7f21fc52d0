"""Communities of the link graph, for the graph page's filter and colours: Louvain
(``networkx.community.louvain_communities``) with a fixed seed, so the same graph always gets
the same communities, each named by its most linked page.
"""

from __future__ import annotations

from collections.abc import Sequence

SEED = 27


def communities(n: int, edges: Sequence[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """``(community of each node, the label node of each community)`` for nodes ``0..n-1``
    and directed ``edges`` (linking page, linked page). Communities are numbered largest
    first (ties by their smallest node); a community's label is its node with the most
    in-links (ties: the smaller index). Edge direction is ignored by the grouping.

    >>> communities(5, [(0, 1), (1, 2), (2, 0), (3, 4)])
    ([0, 0, 0, 1, 1], [0, 4])
    """
    import networkx as nx  # here: a build that reuses the stored communities never needs it

    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from((a, b) for a, b in edges if a != b)
    groups = nx.community.louvain_communities(graph, seed=SEED)
    ordered = sorted((sorted(group) for group in groups), key=lambda g: (-len(g), g[0]))
    inlinks = [0] * n
    for _, b in edges:
        inlinks[b] += 1
    member = [0] * n
    labels = []
    for number, group in enumerate(ordered):
        for node in group:
            member[node] = number
        labels.append(min(group, key=lambda node: (-inlinks[node], node)))
    return member, labels
