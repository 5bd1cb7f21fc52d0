"""The build's search stage: the site's pages -> their :class:`SearchDoc` -> ``site/search/``.

A page's SearchDoc is made by the worker that parsed it, from the same tokens (see
:mod:`kbtool.stages.load`). A page whose content is unchanged since the live site was built takes
its SearchDoc from the live index; the others' come from the load stage (``fetch``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from kbtool.search import layout, tables
from kbtool.search.codec import unscript
from kbtool.search.origins import ORIGINS, SINCE, read_origins, write_origins
from kbtool.search.output import SearchStats
from kbtool.search.page_terms import Terms
from kbtool.search.pagefiles import PageReader
from kbtool.search.text import SearchDoc
from kbtool.search.writer import write_search_index
from kbtool.store.records import SEARCH


def _text_version(flavor: str) -> str:
    """Which code made the search texts an index holds, from Markdown of which flavor: that
    of the store's search-text records, so an index written by other code, or from pages
    read as another flavor, gives none of its texts again."""
    return f"{SEARCH.code}.{flavor}"


def read_ahead(live: Path) -> None:
    """Read the live site's index tables, which the next build's update reads (a session
    holds them from then on; see :mod:`kbtool.search.tables`)."""
    index = live / layout.FOLDER
    for name in (ORIGINS, SINCE, layout.TABLE, layout.MAIN_TABLE):
        with contextlib.suppress(OSError, ValueError):
            tables.load(index / name)


def _reader(old: Path | None) -> PageReader | None:
    try:
        return PageReader(old, unscript((old / layout.META).read_bytes())) if old else None
    except (OSError, ValueError):
        return None


Fetch = Callable[[list[str]], dict[str, SearchDoc]]


#: Up to this many changed pages, their SearchDocs are fetched at once, now, and held; more
#: (a write from scratch) are fetched as asked for, and a pass over them in order
#: (:meth:`SiteDocs.in_order`) fetches :data:`_WINDOW` at a time and holds none.
_HELD = 2048
_WINDOW = 512


class SiteDocs(Mapping[str, SearchDoc]):
    """Every page's SearchDoc by path (``digests``: path -> content digest), each made when
    asked for. A page unchanged since the index in ``old`` was written takes its SearchDoc
    from there, read only when asked for (an update asks for a few); the others (``changed``)
    come from ``fetch``: all at once, now, when they are few; else a window of them at a
    time, so that a whole wiki's docs are never held at once."""

    def __init__(
        self, digests: Mapping[str, str], old: Path | None, fetch: Fetch, flavor: str = "gfm"
    ) -> None:
        self._digests = digests
        self._fetch = fetch
        #: the origins of the index in ``old`` (None: none to take a text from)
        self.origins = origins = read_origins(old, _text_version(flavor)) if old else None
        self._reader = _reader(old) if origins else None
        self._ids: dict[str, int] = {}
        if self._reader is not None and origins is not None:
            for path, digest in digests.items():
                row = origins.get(path)
                if isinstance(row, list) and len(row) == 2 and row[0] == digest:
                    self._ids[path] = int(row[1])
        #: the pages whose SearchDoc may differ from the one in ``old``
        self.changed = [path for path in digests if path not in self._ids]
        few = len(self.changed) <= _HELD
        self._docs: dict[str, SearchDoc] = dict(fetch(self.changed)) if few else {}

    def __getitem__(self, path: str) -> SearchDoc:
        doc = self._docs.get(path)
        if doc is None:
            if path not in self._digests:
                raise KeyError(path)
            doc = self._from_index(path) or self._fetch([path])[path]
            self._docs[path] = doc
        return doc

    def in_order(self, paths: list[str]) -> Iterator[tuple[str, SearchDoc]]:
        """(path, SearchDoc) of ``paths`` in turn, the changed ones not held fetched a
        window at a time and let go (a write from scratch of a whole wiki's index)."""
        window: dict[str, SearchDoc] = {}
        for at, path in enumerate(paths):
            if path not in self._digests:
                raise KeyError(path)
            doc = self._docs.get(path) or window.get(path) or self._from_index(path)
            if doc is None:
                later = paths[at + 1 : at + _WINDOW]
                ahead = [p for p in later if p not in self._docs and p not in self._ids]
                window = dict(self._fetch([path, *ahead]))
                doc = window[path]
            yield path, doc

    def __contains__(self, path: object) -> bool:
        return path in self._digests

    def __iter__(self) -> Iterator[str]:
        return iter(self._digests)

    def __len__(self) -> int:
        return len(self._digests)

    def _from_index(self, path: str) -> SearchDoc | None:
        doc_id = self._ids.get(path)
        doc = self._reader.doc(doc_id) if self._reader and doc_id is not None else None
        return doc if doc is not None and doc.card.path == path else None


def search_docs(digests: Mapping[str, str], old: Path | None, fetch: Fetch) -> dict[str, SearchDoc]:
    """Every page's SearchDoc, taken from the index in ``old`` where the page is unchanged,
    else from ``fetch(paths)``."""
    docs = SiteDocs(digests, old, fetch)
    return {path: docs[path] for path in digests}


def build_search(
    digests: Mapping[str, str],
    staging: Path,
    live: Path,
    fetch: Fetch,
    labels: dict[str, str] | None = None,
    links: Mapping[str, int] | None = None,
    terms: Terms | None = None,
    flavor: str = "gfm",
) -> SearchStats:
    """Write the index of the pages (path -> content ``digests``) into ``staging/search``,
    updating the live site's;
    ``labels`` are what the site calls the page types (``type-labels``), ``links`` how many
    pages link to each (the ranking's prior), ``terms`` where the pages' term records come
    from, ``flavor`` the Markdown the pages were read as."""
    old = live / layout.FOLDER
    old_dir = old if (old / layout.TABLE).is_file() else None
    docs = SiteDocs(digests, old_dir, fetch, flavor)
    folder = staging / layout.FOLDER
    stats = write_search_index(docs, folder, old_dir, labels, links, docs.changed, terms)
    # An update keeps the origins of the index it updated, and lists what differs since.
    updated = (old, docs.origins, docs.changed) if stats.incremental and docs.origins else None
    write_origins(folder, _text_version(flavor), digests, stats.ids, stats, updated)
    return stats
