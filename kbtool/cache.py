"""Parsed pages cached under ``.kbtool/`` by content hash, never by mtime.

One pickle file maps path -> Page; an entry is reused only when the file's content digest is
the same. The header holds kbtool's version, a digest of the parser's own source and the
configuration fingerprint: any change to one of them starts the cache afresh. A corrupt or
foreign file is ignored and rewritten. The unpickler accepts only the page model's classes, so
a cache file planted in a cloned repository cannot run code.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from kbtool import __version__, model
from kbtool.model import Page

_FORMAT = 1
_MODEL_CLASSES = {"Page", "Frontmatter", "Heading", "Link", "Cell", "Problem", "Span"}


@cache
def source_digest(*patterns: str) -> str:
    """A hash of kbtool's own source files matching ``patterns``, so that editing the code
    (in an editable install) invalidates what that code computed."""
    package = Path(__file__).parent
    digest = hashlib.blake2b(digest_size=12)
    for path in sorted(p for pattern in patterns for p in package.glob(pattern)):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def write_atomic(target: Path, data: bytes) -> None:
    """Write a new file beside ``target`` and rename it into place, so that a reader never sees
    half a file. Raises OSError, leaving no temporary file behind."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _header(fingerprint: str) -> tuple[object, ...]:
    parser = source_digest("model.py", "parse/*.py")
    return ("kbtool-pages", _FORMAT, __version__, parser, fingerprint)


class _ModelUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module == "kbtool.model" and name in _MODEL_CLASSES:
            return getattr(model, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of the page model")


def load_pages(cache_dir: Path, fingerprint: str) -> dict[str, Page]:
    path = cache_dir / "pages.pickle"
    try:
        with path.open("rb") as f:
            header, pages = _ModelUnpickler(f).load()
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
        data = pickle.dumps((_header(fingerprint), pages), protocol=pickle.HIGHEST_PROTOCOL)
        write_atomic(cache_dir / "pages.pickle", data)
    except OSError:
        pass
