"""``--shard K/N``: a deterministic 1/N of the pages, for spreading a run over a CI matrix.

A page belongs to shard ``hash(path) mod N``, so each page keeps its shard when others are
added or removed (only a change of N moves pages), and every machine agrees without talking
to the others. The shards of one N together hold every page exactly once.

    >>> shard = parse_shard("2/3")
    >>> shard, sum(in_shard(p, parse_shard(f"{k}/3")) for k in (1, 2, 3) for p in ["a.md"])
    ((2, 3), 1)
"""

from __future__ import annotations

import argparse
import hashlib
import re


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` -> (K, N), 1 <= K <= N; an argparse type (a bad value is a usage error)."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if match is None or not 1 <= int(match[1]) <= int(match[2]):
        raise argparse.ArgumentTypeError(f"expected K/N with 1 <= K <= N, got {text!r}")
    return int(match[1]), int(match[2])


def in_shard(path: str, shard: tuple[int, int] | None) -> bool:
    """Whether the page at (repository-relative) ``path`` belongs to ``shard``."""
    if shard is None:
        return True
    number, count = shard
    digest = hashlib.blake2b(path.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % count == number - 1
