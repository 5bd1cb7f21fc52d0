"""The record of the last published site, kept in the store: for each output its key, its
files, the repository files it copied (with their stat signature) and the diagnostics its
rendering gave.

A marker record names the site folder these outputs describe. It is deleted before a swap and
written after it, so a crash in between can only cost a full rebuild, never a stale page taken
for a fresh one. Only the outputs a build rendered or dropped are written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from kbtool.diagnostics import Diagnostic
from kbtool.store.db import Store
from kbtool.store.records import OUTPUT, PUBLISHED


@dataclass(frozen=True)
class Published:
    """What the published site holds of one output."""

    key: str
    files: tuple[str, ...]
    #: repository file -> "size:mtime_ns" when it was copied
    copies: dict[str, str] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()


def same(a: Published | None, b: Published | None) -> bool:
    """Whether two records are equal: mostly the very record, which ``==`` of a dataclass
    compares field by field (thousands of them at every build)."""
    return a is b or a == b


@dataclass(frozen=True)
class Spare:
    """A former site kept by ``kbtool serve`` (see ``stages/publish/spare.py``): its folder, the
    record of what it holds, and the identity of the live site it was swapped out of."""

    folder: Path
    outputs: dict[str, Published]
    site: tuple[int, int] | None
    #: the live site's record when it was kept, and the outputs whose record differs between
    #: the two (None: not told; the next build compares every record)
    told: tuple[dict[str, Published], frozenset[str]] | None = None


def stat_signature(path: str | Path) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "missing"
    return f"{st.st_size}:{st.st_mtime_ns}"


def load_published(
    store: Store, site_dir: Path, held: dict[str, Published] | None = None
) -> dict[str, Published]:
    """The record of the site published in ``site_dir``; ``held``, the record a session
    reuses, is taken as it is while the store's output keys are its own."""
    if not site_dir.is_dir() or store.get(PUBLISHED, "site", str(site_dir)) is None:
        return {}
    if held and store.keys(OUTPUT) == {name: r.key for name, r in held.items()}:
        return dict(held)
    records = {}
    for name, (key, value) in store.all(OUTPUT).items():
        try:
            records[name] = _decode(key, value)
        except (ValueError, KeyError, TypeError):
            return {}  # damaged: render everything again
    return records


def _encode(record: Published) -> bytes:
    value = {
        "files": list(record.files),
        "copies": record.copies,
        "diagnostics": [d.row() for d in record.diagnostics],
    }
    return OUTPUT.codec.encode(value)


def _decode(key: str, value: bytes) -> Published:
    """The record :func:`_encode` wrote; ValueError, KeyError or TypeError if damaged."""
    item = OUTPUT.codec.decode(value)
    files = tuple(item["files"])  # None (damaged) raises TypeError
    copies, rows = item.get("copies"), item.get("diagnostics")
    diagnostics = tuple(map(Diagnostic.from_row, rows)) if rows else ()
    return Published(key, files, dict(copies) if copies else {}, diagnostics)


def forget_published(store: Store) -> None:
    with store.transaction():
        store.clear(PUBLISHED)


def save_published(
    store: Store, site_dir: Path, records: dict[str, Published], previous: dict[str, Published]
) -> None:
    """Write the outputs that differ from ``previous``, drop the ones no longer built."""
    rows = []
    for name, r in records.items():
        if not same(previous.get(name), r):
            rows.append((name, r.key, _encode(r)))
    rows.sort()
    with store.transaction():
        if not previous:
            store.clear(OUTPUT)
        store.put(OUTPUT, rows)
        store.delete(OUTPUT, set(previous) - set(records))
        store.put(PUBLISHED, [("site", str(site_dir), b"")])
