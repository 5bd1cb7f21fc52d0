"""Parsed pages cached under ``.kbtool/`` by content hash, never by mtime.

One pickle file maps path -> Page; an entry is reused only when the file's content digest is
the same. The header holds kbtool's version and the configuration fingerprint: any change to
either starts the cache afresh. A corrupt or foreign file is ignored and rewritten.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path

from kbtool import __version__
from kbtool.model import Page

_FORMAT = 1


def _header(fingerprint: str) -> tuple[object, ...]:
    return ("kbtool-pages", _FORMAT, __version__, fingerprint)


def load_pages(cache_dir: Path, fingerprint: str) -> dict[str, Page]:
    path = cache_dir / "pages.pickle"
    try:
        with path.open("rb") as f:
            header, pages = pickle.load(f)
    except FileNotFoundError:
        return {}
    except Exception:  # Corrupt, truncated or written by another version: start afresh.
        return {}
    if header != _header(fingerprint) or not isinstance(pages, dict):
        return {}
    return pages


def save_pages(cache_dir: Path, fingerprint: str, pages: dict[str, Page]) -> None:
    """Write atomically, so a reader never sees half a file. Failure to write is not fatal."""
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=".pages.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            pickle.dump((_header(fingerprint), pages), f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache_dir / "pages.pickle")
    except OSError:
        pass
