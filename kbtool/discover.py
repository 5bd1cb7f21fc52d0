"""wiki/ + sources/ -> the sorted list of Markdown files to parse.

Symlinks are followed only while they stay inside the repository; a symlink that leads out,
or a loop, becomes a problem for that path and nothing behind it is read. A wiki that is the
whole repository (``wiki = "."``, an Obsidian vault) leaves out what is not a note: hidden
folders (``.obsidian/``, ``.trash/``), the site and cache folders, and the templates folder
that ``.obsidian/templates.json`` names (:func:`left_out`).
"""

from __future__ import annotations

import errno
import fnmatch
import json
import os
import posixpath
from dataclasses import dataclass
from pathlib import Path

from kbtool.config import WHOLE, Config
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
    left = left_out(config)
    folders: list[tuple[str, PageKind]] = [(f, "wiki") for f in config.wiki_folders]
    # The sources first: walking the whole repository as the wiki then skips them.
    for folder, kind in [(config.sources, "source"), *folders]:
        top = root if folder == WHOLE else root / folder
        if top.is_dir() and not _inside(root, top.resolve()):
            message = f"folder leads outside the repository (to {top.resolve()}); not read"
            problem = Problem("KB003", message)
            unreadable.append(Unreadable(folder, problem))
        elif top.is_dir() and folder not in left:
            _walk(root, top, kind, (config.exclude, left), found, unreadable, visited, linked)
    # Symlinked folders are walked after every real one, so that a page reached both ways
    # keeps its own path, and only when their target has not been walked already.
    while linked:
        folder_link, kind = linked.pop(0)
        _walk(root, folder_link, kind, (config.exclude, left), found, unreadable, visited, linked)
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
    if rel.startswith(config.sources.rstrip("/") + "/"):
        return "source"
    for folder in config.wiki_folders:
        if folder == WHOLE or rel.startswith(folder.rstrip("/") + "/"):
            return "wiki"
    return None


def page_kind(config: Config, rel: str) -> PageKind | None:
    """Discovery's one answer to "is this a page?": the kind of page the file at ``rel`` is
    (or would be, once written), or None. Symlinks on the way are not looked at."""
    kind = folder_kind(config, rel)
    if kind is None or not rel.endswith(".md"):
        return None
    folders = config.wiki_folders if kind == "wiki" else (config.sources,)
    top = next(f.rstrip("/") for f in folders if f == WHOLE or rel.startswith(f.rstrip("/") + "/"))
    left = left_out(config)
    prefix = "" if top == WHOLE else top
    for part in rel[len(prefix) + 1 if prefix else 0 :].split("/"):  # a folder skipped: all in it
        prefix = f"{prefix}/{part}" if prefix else part
        if skipped(prefix, config.exclude) or prefix in left:
            return None
    return kind


def left_out(config: Config) -> frozenset[str]:
    """The folders that hold no page wherever they are (paths from the root): the site's,
    the cache's, the templates folder that ``.obsidian/templates.json`` names."""
    folders = {config.site_dir, config.cache_dir, templates_folder(config.root) or ""}
    return frozenset(f for f in map(_inside_path, folders) if f)


def templates_folder(root: Path) -> str | None:
    """The folder Obsidian's core Templates plugin takes templates from (None: none set).
    Read again only when the file changed: a session asks on every save."""
    path = root / ".obsidian" / "templates.json"
    try:
        seen = path.stat()
    except OSError:
        return None
    key = (str(path), seen.st_mtime_ns, seen.st_size)
    if key not in _templates_read:
        _templates_read.clear()
        _templates_read[key] = _read_templates_folder(path)
    return _templates_read[key]


_templates_read: dict[tuple[str, int, int], str | None] = {}


def _read_templates_folder(path: Path) -> str | None:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):  # a broken settings file leaves every folder a page's
        return None
    folder = data.get("folder") if isinstance(data, dict) else None
    return folder if isinstance(folder, str) else None


def _inside_path(folder: str) -> str | None:
    """``folder`` as a normalised path from the root, or None (empty, the root, outside)."""
    path = posixpath.normpath(folder.strip().replace("\\", "/").strip("/") or ".")
    if path in (".", "..") or path.startswith("../") or os.path.isabs(folder.strip()):
        return None
    return path


def _inside(root: Path, path: Path) -> bool:
    return path == root or root in path.parents


def _walk(
    root: Path,
    folder: Path,
    kind: PageKind,
    skip: tuple[tuple[str, ...], frozenset[str]],
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
    prefix = str(folder).removeprefix(str(root)).removeprefix(os.sep).replace(os.sep, "/")
    prefix = prefix + "/" if prefix else ""
    exclude, left = skip
    for entry in entries:
        name = entry.name
        if name.startswith("."):  # hidden, as skipped() says, without a call per file
            continue
        rel = prefix + name
        if (exclude and skipped(rel, exclude)) or rel in left:
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
            _walk(root, Path(entry.path), kind, skip, found, unreadable, visited, linked)
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
