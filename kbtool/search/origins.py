"""Which page content each SearchDoc of an index was made from: path -> [content digest, id].

A write from scratch lists every page in ``origins.json``. An update keeps that file as it
is (a hard link) and writes the pages that differ from it since, the few a save touches, to
``origins-since.json`` (a page removed since: null), as the index keeps its main part and
writes an update segment: a save does not write every page's row again.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kbtool.search import tables
from kbtool.search.output import SearchStats

#: every page's origin when the index was last written from scratch
ORIGINS = "origins.json"
#: the pages whose origin differs from ``origins.json``'s since
SINCE = "origins-since.json"


@dataclass(frozen=True)
class Origins:
    """The origins of an index's pages: ``main``, as written from scratch, and ``since``,
    what differs from it now."""

    main: dict[str, Any] = field(default_factory=dict)
    since: dict[str, Any] = field(default_factory=dict)

    def get(self, path: str) -> Any:
        """``[digest, id]`` of the page (None: not in the index)."""
        return self.since[path] if path in self.since else self.main.get(path)

    def digests(self) -> dict[str, str]:
        """path -> content digest of every page the index holds."""
        found = {path: row[0] for path, row in self.main.items()}
        for path, row in self.since.items():
            if row is None:
                found.pop(path, None)
            else:
                found[path] = row[0]
        return found


def read_origins(index: Path, version: str | None = None) -> Origins | None:
    """The origins of the index in ``index`` (``version``: the one its texts must be of);
    None where they cannot be read (none of the index's texts is then taken as it is)."""
    main, since = _pages(index / ORIGINS, version), _pages(index / SINCE, version)
    return None if main is None or since is None else Origins(main, since)


def _pages(path: Path, version: str | None) -> dict[str, Any] | None:
    try:
        data = tables.load(path)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("pages"), dict):
        return None
    if version is not None and data.get("version") != version:
        return None
    pages: dict[str, Any] = data["pages"]
    return pages


def write_origins(
    folder: Path,
    version: str,
    digests: Mapping[str, str],
    ids: Mapping[str, int],
    stats: SearchStats,
    updated: tuple[Path, Origins, Collection[str]] | None = None,
) -> None:
    """Write the origins of the index written into ``folder``: every page's from scratch;
    ``updated`` (the index updated, its origins, the pages whose origin may differ from
    them), those that differ from the updated index's ``origins.json``, which is kept."""
    if updated is None:
        main = {path: [digest, ids[path]] for path, digest in digests.items()}
        _write(folder / ORIGINS, {"version": version, "pages": main}, stats)
        _write(folder / SINCE, {"version": version, "pages": {}}, stats)
        return
    old, origins, changed = updated
    since: dict[str, Any] = {}
    for path in {*origins.since, *changed}:
        if path in digests:
            row = [digests[path], ids[path]]
            if origins.main.get(path) != row:
                since[path] = row
        elif path in origins.main:
            since[path] = None
    for path in origins.main.keys() - digests.keys():
        since[path] = None
    stats.bytes += _keep(old / ORIGINS, folder / ORIGINS)
    stats.files += 1
    _write(folder / SINCE, {"version": version, "pages": since}, stats)


def _write(path: Path, data: dict[str, Any], stats: SearchStats) -> None:
    path.unlink(missing_ok=True)  # a former index's: maybe a link to the live one
    encoded = json.dumps(data).encode()
    path.write_bytes(encoded)
    tables.written(path, data)
    stats.files += 1
    stats.bytes += len(encoded)


def _keep(source: Path, target: Path) -> int:
    """Link ``source`` in as ``target`` unless it is that file already (a spare's index
    holds the live one's): its bytes."""
    with contextlib.suppress(OSError):
        if os.path.samefile(source, target):
            return target.stat().st_size
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
    return target.stat().st_size
