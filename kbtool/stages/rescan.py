"""The scan again after a file watcher reported what changed: the previous snapshot with the
changed, added and removed pages read again, every other file taken as it was.

It gives the snapshot a full scan would give, or None when it cannot tell without one: a
change of ``pyproject.toml`` or ``kbtool.toml``, a folder or symlink added, moved or removed,
a path a full scan found unreadable, or anything else it does not expect. Paths outside the
wiki's folders and files that are not pages (an image) change nothing in a snapshot.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

from kbtool.config import Config
from kbtool.discover import Found, folder_kind, is_utf8, page_kind
from kbtool.parse.digest import content_digest
from kbtool.stages.scan import Snapshot


class _FullScan(Exception):
    """A change this module cannot account for without walking the folders."""


def rescan(config: Config, previous: Snapshot, changed: Iterable[str]) -> Snapshot | None:
    """``previous`` updated for the absolute paths in ``changed`` (added, modified or
    deleted: the kind of change does not matter, the disk is looked at now)."""
    files = dict(previous.by_path())  # copied in C, not a pass over every page
    read: set[str] = set()
    unreadable = {u.path for u in previous.unreadable}
    root = os.path.abspath(config.root)
    touched = []
    try:
        for path in sorted(set(changed)):
            rel = _relative(root, path)
            if rel is None:
                continue  # not in the repository (the store, site/ are filtered before)
            if rel in unreadable or any(u.startswith(rel + "/") for u in unreadable):
                raise _FullScan
            _update(config, root, rel, files, read)
            touched.append(rel)
    except _FullScan:
        return None
    if files.keys() <= previous.by_path().keys():
        digests = dict(previous.digests())
        for rel in touched:
            if rel in files:
                digests[rel] = files[rel][1]
            else:
                digests.pop(rel, None)
    else:  # a page added: in order again
        files = dict(sorted(files.items()))
        digests = {path: digest for path, (_, digest) in files.items()}
    return Snapshot.known(files, digests, previous.unreadable, previous.root, frozenset(read))


def _relative(root: str, path: str) -> str | None:
    path = os.path.abspath(path)
    if not path.startswith(root + os.sep):
        return None
    return path[len(root) + 1 :].replace(os.sep, "/")


def _update(
    config: Config,
    root: str,
    rel: str,
    files: dict[str, tuple[Found, str]],
    read: set[str],
) -> None:
    # the settings may change which files are pages; a name not UTF-8: discovery says so
    if rel in ("pyproject.toml", "kbtool.toml") or not is_utf8(rel):
        raise _FullScan
    kind = folder_kind(config, rel)
    if kind is None:
        return  # outside the wiki's folders
    full = os.path.join(root, rel)
    try:
        mode = os.lstat(full).st_mode
    except FileNotFoundError:
        mode = None
    if mode is None:  # removed: a page, a file that is not one, or a whole folder
        if rel in files:
            del files[rel]
            read.discard(rel)
        elif not _has_extension(rel) or _holds_pages(files, rel):
            raise _FullScan
        return
    real = os.path.join(os.path.realpath(root), rel)
    if stat.S_ISDIR(mode) or stat.S_ISLNK(mode) or os.path.realpath(full) != real:
        raise _FullScan  # a folder or symlink moved in, or a path through a linked folder
    if not stat.S_ISREG(mode) or page_kind(config, rel) is None:
        if rel in files:
            raise _FullScan  # a page that became something else
        return
    try:
        with open(full, "rb") as f:
            data = f.read()
    except OSError as error:
        raise _FullScan from error  # unreadable now: the full scan says so
    files[rel] = (Found(rel, kind), content_digest(data))
    read.add(rel)


def _has_extension(rel: str) -> bool:
    return "." in rel.rsplit("/", 1)[-1].lstrip(".")


def _holds_pages(files: dict[str, tuple[Found, str]], rel: str) -> bool:
    prefix = rel + "/"
    return any(path.startswith(prefix) for path in files)


__all__ = ["rescan"]
