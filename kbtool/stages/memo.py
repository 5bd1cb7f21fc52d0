"""What a long-running process (``kbtool serve``) keeps of each page between builds, by path,
with what it was made of: made again only when that changed, forgotten when the page went.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import Any, TypeVar

M = TypeVar("M")
V = TypeVar("V")


def remembered(kept: dict[str, tuple[M, V]], path: str, made: M, make: Callable[[str, M], V]) -> V:
    """What ``kept`` holds for ``path`` while it was made of what equals ``made``, else
    ``make(path, made)``, kept with ``made``: a long-running process makes again only what an
    edit changed."""
    entry = kept.get(path)
    if entry is None or entry[0] != made:
        entry = kept[path] = (made, make(path, made))
    return entry[1]


def forget_gone(kept: dict[str, Any], pages: Container[str]) -> None:
    """Forget what ``kept`` holds of the pages no longer among ``pages``."""
    for path in [p for p in kept if p not in pages]:
        del kept[path]
