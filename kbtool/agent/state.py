"""The wiki as the server holds it for its life: one session (the language server's
:class:`~kbtool.lsp.state.WikiState`), checked as the disk is, with a draft laid over it when a
tool asks what a text would change.

Every tool call holds :attr:`AgentWiki.lock`: the SDK runs tools in worker threads, and the
session is one mutable thing. A check with a draft over the files leaves the session's state
as of that draft; it is checked again as the disk is before a tool reads it (:meth:`checked`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kbtool.config import Config
from kbtool.diagnostics import Diagnostic

if TYPE_CHECKING:  # imported when first asked for: the server answers `initialize` sooner
    from kbtool.lsp.state import WikiState
    from kbtool.model import Page
    from kbtool.wiki import Wiki

#: The most bytes one write may hold (a page is text; a larger one is a mistake).
MAX_WRITE_BYTES = 1_000_000


@dataclass(frozen=True)
class Permissions:
    #: write_page, edit_section, move_page (else the server only reads and checks)
    write: bool = False
    #: pages under the sources folder may be written too
    sources: bool = False
    max_bytes: int = MAX_WRITE_BYTES


class AgentWiki:
    def __init__(self, config: Config, permissions: Permissions | None = None) -> None:
        self.config = config
        self.permissions = permissions or Permissions()
        self.lock = threading.RLock()
        self._state: WikiState | None = None
        #: the diagnostics of the wiki as the disk is, as of the last check of it
        self._disk: dict[str, list[Diagnostic]] = {}
        #: the session's check is of something else than the disk as last scanned
        self._stale = True
        #: ``_disk`` is the check of the disk as last scanned (a draft's check since leaves
        #: it so: consecutive drafts need not check the disk between them)
        self._disk_valid = False
        #: absolute paths a watcher saw change since the last scan
        self._changed: set[str] = set()
        self._changed_lock = threading.Lock()
        #: how many times the files changed since the server started (the search index is
        #: brought up to date when it is not of the latest)
        self.generation = 0

    @property
    def state(self) -> WikiState:
        if self._state is None:
            from kbtool.lsp.state import WikiState

            self._state = WikiState.open(self.config)
        return self._state

    def close(self) -> None:
        if self._state is not None:
            self._state.close()

    def saw_change(self, paths: Iterable[str]) -> None:
        """Told by the watcher (another thread): these absolute paths changed on disk."""
        with self._changed_lock:
            self._changed.update(paths)

    def wrote(self, paths: Iterable[str]) -> None:
        """This server changed these repository paths on disk: read them again."""
        self.saw_change(str(self.config.root / p) for p in paths)

    def landed(self, path: str, found: dict[str, list[Diagnostic]]) -> None:
        """This server wrote ``path`` with the text whose check found ``found``: the
        session's check of that draft is the check of the disk now."""
        self.state.session.scan([str(self.config.root / path)])
        self._disk = found
        self._stale = False
        self._disk_valid = True
        self.generation += 1

    def take_changes(self) -> None:
        """Read again the files the watcher saw change, if any."""
        with self._changed_lock:
            changed, self._changed = self._changed, set()
        if not changed:
            return
        session = self.state.session
        before = session.disk.digests() if session.disk is not None else None
        session.scan(changed)
        now = session.disk.digests() if session.disk is not None else None
        if now == before and all(self._page_of(path) for path in changed):
            return  # pages written as they were: this server's own writes, seen again
        self.state._disk_changed = True  # the next check asks the disk about links too
        self._stale = True
        self._disk_valid = False
        self.generation += 1

    def _page_of(self, full: str) -> bool:
        """Whether the absolute path ``full`` is (or would be) a page of the wiki."""
        relative = self.state.relative(full)
        return relative is not None and self.state.kind_of(relative) is not None

    def settle(self) -> None:
        """Leave the store's check as the disk is (a draft's check may be the last made)."""
        if self._state is not None and self._stale:
            self.checked()

    def checked(self) -> WikiState:
        """The session, checked as the disk is now."""
        self.take_changes()
        state = self.state
        if self._stale or not state.pages:
            state.buffers.clear()
            self._disk = state.check()
            state.settle()
            self._stale = False
            self._disk_valid = True
        return state

    def diagnostics(self) -> dict[str, list[Diagnostic]]:
        """path -> the reported diagnostics of the wiki as the disk is."""
        self.take_changes()
        if not self._disk_valid:
            self.checked()
        return self._disk

    def check_draft(self, path: str, data: bytes) -> dict[str, list[Diagnostic]]:
        """Every path's diagnostics with ``data`` as the text of ``path`` (written or not),
        by the same check as the wiki's; nothing is written."""
        return self.check_overlay({path: data})

    def check_overlay(self, texts: dict[str, bytes]) -> dict[str, list[Diagnostic]]:
        """Every path's diagnostics with ``texts`` (path -> bytes) laid over the files, as
        the editor's unsaved text is."""
        self.diagnostics()  # what the texts are compared with
        state = self.state
        state.buffers.update(texts)
        self._stale = True  # the session's check is now the overlay's
        try:
            found = state.check()
            state.settle()
            return found
        finally:
            state.buffers.clear()

    def page(self, path: str) -> Page | None:
        state = self.checked()
        return state.pages_of([path]).get(path)

    @property
    def wiki(self) -> Wiki:
        return self.checked().wiki

    def read(self, path: str) -> bytes:
        """A page's bytes as they are on disk now."""
        return (self.config.root / path).read_bytes()

    def full_path(self, path: str) -> Path:
        return self.config.root / path
