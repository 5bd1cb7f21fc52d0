"""The wiki as the editor sees it: the files on disk, with each open page's unsaved text laid
over its file, checked by the build's incremental check.

The overlay is only a snapshot whose entry for an open page holds the buffer's bytes and
their digest, so the store decides what else is checked again, exactly as after a save.
Records stored for a buffer are keyed by its digest, and so never mistaken for the file's.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import Path

from kbtool.config import Config
from kbtool.diagnostics import Diagnostic, enabled_codes, filter_diagnostics
from kbtool.discover import Found
from kbtool.model import Page, PageKind
from kbtool.parse.digest import content_digest
from kbtool.stages.check import check_wiki
from kbtool.stages.load import load_pages
from kbtool.stages.run import Kept, new_run
from kbtool.stages.scan import Snapshot, scan
from kbtool.store.db import Store, open_store
from kbtool.wiki import Wiki


@dataclass
class WikiState:
    config: Config
    store: Store
    #: the files as the last scan found them
    disk: Snapshot
    #: path -> the unsaved text of each open page, as UTF-8
    buffers: dict[str, bytes] = field(default_factory=dict)
    kept: Kept = field(default_factory=Kept)
    #: every page, as of the last check (open pages as their buffers read)
    pages: dict[str, Page] = field(default_factory=dict)
    #: path -> its diagnostics (enabled codes, configured severities), as of the last check
    diagnostics: dict[str, list[Diagnostic]] = field(default_factory=dict)
    _wiki: Wiki | None = None
    _disk_changed: bool = True
    #: the scan the index of its files' bytes by path was made from, and that index
    _files: tuple[Snapshot, dict[str, bytes]] | None = None

    @classmethod
    def open(cls, config: Config) -> WikiState:
        return cls(config, open_store(config.cache_path), scan(config))

    def close(self) -> None:
        self.store.close()

    def kind_of(self, path: str) -> PageKind | None:
        """The kind of page ``path`` is (also for a file not written yet), or None."""
        if not path.endswith(".md"):
            return None
        if any(path.startswith(f.rstrip("/") + "/") for f in self.config.wiki_folders):
            return "wiki"
        if path.startswith(self.config.sources.rstrip("/") + "/"):
            return "source"
        return None

    def relative(self, full: str | Path) -> str | None:
        """A file's repository-relative POSIX path, or None outside the repository."""
        try:
            return Path(full).resolve().relative_to(self.config.root).as_posix()
        except (ValueError, OSError):
            return None

    def snapshot(self) -> Snapshot:
        """The files, with every open page's buffer in place of its file."""
        files = []
        seen = set()
        for item, data, digest in self.disk.files:
            seen.add(item.path)
            if item.path in self.buffers:
                data = self.buffers[item.path]
                digest = content_digest(data)
            files.append((item, data, digest))
        for path, data in self.buffers.items():  # a page not saved yet
            kind = self.kind_of(path)
            if path not in seen and kind is not None:
                files.append((Found(path, kind), data, content_digest(data)))
        files.sort(key=lambda f: f[0].path)
        unreadable = [u for u in self.disk.unreadable if u.path not in self.buffers]
        return Snapshot(files, unreadable)

    def rescan(self) -> None:
        """Read the files again (after a save, a rename, a change on disk)."""
        self.disk = scan(self.config)
        self._disk_changed = True

    def check(self) -> dict[str, list[Diagnostic]]:
        """Check the wiki as the editor sees it; every path's diagnostics."""
        run = new_run(self.config, self.store, snapshot=self.snapshot(), kept=self.kept)
        pages = dict(load_pages(run).pages.items())  # the editor asks of any page, any time
        # Between two keystrokes only a buffer changed: the disk's files are as last read.
        result = check_wiki(run, pages=pages, stats=self._disk_changed)
        self._disk_changed = False
        found: dict[str, list[Diagnostic]] = {}
        for d in self._reported(result.diagnostics):
            found.setdefault(d.path, []).append(d)
        if self._wiki is not None and self._wiki.pages.keys() == pages.keys():
            self._wiki = self._wiki.with_pages(pages)  # what was resolved still holds
        else:
            self._wiki = Wiki(self.config, pages, list(run.snapshot.unreadable))
        self.pages, self.diagnostics = pages, found
        return found

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
        if self._wiki is None:
            self.check()
        assert self._wiki is not None
        return self._wiki

    def read(self, path: str) -> bytes:
        """A page's bytes as the editor sees them."""
        if path in self.buffers:
            return self.buffers[path]
        if self._files is None or self._files[0] is not self.disk:
            self._files = (self.disk, {item.path: data for item, data, _ in self.disk.files})
        found = self._files[1].get(path)
        return found if found is not None else (self.config.root / path).read_bytes()

    def text(self, path: str) -> str:
        data = self.read(path)
        return data.decode("utf-8-sig", "replace")

    def relative_link(self, from_page: str, to_path: str) -> str:
        """The relative path a link from ``from_page`` to ``to_path`` is written with."""
        return posixpath.relpath(to_path, posixpath.dirname(from_page) or ".")
