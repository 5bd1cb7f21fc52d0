"""One session: what a long-running front end holds between builds or keystrokes.

``kbtool serve`` and ``kbtool lsp`` each hold one :class:`Session`, so each gets every
speed-up the other has. It owns

- the reuse of the stages' values (:class:`~kbtool.reuse.values.Reuse`), the store's known
  record keys among them, kept by every connection it opens (:meth:`Session.open_store`);
- the snapshot: a full scan, the watcher's rescan of what it saw change, and the editor's
  unsaved text laid over the files (:meth:`Session.snapshot`);
- the garbage collector's policy for what it holds (:meth:`Session.settle`);
- discovery's one answer to "is this a page?" (:meth:`Session.kind_of`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TextIO

from kbtool import collector
from kbtool.config import Config
from kbtool.discover import Found, page_kind
from kbtool.model import PageKind
from kbtool.parse.digest import content_digest
from kbtool.reuse.values import Reuse
from kbtool.stages import check_start
from kbtool.stages.rescan import rescan
from kbtool.stages.scan import Snapshot, scan
from kbtool.stages.site import BuildReport, build_site
from kbtool.stages.watched import Watched
from kbtool.store.db import Store, idle_connection, open_store


@dataclass
class Session:
    config: Config
    reuse: Reuse = field(default_factory=Reuse)
    #: the files as last read (None: not read yet)
    disk: Snapshot | None = None
    #: path -> the unsaved text of each open page, as UTF-8 (the editor's overlay)
    buffers: dict[str, bytes] = field(default_factory=dict)
    #: a connection to the store held open and idle, so that a build's own connection
    #: closes without a checkpoint (see ``store.db.idle_connection``)
    _idle: sqlite3.Connection | None = field(default=None, repr=False)

    def kind_of(self, path: str) -> PageKind | None:
        """The kind of page ``path`` is (also for a file not written yet), as discovery has
        it (its folders, hidden names, ``exclude``), or None."""
        return page_kind(self.config, path)

    def open_store(self) -> Store:
        """A connection to the store that keeps the session's known record keys."""
        store = open_store(self.config.cache_path)
        store.keep_keys(self.reuse.keys)
        return store

    def scan(self, changed: Iterable[str] | None = None) -> bool:
        """Read the files again: only the absolute paths in ``changed`` (what a watcher saw
        change) when the last snapshot can be brought up to date from them (True), else all
        (False)."""
        found = None
        if changed is not None and self.disk is not None:
            found = rescan(self.config, self.disk, changed)
        self.disk = scan(self.config) if found is None else found
        return found is not None

    def snapshot(self) -> Snapshot:
        """The files, with every open page's buffer in place of its file (read first if the
        session has not read them yet)."""
        if self.disk is None:
            self.scan()
        disk = self.disk
        assert disk is not None
        if not self.buffers:
            return disk
        files = []
        seen = set()
        for item, digest in disk.files:
            seen.add(item.path)
            if item.path in self.buffers:
                digest = content_digest(self.buffers[item.path])
            files.append((item, digest))
        for path, data in self.buffers.items():  # a page not saved yet
            kind = self.kind_of(path)
            if path not in seen and kind is not None:
                files.append((Found(path, kind), content_digest(data)))
        files.sort(key=lambda f: f[0].path)
        unreadable = [u for u in disk.unreadable if u.path not in self.buffers]
        return Snapshot(files, unreadable, disk.root, dict(self.buffers), disk.hashed)

    def build(
        self,
        *,
        jobs: int | None = None,
        progress: TextIO | None = None,
        watched: Watched | None = None,
    ) -> BuildReport:
        """Build the site from the session's snapshot, reusing what the builds before it
        made, and keep the former site as the next build's staging folder; ``watched``: what
        a watcher saw change since the snapshot before (see :meth:`scan`)."""
        with collector.paused():  # the front end settles once the build's answer is out
            report = build_site(
                self.config,
                jobs=jobs,
                progress=progress,
                reuse=self.reuse,
                snapshot=self.snapshot(),
                watched=watched,
                spare=True,
            )
        if self._idle is None:  # after the first build, which makes the store
            self._idle = idle_connection(self.config.cache_path)
        return report

    def settle(self, collect: bool = True) -> None:
        """After a build or check, once its answer is out: make whole the check state the
        next check patches, and (``collect``: collect the garbage first) hold what the
        session keeps out of the collector's sight (see :mod:`kbtool.collector`)."""
        check_start.settle(self.reuse)
        if collect:
            collector.settle()
        else:
            collector.hold()
