"""Pages like this one: the pages a page does not link that share the most neighbours and
tags with it.

The measure is the Adamic–Adar index (``networkx.adamic_adar_index``) on the wiki's graph
of pages *and tags*: a page's neighbours are the pages it links or that link to it, in any
kind of link, and a node ``#tag`` for each of its tags. Two pages score
``sum(1 / log(degree(w)))`` over what they share, so a rare tag or a page with few links
says more than a hub. Tests compare the scores with networkx's on the same graph.

:func:`similar_to` is the pure function a command can call for one page; the build calls
:func:`similar_all` for the pages whose list an edit can change (:func:`affected`).
"""

from __future__ import annotations

import hashlib
import heapq
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping

LIMIT = 5
#: Past this degree a shared node is added to the candidates the others found rather than
#: enumerated (each of 7 tags on 1,400 pages is 2 million pairs); the result is the same.
_HEAVY = 64
TAG_PREFIX = "#"

#: a node's neighbours: pages by path, tags as ``#tag``
Graph = Mapping[str, frozenset[str]]


def page_graph(
    backlinks: Mapping[str, Iterable[str]], tags: Mapping[str, Iterable[str]]
) -> dict[str, frozenset[str]]:
    """The undirected graph of pages and tags, from each page's backlinks (every link is
    one) and tags; every page is a node, links to pages not in ``backlinks`` are left out."""
    around: dict[str, set[str]] = {path: set() for path in backlinks}
    for path, sources in backlinks.items():
        for other in sources:
            if other != path and other in around:
                around[path].add(other)
                around[other].add(path)
    for path, names in tags.items():
        if path not in around:
            continue
        for name in names:
            tag = TAG_PREFIX + name
            around[path].add(tag)
            around.setdefault(tag, set()).add(path)
    return {node: frozenset(nodes) for node, nodes in around.items()}


def _weight(graph: Graph, node: str) -> float:
    degree = len(graph[node])
    return 1 / math.log(degree) if degree > 1 else 0.0


def similar_to(
    graph: Graph, page: str, limit: int = LIMIT, among: Iterable[str] | None = None
) -> list[tuple[str, float]]:
    """The ``limit`` pages most like ``page`` that it does not link, best first, with their
    Adamic–Adar scores (ties by path); pages sharing nothing are never listed, nor pages
    not ``among`` the ones given (all by default).

    >>> g = page_graph({"a": [], "b": ["a"], "c": ["a"]}, {"b": ["x"], "c": ["x"]})
    >>> [(p, round(s, 2)) for p, s in similar_to(g, "b")]
    [('c', 2.89)]
    """
    pages = _pages(graph) if among is None else frozenset(among)
    mine = graph.get(page, frozenset())
    return _similar(graph, {w: graph[w] & pages for w in mine}, page, limit)


def _pages(graph: Graph) -> frozenset[str]:
    return frozenset(node for node in graph if not node.startswith(TAG_PREFIX))


def similar_all(
    graph: Graph, pages: Iterable[str], group: Callable[[str], str], limit: int = LIMIT
) -> dict[str, tuple[str, ...]]:
    """The similar pages of each of ``pages``, by path, each among the pages of its own
    ``group`` (the build's: wiki pages, or sources)."""
    members: dict[str, set[str]] = defaultdict(set)
    for node in _pages(graph):
        members[group(node)].add(node)
    # Each node's neighbours in each group, made once: the candidates it can give a page.
    reach = {
        name: {w: nodes & pages for w, nodes in graph.items()} for name, pages in members.items()
    }
    return {
        page: tuple(p for p, _ in _similar(graph, reach[group(page)], page, limit))
        for page in pages
    }


def _similar(
    graph: Graph, reach: Mapping[str, frozenset[str]], page: str, limit: int
) -> list[tuple[str, float]]:
    """:func:`similar_to`, the candidates each node gives in ``reach``."""
    mine = graph.get(page, frozenset())
    weights = {w: _weight(graph, w) for w in mine}
    heavy = [w for w in mine if len(graph[w]) > _HEAVY]
    scores = _scores(reach, [w for w in mine if len(graph[w]) <= _HEAVY], weights)
    # A heavy node is only added to the candidates found already: at most their sum, so a
    # candidate that stays below the best ones with all of it cannot make the list.
    ceiling = sum(weights[w] for w in heavy)
    valid = scores.keys() - mine - {page}
    if heavy and len(valid) > limit:
        floor = heapq.nlargest(limit, map(scores.__getitem__, valid))[-1] - ceiling - 1e-9
        valid = {other for other in valid if scores[other] >= floor}
    for w in heavy:
        weight = weights[w]
        for other in valid & reach[w]:
            scores[other] += weight
    best = _best(scores, valid, limit)
    # A page that shares only heavy nodes scores at most their sum too: enumerate them only
    # when such a page could make the list.
    if heavy and (len(best) < limit or best[-1][1] <= ceiling):
        scores = _scores(reach, mine, weights)
        best = _best(scores, scores.keys() - mine - {page}, limit)
    return best


def _scores(
    reach: Mapping[str, frozenset[str]], shared: Iterable[str], weights: Mapping[str, float]
) -> dict[str, float]:
    """Every candidate's score from the nodes of ``shared`` that give it."""
    scores: dict[str, float] = defaultdict(float)
    for w in shared:
        weight = weights[w]
        for other in reach[w]:
            scores[other] += weight
    return scores


def _best(scores: Mapping[str, float], valid: set[str], limit: int) -> list[tuple[str, float]]:
    """The ``limit`` best of ``valid``; rounded, so that equal sums added up in another order
    still tie (and go by path)."""
    top = heapq.nlargest(2 * limit, valid, key=scores.__getitem__)
    if len(top) > limit:
        floor = scores[top[limit - 1]] - 1e-9
        if scores[top[-1]] >= floor:  # more ties than that: every one of them
            top = [p for p in valid if scores[p] >= floor]
    ranked = sorted(top, key=lambda p: (-round(scores[p], 9), p))[:limit]
    return [(p, scores[p]) for p in ranked if scores[p] > 0]


def node_digests(graph: Graph) -> dict[str, str]:
    """A short digest of each node's neighbours: what :func:`affected` compares."""
    return {
        node: hashlib.blake2b("\x00".join(sorted(nodes)).encode(), digest_size=8).hexdigest()
        for node, nodes in graph.items()
    }


def affected(graph: Graph, before: Mapping[str, str], now: Mapping[str, str]) -> set[str]:
    """The pages whose list can differ from the one made when the node digests were
    ``before``: a page's list reads its own neighbours and theirs, so a node whose
    neighbours changed changes its own list and its neighbours' (a neighbour it lost
    changed too, so it is found by its own digest)."""
    changed = {node for node in now.keys() | before.keys() if before.get(node) != now.get(node)}
    found = set(changed)
    for node in changed:
        found.update(graph.get(node, ()))
    return {node for node in found if node in graph and not node.startswith(TAG_PREFIX)}
