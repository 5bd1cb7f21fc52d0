"""Stage 1, scan: every file of the wiki and the sources with its content digest.

A file whose stat is the one recorded with its digest (:mod:`kbtool.stages.file_stats`) is
not read: its digest is taken as recorded. The snapshot holds digests, not bytes: a stage
that needs a file's bytes (a page to parse again) reads them then, checked against the
digest. The snapshot is what every record of the run is keyed by.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import TypeVar

from kbtool.config import Config
from kbtool.discover import Found, Unreadable, discover
from kbtool.errors import KbtoolError
from kbtool.model import Problem
from kbtool.parse.digest import content_digest
from kbtool.stages.file_stats import NONE, Stat, load_file_stats, save_file_stats, stat_of


class ChangedSinceScan(KbtoolError):
    """A file's bytes, read after the scan, are not the ones the scan took its digest of (the
    argument: its path)."""

    def __str__(self) -> str:
        return f"{self.args[0]} kept changing while it was read: nothing was published"


def _as_scanned(root: str, path: str, digest: str | None, unsaved: bytes | None) -> bytes:
    if unsaved is not None:
        return unsaved
    try:
        with open(os.path.join(root, path), "rb") as f:
            data = f.read()
    except OSError:
        raise ChangedSinceScan(path) from None
    if content_digest(data) != digest:
        raise ChangedSinceScan(path)
    return data


@dataclass(frozen=True)
class Snapshot:
    """Every file's content digest; what all records are keyed by."""

    files: list[tuple[Found, str]]
    unreadable: list[Unreadable]
    #: the folder the paths are relative to
    root: str = ""
    #: the editor's unsaved text of a page, by path, in place of its file
    unsaved: dict[str, bytes] = field(default_factory=dict)
    #: the files this scan read and hashed (the others' stat was the recorded one)
    hashed: frozenset[str] = frozenset()

    def data(self, path: str) -> bytes:
        """The bytes of ``path`` that its digest was taken of, read now (a snapshot holds
        none: 100 MB at 20,000 pages); raises :class:`ChangedSinceScan` if they are no
        longer the same."""
        return _as_scanned(self.root, path, self._digests.get(path), self.unsaved.get(path))

    def reader(self, path: str) -> Callable[[], bytes]:
        """What reads :meth:`data` of ``path`` later without holding the snapshot (a
        session keeps one for each page whose text no check has read yet)."""
        return partial(
            _as_scanned, self.root, path, self._digests.get(path), self.unsaved.get(path)
        )

    def digest(self) -> str:
        """One hash of every path, kind and content digest, and every unreadable file."""
        return self._digest

    @cached_property
    def _digest(self) -> str:
        # Joined, not a repr of tuples: a third of the time at 7,000 files. No path holds a
        # NUL, and a content digest is hex of one length: the text is read only one way.
        rows = [f"{f.path}\0{f.kind}\0{digest}" for f, digest in self.files]
        text = "\n".join(rows) + repr([(u.path, u.problem) for u in self.unreadable])
        return hashlib.blake2b(text.encode(errors="surrogatepass"), digest_size=16).hexdigest()

    def digests(self) -> dict[str, str]:
        """path -> content digest of every file read: one dict per snapshot, which every
        stage asks for (not to be changed)."""
        return self._digests

    @classmethod
    def known(
        cls,
        by_path: dict[str, tuple[Found, str]],
        digests: dict[str, str],
        unreadable: list[Unreadable],
        root: str,
        hashed: frozenset[str],
    ) -> Snapshot:
        """The snapshot of ``by_path`` (path -> (file, digest), in the paths' order) with
        its lookups given, the same paths in the same order (a rescan patches the last
        snapshot's: a save makes no pass over every page here)."""
        snapshot = cls(list(by_path.values()), unreadable, root, hashed=hashed)
        snapshot.__dict__["_by_path"] = by_path  # where cached_property keeps them
        snapshot.__dict__["_digests"] = digests
        return snapshot

    def by_path(self) -> dict[str, tuple[Found, str]]:
        """path -> (file, content digest): one dict per snapshot (not to be changed)."""
        return self._by_path

    @cached_property
    def _by_path(self) -> dict[str, tuple[Found, str]]:
        return {item.path: (item, digest) for item, digest in self.files}

    @cached_property
    def _digests(self) -> dict[str, str]:
        return {item.path: digest for item, digest in self.files}


def scan(config: Config, trust: bool = True) -> Snapshot:
    """The files as they are now; ``trust``: take the recorded digest of a file whose stat is
    unchanged (False: read and hash every file)."""
    started = time.monotonic_ns()
    found, unreadable = discover(config)
    root = str(config.root)
    prefix = root + os.sep
    known = load_file_stats(config.cache_path) if trust else NONE
    files: list[tuple[Found, str]] = []
    hashed: set[str] = set()
    stats: dict[str, tuple[Stat, str]] = {}
    for item in found:
        full = prefix + item.path  # plain strings, no join: 7,000 files
        try:
            result = os.stat(full)
        except OSError as error:
            unreadable.append(_unreadable(item, error))
            continue
        stat = stat_of(result)
        digest = known.digest_if_unchanged(item.path, stat, result.st_mtime_ns)
        if digest is None:
            data = _read(full, item, unreadable)
            if data is None:
                continue
            digest = content_digest(data)
            hashed.add(item.path)
        files.append((item, digest))
        stats[item.path] = (stat, digest)
    if hashed or len(stats) != len(known.entries):
        save_file_stats(config.cache_path, stats, time.monotonic_ns() - started)
    return Snapshot(files, sorted(unreadable, key=lambda u: u.path), root, hashed=frozenset(hashed))


T = TypeVar("T")


#: how many times a command starts again on a new scan while files keep changing under it
ATTEMPTS = 3


def scanning_again(
    config: Config, snapshot: Snapshot | None, work: Callable[[Snapshot | None], T]
) -> T:
    """``work(snapshot)``, and again on a new scan if a file changed after the scan took its
    digest and before a stage read it; raises :class:`ChangedSinceScan` (which the front ends
    report) if it still does after :data:`ATTEMPTS` (a save storm: serve's next batch builds
    it)."""
    for _ in range(ATTEMPTS - 1):
        try:
            return work(snapshot)
        except ChangedSinceScan:
            snapshot = scan(config)
    return work(snapshot)


def _read(full: str, item: Found, unreadable: list[Unreadable]) -> bytes | None:
    try:
        with open(full, "rb") as f:
            return f.read()
    except OSError as error:
        unreadable.append(_unreadable(item, error))
        return None


def _unreadable(item: Found, error: OSError) -> Unreadable:
    return Unreadable(item.path, Problem("KB004", f"cannot read: {error.strerror}"))
