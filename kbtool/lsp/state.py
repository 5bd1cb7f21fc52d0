"""The wiki as the editor sees it: the files on disk, with each open page's unsaved text laid
over its file, checked by the build's incremental check.

The overlay is only a snapshot whose entry for an open page holds the buffer's bytes and
their digest, so the store decides what else is checked again, exactly as after a save.
Records stored for a buffer are keyed by its digest, and so never mistaken for the file's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kbtool.config import Config
from kbtool.diagnostics import Diagnostic, enabled_codes, filter_diagnostics
from kbtool.discover import Unreadable, left_out
from kbtool.link_status import files_by_name
from kbtool.model import Page, PageKind
from kbtool.render.related import pages_graph, related_pages
from kbtool.render.similar import Graph
from kbtool.render.urls import relative_path
from kbtool.reuse.lazy import Lazy
from kbtool.session import Session
from kbtool.stages.check import CheckRun, check_wiki
from kbtool.stages.facts import Facts
from kbtool.stages.load import load_pages
from kbtool.stages.run import Run, new_run
from kbtool.stages.scan import ChangedSinceScan, Snapshot
from kbtool.store.db import Store
from kbtool.wiki import Wiki


@dataclass
class WikiState:
    #: the files, the editor's buffers over them, and what the checks reuse between keystrokes
    session: Session
    store: Store
    #: every page, as of the last check (open pages as their buffers read); each read from the
    #: store when first asked for: the first diagnostics need few of them
    pages: Mapping[str, Page] = field(default_factory=dict)
    #: what every page shows other pages (title, kind, tags, aliases), as of the last check:
    #: what lists of pages (completion, symbols) read, rather than reading every page
    facts: Mapping[str, Facts] = field(default_factory=dict)
    #: path -> its diagnostics (enabled codes, configured severities), as of the last check
    diagnostics: dict[str, list[Diagnostic]] = field(default_factory=dict)
    _wiki: Wiki | None = None
    _unreadable: list[Unreadable] = field(default_factory=list)
    _disk_changed: bool = True
    #: the graph of pages and tags `related` completion ranks by, and what it was made of
    _related: tuple[object, Graph] | None = None
    #: a vault's files that are not notes, by name, and the scan they were read after
    _files: tuple[object, dict[str, list[str]]] | None = None

    @classmethod
    def open(cls, config: Config) -> WikiState:
        session = Session(config)
        session.scan()
        return cls(session, session.open_store())

    def close(self) -> None:
        self.store.close()

    @property
    def config(self) -> Config:
        return self.session.config

    @property
    def buffers(self) -> dict[str, bytes]:
        """path -> the unsaved text of each open page, as UTF-8"""
        return self.session.buffers

    @property
    def disk(self) -> Snapshot:
        """The files as the last scan found them."""
        assert self.session.disk is not None  # scanned when the state was opened
        return self.session.disk

    def kind_of(self, path: str) -> PageKind | None:
        """The kind of page ``path`` is (also for a file not written yet), or None: as
        ``kbtool check`` has it."""
        return self.session.kind_of(path)

    def relative(self, full: str | Path) -> str | None:
        """A file's repository-relative POSIX path, or None outside the repository."""
        try:
            return Path(full).resolve().relative_to(self.config.root).as_posix()
        except (ValueError, OSError):
            return None

    def snapshot(self) -> Snapshot:
        """The files, with every open page's buffer in place of its file."""
        return self.session.snapshot()

    def rescan(self) -> None:
        """Read the files again (after a save, a rename, a change on disk)."""
        self.session.scan()
        self._disk_changed = True

    def check(self) -> dict[str, list[Diagnostic]]:
        """Check the wiki as the editor sees it; every path's diagnostics."""
        try:
            run, pages, result = self._check()
        except ChangedSinceScan:  # a file changed before the editor told of it: read again
            self.rescan()
            run, pages, result = self._check()
        self._disk_changed = False
        found: dict[str, list[Diagnostic]] = {}
        for d in self._reported(result.diagnostics):
            found.setdefault(d.path, []).append(d)
        if self._wiki is not None and self._wiki.pages.keys() == pages.keys():
            self._wiki = self._wiki.with_pages(pages)  # what was resolved still holds
        else:
            self._wiki = None  # made when first asked for (see `wiki`)
        self._unreadable = list(run.snapshot.unreadable)
        self.pages, self.facts, self.diagnostics = pages, result.facts, found
        return found

    def settle(self) -> None:
        """Once the diagnostics are sent: what the next check patches made whole, and what
        the session holds out of the collector's sight (see :meth:`Session.settle`)."""
        self.session.settle()

    def _check(self) -> tuple[Run, Mapping[str, Page], CheckRun]:
        run = new_run(self.config, self.store, snapshot=self.snapshot(), reuse=self.session.reuse)
        pages = load_pages(run).pages  # read as asked: the session keeps those read
        # Between two keystrokes only a buffer changed: the disk's files are as last read.
        return run, pages, check_wiki(run, pages=pages, stats=self._disk_changed)

    def related(self, path: str, limit: int = 10) -> list[str]:
        """The pages most like ``path`` that it does not link (``kbtool related``), from the
        link table and the pages' tags as of the last check; the graph is made again only
        when either changed."""
        key = (self.store.links_version(), tuple((p, f.tags) for p, f in self.facts.items()))
        if self._related is None or self._related[0] != key:
            tags = {p: f.tags for p, f in self.facts.items()}
            self._related = (key, pages_graph(tags, self.store.backlinks()))
        kinds = {p: f.kind for p, f in self.facts.items()}
        return [p for p, _ in related_pages(kinds, self._related[1], path, limit)]

    def vault_files(self) -> dict[str, list[str]]:
        """A vault's files that are not notes (attachments), by lower-case name: read again
        after each scan of the files."""
        disk = self.session.disk
        if self._files is None or self._files[0] is not disk:
            self._files = (disk, files_by_name(str(self.config.root), left_out(self.config)))
        return self._files[1]

    def pages_of(self, paths: Iterable[str]) -> dict[str, Page]:
        """The pages among ``paths``, read from the store in one batch where they are not
        at hand yet."""
        if isinstance(self.pages, Lazy):
            return self.pages.load(paths)
        return {path: self.pages[path] for path in paths if path in self.pages}

    def _reported(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """What ``kbtool check`` reports: the enabled codes at their configured severities.
        Decided once per code, since a large wiki has thousands of diagnostics of a few."""
        codes = {d.code for d in diagnostics}
        enabled = enabled_codes(self.config, (), ())
        levels = {code: self.config.level(code) for code in codes if enabled(code)}
        reported = [d for d in diagnostics if d.code in levels]
        if any(d.severity != levels[d.code] for d in reported):
            reported = filter_diagnostics(reported, self.config)
        return sorted(reported)

    @property
    def wiki(self) -> Wiki:
        """Every page, resolved as of the last check."""
        if not self.pages:
            self.check()
        if self._wiki is None:
            self._wiki = Wiki(self.config, self.pages, self._unreadable)
        return self._wiki

    def read(self, path: str) -> bytes:
        """A page's bytes as the editor sees them."""
        if path in self.buffers:
            return self.buffers[path]
        if path in self.disk.digests():
            with contextlib.suppress(ChangedSinceScan):
                return self.disk.data(path)
        return (self.config.root / path).read_bytes()  # changed since: as it is now

    def text(self, path: str) -> str:
        data = self.read(path)
        return data.decode("utf-8-sig", "replace")

    def shown_text(self, path: str) -> str:
        """A page's text to show from (a hover, a completion's detail): "" when the file
        went since the last check."""
        try:
            return self.text(path)
        except OSError:
            return ""

    def relative_link(self, from_page: str, to_path: str) -> str:
        """The relative path a link from ``from_page`` to ``to_path`` is written with."""
        return relative_path(from_page, to_path)
