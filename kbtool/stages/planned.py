"""One output of the site as the plan has it: its name, its key, and what renders it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Planned:
    """One output of the site: a page, an index page, the graph data, an asset. ``arg`` is
    what renders it: a page's path, an index page, the graph's data, a file's bytes (None
    for an index or the graph planned from the last build's keys)."""

    name: str
    key: str
    kind: str  # "page" | "index" | "graph" | "static"
    arg: Any
