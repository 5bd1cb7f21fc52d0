"""A force-directed layout of the whole link graph, computed at build time.

networkx's spring layout is O(n²) per step in memory (dense) or in Python loops (sparse),
which is minutes at 7,000 pages. This is the same Fruchterman-Reingold model with the
repulsion of each step estimated from a random sample of nodes (scaled up to stand for all
of them), so one step is O(n·k + edges) numpy work and the whole layout takes about a
second. Positions from the previous build seed the next one, so a one-page edit moves the
picture a little instead of redrawing it from scratch. Seeded: same graph, same layout.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Point = tuple[float, float]

_SAMPLE = 64


def layout(
    count: int,
    edges: Sequence[tuple[int, int]],
    previous: Sequence[Point | None] | None = None,
    iterations: int = 80,
) -> list[Point]:
    """Positions in roughly [-1, 1]² for nodes ``0..count-1`` joined by ``edges``."""
    if count == 0:
        return []
    try:
        import numpy as np
    except ImportError:  # Without numpy: a circle, still usable with zoom and search.
        return [
            (math.cos(2 * math.pi * i / count), math.sin(2 * math.pi * i / count))
            for i in range(count)
        ]

    rng = np.random.default_rng(0)
    pos = rng.uniform(-1, 1, size=(count, 2))
    known = np.zeros(count, dtype=bool)
    if previous is not None:
        for i, point in enumerate(previous):
            if point is not None:
                pos[i] = point
                known[i] = True
    edge_array = np.array(edges, dtype=np.int64).reshape(-1, 2)
    if known.any() and not known.all() and len(edge_array):
        # A new page starts beside a page it links with, not at a random place.
        for a, b in edge_array:
            if not known[a] and known[b]:
                pos[a] = pos[b] + rng.normal(0, 0.02, 2)
            elif not known[b] and known[a]:
                pos[b] = pos[a] + rng.normal(0, 0.02, 2)
    warm = known.mean() if previous is not None else 0.0
    steps = max(15, int(iterations * (1 - 0.85 * warm)))
    k = 2.0 / math.sqrt(count)  # ideal edge length in a [-1, 1]² square
    temperature = 0.1 if warm < 0.5 else 0.02
    cool = temperature / (steps + 1)
    sample_size = min(count, _SAMPLE)
    scale = count / sample_size
    for _ in range(steps):
        sample = rng.choice(count, size=sample_size, replace=False)
        dx = pos[:, 0:1] - pos[sample, 0][None, :]  # n x s, one axis at a time
        dy = pos[:, 1:2] - pos[sample, 1][None, :]
        weight = (k * k * scale) / np.maximum(dx * dx + dy * dy, 1e-6)
        displacement = np.stack(((dx * weight).sum(axis=1), (dy * weight).sum(axis=1)), axis=1)
        if len(edge_array):
            d = pos[edge_array[:, 0]] - pos[edge_array[:, 1]]
            dist = np.sqrt(np.maximum((d**2).sum(axis=1), 1e-9))
            pull = d * (dist / k)[:, None]
            for axis in (0, 1):  # bincount: a scatter-add many times faster than np.add.at
                displacement[:, axis] -= np.bincount(edge_array[:, 0], pull[:, axis], count)
                displacement[:, axis] += np.bincount(edge_array[:, 1], pull[:, axis], count)
        displacement -= pos * (count * k * 0.05)  # gravity keeps loose components near
        length = np.sqrt(np.maximum((displacement**2).sum(axis=1), 1e-9))
        pos += displacement * (np.minimum(length, temperature) / length)[:, None]
        temperature = max(temperature - cool, 0.002)
    pos -= pos.mean(axis=0)
    extent = np.abs(pos).max() or 1.0
    pos /= extent
    return [(float(x), float(y)) for x, y in pos]
