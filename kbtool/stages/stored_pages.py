"""The snapshot's pages as a mapping that reads each stored page only when it is asked for.

After a one-page edit a build needs few whole pages: the ones it checks, renders or runs, and
the pages those link to. The rest are never unpickled (7,000 pages take a second or more);
their facts, site facts and keys come from compact records. Asking for every page (``values``,
``items``) still works, and reads them all in one query.

A forked worker (rendering) reads through its own connection: an SQLite connection must not
cross a fork. A page whose record turns out damaged is parsed again from the snapshot's bytes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, ItemsView, Iterable, Iterator, Mapping, ValuesView

from kbtool.model import Page
from kbtool.stages.pageworker import Work, process
from kbtool.store.codec import load_page
from kbtool.store.db import Store, open_store
from kbtool.store.records import PAGE


class StoredPages(Mapping[str, Page]):
    """Pages by path, in sorted order: ``known`` ones at hand, the ``stored`` ones (each with
    the work that parses it again) read from ``store`` on first use; ``on_load(page)`` is told
    of each page read."""

    def __init__(
        self,
        known: dict[str, Page],
        stored: dict[str, Work],
        store: Store,
        on_load: Callable[[Page], None] | None = None,
    ) -> None:
        self._pages = dict(known)
        self._stored = {path: work for path, work in stored.items() if path not in known}
        self._order = sorted({*known, *self._stored})
        self._store = store
        self._pid = os.getpid()
        self._child_store: Store | None = None
        self._on_load = on_load

    def __getitem__(self, path: str) -> Page:
        page = self._pages.get(path)
        if page is not None:
            return page
        if path not in self._stored:
            raise KeyError(path)
        self.load([path])
        return self._pages[path]

    def __contains__(self, path: object) -> bool:
        return path in self._pages or path in self._stored

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def values(self) -> ValuesView[Page]:
        self.load(self._stored)
        return {path: self._pages[path] for path in self._order}.values()

    def items(self) -> ItemsView[str, Page]:
        self.load(self._stored)
        return {path: self._pages[path] for path in self._order}.items()

    def loaded(self) -> dict[str, Page]:
        """The pages read so far (or given), by path."""
        return dict(self._pages)

    def load(self, paths: Iterable[str]) -> None:
        """Read the stored pages among ``paths`` that are not read yet, in one query."""
        wanted = [path for path in paths if path in self._stored]
        if not wanted:
            return
        reader = self._reader()
        records = reader.some(PAGE, wanted) if reader is not None else {}
        parsed = []
        for path in wanted:
            work = self._stored.pop(path)
            _, _, kind, digest = work
            record = records.get(path)
            page = load_page(record[1]) if record and record[0] == PAGE.key(digest) else None
            if page is None or page.kind != kind:  # damaged, or changed since the scan
                data = process(work, None)[0]
                page = load_page(data)
                assert page is not None  # just pickled by our own parser
                parsed.append((path, PAGE.key(digest), data))
            self._pages[path] = page
            if self._on_load is not None:
                self._on_load(page)
        if parsed and reader is self._store:  # stored again, by the process that owns it
            with self._store.transaction():
                self._store.put(PAGE, parsed)

    def _reader(self) -> Store | None:
        """This process's connection to the store (None: an in-memory store, in a worker)."""
        if os.getpid() == self._pid:
            return self._store
        if self._child_store is None and self._store.path is not None:
            self._child_store = open_store(self._store.path.parent)
        return self._child_store
