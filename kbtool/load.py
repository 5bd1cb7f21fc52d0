"""Files -> pages: read every file once, reuse cached pages, parse the rest in parallel."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from dataclasses import dataclass
from pathlib import Path

from kbtool import cache
from kbtool.config import Config
from kbtool.discover import Found, Unreadable, discover
from kbtool.lifecycle import worker_pool
from kbtool.model import Page, Problem
from kbtool.parse.digest import content_digest
from kbtool.wiki import Wiki

#: Below this many pages to parse, a process pool costs more than it saves.
_PARALLEL_THRESHOLD = 64

# Work handed to forked workers through memory they inherit, instead of pickling file bytes.
_PENDING: list[tuple[str, bytes, str, str]] = []


def default_jobs(config: Config) -> int:
    return config.jobs or len(os.sched_getaffinity(0))


@dataclass(frozen=True)
class Snapshot:
    """Every file's bytes and content digest, read once; what all caches are keyed by."""

    files: list[tuple[Found, bytes, str]]
    unreadable: list[Unreadable]

    def digest(self) -> str:
        """One hash of every path, kind and content digest, and every unreadable file."""
        text = repr(
            [(f.path, f.kind, digest) for f, _, digest in self.files]
            + [(u.path, u.problem) for u in self.unreadable]
        )
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def scan(config: Config) -> Snapshot:
    found, unreadable = discover(config)
    files = []
    for item in found:
        data = _read(config.root, item, unreadable)
        if data is not None:
            files.append((item, data, content_digest(data)))
    return Snapshot(files, sorted(unreadable, key=lambda u: u.path))


def load_wiki(
    config: Config,
    jobs: int | None = None,
    use_cache: bool = True,
    snapshot: Snapshot | None = None,
) -> Wiki:
    """Pages from the cache where a file's content is unchanged; the rest parsed."""
    snapshot = snapshot or scan(config)
    fingerprint = config.fingerprint()
    cached = cache.load_pages(config.cache_path, fingerprint) if use_cache else {}
    pages: dict[str, Page] = {}
    todo: list[tuple[str, bytes, str, str]] = []
    for item, data, digest in snapshot.files:
        hit = cached.get(item.path)
        if hit is not None and hit.digest == digest and hit.kind == item.kind:
            pages[item.path] = hit
        else:
            todo.append((item.path, data, item.kind, digest))
    for page in _parse_all(todo, jobs or default_jobs(config)):
        pages[page.path] = page
    # Written even under --no-cache: a forced fresh parse still leaves a valid cache behind.
    if todo or len(pages) != len(cached):
        cache.save_pages(config.cache_path, fingerprint, pages)
    ordered = {path: pages[path] for path in sorted(pages)}
    return Wiki(config, ordered, list(snapshot.unreadable))


def _read(root: Path, item: Found, unreadable: list[Unreadable]) -> bytes | None:
    try:
        return (root / item.path).read_bytes()
    except OSError as error:
        unreadable.append(Unreadable(item.path, Problem("KB004", f"cannot read: {error.strerror}")))
        return None


def _parse_chunk(indices: range) -> list[Page]:
    from kbtool.parse.page import parse_page

    return [parse_page(*_PENDING[i]) for i in indices]  # type: ignore[arg-type]


def _parse_all(todo: list[tuple[str, bytes, str, str]], jobs: int) -> list[Page]:
    """Parse in this process, or in forked workers when there is enough to share."""
    global _PENDING
    if not todo:
        return []
    from kbtool.parse.page import parse_page  # markdown-it is loaded only when needed

    if (
        jobs <= 1
        or len(todo) < _PARALLEL_THRESHOLD
        or "fork" not in multiprocessing.get_all_start_methods()
    ):
        return [parse_page(path, data, kind, digest) for path, data, kind, digest in todo]  # type: ignore[arg-type]
    _PENDING = todo
    try:
        size = max(8, len(todo) // (jobs * 8))
        chunks = [range(i, min(i + size, len(todo))) for i in range(0, len(todo), size)]
        with worker_pool(jobs) as pool:
            return [page for chunk in pool.map(_parse_chunk, chunks) for page in chunk]
    finally:
        _PENDING = []
