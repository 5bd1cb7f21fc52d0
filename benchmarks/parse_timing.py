"""CPU seconds of markdown-it parses, for the benchmarks that weigh one parser rule's cost.

>>> from markdown_it import MarkdownIt
>>> ours, plain = paired_seconds(MarkdownIt(), MarkdownIt(), ["# a"], rounds=2)
>>> ours >= 0 and plain >= 0
True
"""

from __future__ import annotations

import time

from markdown_it import MarkdownIt


def parse_seconds(md: MarkdownIt, texts: list[str]) -> float:
    """CPU time of parsing every text once."""
    start = time.process_time()
    for text in texts:
        md.parse(text)
    return time.process_time() - start


def paired_seconds(
    ours: MarkdownIt, plain: MarkdownIt, texts: list[str], rounds: int
) -> tuple[float, float]:
    """The best CPU time of each parser over ``rounds``, run in turn (which one goes first
    changes each round), so that a slower moment of a shared machine hits both alike."""
    best_ours = best_plain = float("inf")
    for round_ in range(rounds):
        if round_ % 2:
            best_ours = min(best_ours, parse_seconds(ours, texts))
        best_plain = min(best_plain, parse_seconds(plain, texts))
        if not round_ % 2:
            best_ours = min(best_ours, parse_seconds(ours, texts))
    return best_ours, best_plain
