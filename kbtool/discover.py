"""wiki/ + sources/ -> the sorted list of Markdown files to parse.

Symlinks are followed only while they stay inside the repository; a symlink that leads out,
or a loop, becomes a problem for that path and nothing behind it is read.
"""

from __future__ import annotations

import errno
import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path

from kbtool.config import Config
from kbtool.errors import ConfigError
from kbtool.model import PageKind, Problem


@dataclass(frozen=True, slots=True)
class Found:
    path: str  # repository-relative, POSIX
    kind: PageKind


@dataclass(frozen=True, slots=True)
class Unreadable:
    path: str
    problem: Problem


def discover(config: Config) -> tuple[list[Found], list[Unreadable]]:
    root = config.root
    missing = [f for f in config.wiki_folders if not (root / f).is_dir()]
    if missing:  # Checking nothing must not pass as a clean wiki.
        raise ConfigError(
            [f"wiki folder '{folder}' does not exist in {root} (see 'wiki')" for folder in missing]
        )
    found: list[Found] = []
    unreadable: list[Unreadable] = []
    visited: set[Path] = set()
    linked: list[tuple[Path, PageKind]] = []
    folders: list[tuple[str, PageKind]] = [(f, "wiki") for f in config.wiki_folders]
    for folder, kind in [*folders, (config.sources, "source")]:
        top = root / folder
        if top.is_dir() and not _inside(root, top.resolve()):
            message = f"folder leads outside the repository (to {top.resolve()}); not read"
            problem = Problem("KB003", message)
            unreadable.append(Unreadable(folder, problem))
        elif top.is_dir():
            _walk(root, top, kind, config.exclude, found, unreadable, visited, linked)
    # Symlinked folders are walked after every real one, so that a page reached both ways
    # keeps its own path, and only when their target has not been walked already.
    while linked:
        folder_link, kind = linked.pop(0)
        _walk(root, folder_link, kind, config.exclude, found, unreadable, visited, linked)
    found.sort(key=lambda f: f.path)
    unreadable.sort(key=lambda u: u.path)
    return found, unreadable


def skipped(rel: str, exclude: tuple[str, ...]) -> bool:
    """Whether discovery leaves out the entry at ``rel`` (a path from the root, with ``/``),
    and all under it: a hidden name, or an excluded path."""
    name = rel.rsplit("/", 1)[-1]
    return name.startswith(".") or any(fnmatch.fnmatch(rel, pattern) for pattern in exclude)


def folder_kind(config: Config, rel: str) -> PageKind | None:
    """The kind of page the folders of the wiki make of what is at ``rel``, by the folder it
    is in (None: in none of them)."""
    for folder in config.wiki_folders:
        if rel.startswith(folder.rstrip("/") + "/"):
            return "wiki"
    if rel.startswith(config.sources.rstrip("/") + "/"):
        return "source"
    return None


def page_kind(config: Config, rel: str) -> PageKind | None:
    """Discovery's one answer to "is this a page?": the kind of page the file at ``rel`` is
    (or would be, once written), or None. Symlinks on the way are not looked at."""
    kind = folder_kind(config, rel)
    if kind is None or not rel.endswith(".md"):
        return None
    folders = config.wiki_folders if kind == "wiki" else (config.sources,)
    top = next(f.rstrip("/") for f in folders if rel.startswith(f.rstrip("/") + "/"))
    prefix = top
    for part in rel[len(top) + 1 :].split("/"):  # discovery skips a folder and all in it
        prefix = f"{prefix}/{part}"
        if skipped(prefix, config.exclude):
            return None
    return kind


def _inside(root: Path, path: Path) -> bool:
    return path == root or root in path.parents


def _walk(
    root: Path,
    folder: Path,
    kind: PageKind,
    exclude: tuple[str, ...],
    found: list[Found],
    unreadable: list[Unreadable],
    visited: set[Path],
    linked: list[tuple[Path, PageKind]],
) -> None:
    real = folder.resolve()
    if real in visited:
        return
    visited.add(real)
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    # Plain strings on the hot path: a Path per file costs more than the rest of the walk.
    prefix = str(folder).removeprefix(str(root) + os.sep).replace(os.sep, "/") + "/"
    for entry in entries:
        name = entry.name
        if name.startswith("."):  # hidden, as skipped() says, without a call per file
            continue
        rel = prefix + name
        if exclude and skipped(rel, exclude):
            continue
        is_md = name.endswith(".md")
        if not is_utf8(name):  # the store, the site and a terminal take UTF-8 names only
            if is_md or _is_dir(entry):
                message = "its name is not UTF-8: rename it (not read)"
                unreadable.append(Unreadable(shown_name(rel), Problem("KB004", message)))
            continue
        if entry.is_symlink():
            path = Path(entry.path)
            problem = _symlink_problem(root, path)
            if problem:
                if is_md or _points_to_dir(path):
                    unreadable.append(Unreadable(rel, problem))
                continue
            if _points_to_dir(path):
                if _inside(path.resolve(), real):  # It leads back to a folder it is in.
                    message = "symlink loop: the folder link leads back to a folder it is in"
                    unreadable.append(Unreadable(rel, Problem("KB004", message)))
                else:
                    linked.append((path, kind))
                continue
        if _is_dir(entry):
            _walk(root, Path(entry.path), kind, exclude, found, unreadable, visited, linked)
        elif is_md:
            found.append(Found(rel, kind))


def is_utf8(name: str) -> bool:
    """Whether a file name read from the disk was valid UTF-8 (Python keeps the bytes of one
    that is not as lone surrogates, which nothing that writes UTF-8 takes)."""
    if name.isascii():  # most names, told without encoding them
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(path: str) -> str:
    """``path`` with the bytes that are not UTF-8 shown as ``\\xff``: printable and storable."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _points_to_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _symlink_problem(root: Path, path: Path) -> Problem | None:
    try:
        target = path.resolve(strict=True)
    except RuntimeError:  # Python < 3.13 reports loops this way
        return Problem("KB004", "symlink loop: the link never reaches a file")
    except OSError as error:
        if error.errno == errno.ELOOP:
            return Problem("KB004", "symlink loop: the link never reaches a file")
        return Problem("KB004", f"symlink target does not exist: {os.readlink(path)}")
    if not _inside(root, target):
        return Problem("KB003", f"symlink leads outside the repository (to {target}); not read")
    return None
