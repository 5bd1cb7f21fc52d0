"""What a link's target is, and what the disk says of a file a link leads to that is not a
page, without opening it or following it out of the repository.

Its own module, apart from :mod:`kbtool.wiki`: a check that finds nothing changed asks the
disk about these files and needs nothing else of the wiki.
"""

from __future__ import annotations

import os
import stat
from enum import Enum


class Status(Enum):
    OK = "ok"
    EXTERNAL = "external"
    MISSING = "missing"
    OUTSIDE = "outside"
    DIRECTORY = "directory"
    AMBIGUOUS = "ambiguous"


def stat_target(root: str, path: str, real_folders: dict[str, str] | None = None) -> Status:
    """Status of a non-page file, without opening it or following it out of the root.

    ``real_folders`` (folder -> its real path) is shared by the calls of one pass over many
    files: most share a few folders, and resolving every folder of every path again is most
    of the cost."""
    full = os.path.join(root, path)
    folder, name = os.path.split(full)
    found: os.stat_result | None = None  # what the disk says of ``real``, if it was asked
    if real_folders is None or name in ("", ".", ".."):
        real = os.path.realpath(full)
    else:
        if folder not in real_folders:
            real_folders[folder] = os.path.realpath(folder)
        real = os.path.join(real_folders[folder], name)
        # One call answers for a plain file: most targets. A link is followed to its end.
        found = _lstat(real)
        if found is not None and stat.S_ISLNK(found.st_mode):
            real, found = os.path.realpath(real), None
    if real != root and not real.startswith(root + os.sep):
        return Status.OUTSIDE
    if found is None and (found := _stat(real)) is None:
        return Status.MISSING
    return Status.DIRECTORY if stat.S_ISDIR(found.st_mode) else Status.OK


def files_by_name(root: str, left_out: frozenset[str]) -> dict[str, list[str]]:
    """Every file of the repository that is not Markdown, by its lower-case name (a vault
    links its attachments by name): hidden entries and the ``left_out`` folders (paths from
    the root) skipped, symlinks not followed, paths from the root, sorted."""
    found: dict[str, list[str]] = {}
    for folder, folders, names in os.walk(root):
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        prefix = "" if rel == "." else rel + "/"
        folders[:] = sorted(
            f for f in folders if not f.startswith(".") and prefix + f not in left_out
        )
        for name in sorted(names):
            if not name.startswith(".") and not name.endswith(".md"):
                found.setdefault(name.lower(), []).append(prefix + name)
    return found


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None
