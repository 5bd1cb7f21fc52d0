"""The cache folder (``.kbtool`` by default): made with a ``.gitignore`` of its own, as pytest's
and ruff's caches are, so that git never lists what is in it, whatever the repository's own
``.gitignore`` says."""

from __future__ import annotations

import contextlib
from pathlib import Path

IGNORE = "# kbtool's cache: made again when missing, never committed\n*\n"


def make_cache_dir(cache_dir: Path) -> None:
    """Create ``cache_dir`` if it is missing, and its ``.gitignore`` (never replaced)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    ignore = cache_dir / ".gitignore"
    if not ignore.exists():
        with contextlib.suppress(OSError):  # a read-only folder: the cache works without it
            ignore.write_text(IGNORE, encoding="utf-8")
