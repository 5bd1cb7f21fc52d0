"""The index's JSON tables as this process last read or wrote them, by file: a session's
build reads the tables the build before it wrote (1.3 MB of JSON at 7,000 pages), which it
still holds. A file is known by its device, inode, size, mtime and ctime: written again, or
replaced, it is another file, and is read."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

#: tables held at once, the least recently used let go first: a build reads the live
#: index's four and the spare's page table, and writes two (at 20,000 pages, tens of MB)
_MOST = 8
_held: dict[tuple[int, ...], Any] = {}


def _identity(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def load(path: Path) -> Any:
    """The JSON value in ``path`` (raises OSError or ValueError); while the file is the one
    read or written last, the very value held then, which a caller must not change."""
    with open(path, "rb") as f:
        identity = _identity(os.fstat(f.fileno()))
        if identity in _held:
            _held[identity] = value = _held.pop(identity)  # used last
            return value
        value = json.loads(f.read())
    _hold(identity, value)
    return value


def written(path: Path, value: Any) -> None:
    """Hold ``value`` as what ``path``, just written with its JSON, holds."""
    try:
        _hold(_identity(os.stat(path)), value)
    except OSError:
        return


def _hold(identity: tuple[int, ...], value: Any) -> None:
    _held[identity] = value
    while len(_held) > _MOST:
        del _held[next(iter(_held))]
