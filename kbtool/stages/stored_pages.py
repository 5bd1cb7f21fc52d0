"""The snapshot's pages as a lazy mapping (:mod:`kbtool.reuse.lazy`) that reads each stored
page only when it is asked for: the rest are never unpickled (7,000 pages take a second or
more); their facts, site facts and keys come from compact records.

A forked worker (rendering) reads through its own connection: an SQLite connection must not
cross a fork. A page whose record turns out damaged is parsed again from its file
(:meth:`Snapshot.data`).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from kbtool.model import Page
from kbtool.reuse.lazy import Lazy
from kbtool.stages.pageworker import process
from kbtool.stages.scan import Snapshot
from kbtool.store.codec import load_page
from kbtool.store.db import Store, open_store
from kbtool.store.records import PAGE

#: a stored page's kind and content digest
Stored = tuple[str, str]
#: pages by path, each stored one with its kind and digest
StoredPages = Lazy[Page, Stored]


def stored_pages(
    known: dict[str, Page],
    stored: dict[str, Stored],
    store: Store,
    snapshot: Snapshot,
    on_load: Callable[[Page], None] | None = None,
    flavor: str = "gfm",
) -> StoredPages:
    """Pages by path, in sorted order: ``known`` ones at hand, the ``stored`` ones read from
    ``store`` on first use (parsed again, as Markdown of ``flavor``, from ``snapshot`` if
    damaged); ``on_load(page)`` is told of each page read."""
    order = sorted({*known, *stored})
    return Lazy(_Reader(store, snapshot, on_load, flavor), known, stored, order)


class _Reader:
    """Reads a batch of stored pages in one query, through this process's connection."""

    def __init__(
        self,
        store: Store,
        snapshot: Snapshot,
        on_load: Callable[[Page], None] | None,
        flavor: str,
    ) -> None:
        self._store = store
        self._snapshot = snapshot
        self._pid = os.getpid()
        self._child_store: Store | None = None
        self._on_load = on_load
        self._flavor = flavor

    def __call__(self, batch: dict[str, Stored]) -> dict[str, Page]:
        reader = self._reader()
        records = reader.some(PAGE, list(batch)) if reader is not None else {}
        pages: dict[str, Page] = {}
        parsed = []
        for path, (kind, digest) in batch.items():
            record = records.get(path)
            key = PAGE.key(digest, self._flavor)
            page = load_page(record[1]) if record and record[0] == key else None
            if page is None or page.kind != kind:  # damaged, or changed since the scan
                work = (path, self._snapshot.data(path), kind, digest)
                data = process(work, None, flavor=self._flavor).page
                page = load_page(data)
                assert page is not None  # just pickled by our own parser
                parsed.append((path, key, data))
            pages[path] = page
            if self._on_load is not None:
                self._on_load(page)
        if parsed and reader is self._store:  # stored again, by the process that owns it
            with self._store.transaction():
                self._store.put(PAGE, parsed)
        return pages

    def _reader(self) -> Store | None:
        """This process's connection to the store (None: an in-memory store, in a worker)."""
        if os.getpid() == self._pid:
            return self._store
        if self._child_store is None and self._store.path is not None:
            self._child_store = open_store(self._store.path.parent)
        return self._child_store
