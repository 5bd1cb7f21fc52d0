"""The whole-build short circuit: a build with nothing changed since the last successful one
stops after the scan; so does a ``kbtool check`` with nothing changed since the last check.

A repeat ``kbtool build`` with the same file contents, settings, day and site folder reads
and hashes the files and nothing more: no page is loaded, no link resolved, no site planned.
The record's key covers every file's content digest, the configuration, today's date (for
`updated` in the future), the project's rules and, through the registry, all of kbtool's
code. Links to files that are not pages (images, folders) depend on the disk, not on any
page: each such path is stored with the status it had and checked again before the record is
trusted; so are the files the site copied, and the number of files in the site (a file
deleted from it is noticed). Stored as plain data (a pickle that holds no class), so a
planted record can at worst be ignored.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kbtool.diagnostics import Diagnostic
from kbtool.link_status import Status, stat_target
from kbtool.render.vendored import VENDOR_DIR
from kbtool.rule_loader import project_rules
from kbtool.stages.publish.published import Published, stat_signature
from kbtool.stages.run import Run
from kbtool.store.records import STAT, UNCHANGED

if TYPE_CHECKING:  # a check with nothing changed imports none of the wiki's resolution
    from kbtool.wiki import Wiki

_NAME = "build"
#: the record of the last ``kbtool check``, beside the last build's
_CHECK = "check"


def unchanged_check_key(run: Run) -> str:
    """What a check's diagnostics are made of: every file, the settings and the day."""
    rules = project_rules(run.config).digest
    text = repr((run.config.fingerprint(), run.snapshot.digest(), run.today.isoformat(), rules))
    return UNCHANGED.key(hashlib.blake2b(text.encode(), digest_size=16).hexdigest())


def last_check(run: Run, key: str) -> list[Diagnostic] | None:
    """What the last check found, if nothing it depended on changed since."""
    payload = _load(run, key, _CHECK)
    return None if payload is None else _diagnostics(payload.get("diagnostics"))


def remember_check(run: Run, key: str, wiki: Wiki, diagnostics: list[Diagnostic]) -> None:
    _remember(run, _CHECK, key, wiki, {"diagnostics": [d.row() for d in diagnostics]})


def unchanged_key(run: Run) -> str:
    vendor = sorted((p.name, stat_signature(p)) for p in VENDOR_DIR.glob("*") if p.is_file())
    text = repr(
        (
            run.config.fingerprint(),
            run.snapshot.digest(),
            run.today.isoformat(),
            str(run.config.site_path),
            vendor,  # Mermaid installed (or updated) since: its file is an output
            project_rules(run.config).digest,  # the project's rules: their files, imports
        )
    )
    return UNCHANGED.key(hashlib.blake2b(text.encode(), digest_size=16).hexdigest())


@dataclass(frozen=True)
class LastBuild:
    """What the last successful build reported."""

    diagnostics: list[Diagnostic]
    pages: int
    outputs: int


def last_build(run: Run, key: str) -> LastBuild | None:
    """What the last successful build reported, if nothing it depended on changed since."""
    payload = _load(run, key, _NAME)
    if payload is None or payload.get("site_files") != _count_files(run.config.site_path):
        return None
    copies, pages, outputs = payload.get("copies"), payload.get("pages"), payload.get("outputs")
    diagnostics = _diagnostics(payload.get("diagnostics"))
    if not isinstance(copies, dict) or diagnostics is None:
        return None
    if not (isinstance(pages, int) and isinstance(outputs, int)):
        return None
    if any(stat_signature(run.config.root / path) != sig for path, sig in copies.items()):
        return None  # An image the site copied was edited.
    return LastBuild(diagnostics, pages, outputs)


def forget_build(run: Run) -> None:
    with run.store.transaction():
        run.store.delete(UNCHANGED, [_NAME])


def remember_build(
    run: Run,
    key: str,
    wiki: Wiki,
    diagnostics: list[Diagnostic],
    published: dict[str, Published],
    index_files: int | None = None,
) -> None:
    """What the next build needs to tell, without loading anything, that nothing changed:
    ``published``, what the site holds now. ``index_files``: how many files its search index
    holds, when the build that wrote it knows: the site's files are then its outputs' and the
    index's (a session's save would otherwise walk 14,000 files at 7,000 pages); else they
    are counted on the disk."""
    # Passes over every output (14,000 at 7,000 pages) at each save of a session, made in C.
    records = published.values()
    copies: dict[str, str] = {}
    for copied in filter(None, map(attrgetter("copies"), records)):  # few outputs copy
        copies.update(copied)
    if index_files is None:
        site_files = _count_files(run.config.site_path)
    else:
        files = set(chain.from_iterable(map(attrgetter("files"), records)))
        site_files = len(files) + index_files
    payload = {
        "diagnostics": [d.row() for d in diagnostics],
        "pages": len(wiki.pages),
        "outputs": len(published),
        "copies": copies,
        "site_files": site_files,
    }
    _remember(run, _NAME, key, wiki, payload)


def _remember(run: Run, name: str, key: str, wiki: Wiki, payload: dict[str, Any]) -> None:
    # Every file links lead to as the check last saw it, not just the ones this build looked
    # at: a file that appears later, for a page not checked again, is a change too.
    stats = {**run.store.keys(STAT), **{path: s.value for path, s in wiki.stats.items()}}
    data = {"stats": stats, "payload": payload}
    with run.store.transaction():
        run.store.put(UNCHANGED, [(name, key, UNCHANGED.codec.encode(data))])


def _load(run: Run, key: str, name: str) -> dict[str, Any] | None:
    """The payload of ``name`` stored under ``key``, if the disk still says what it said."""
    value = run.store.get(UNCHANGED, name, key)
    if value is None:
        return None
    data = UNCHANGED.codec.decode(value)
    try:
        root, real_folders = str(run.config.root), dict[str, str]()
        stats = data["stats"].items()
        if any(stat_target(root, path, real_folders) is not Status(s) for path, s in stats):
            return None
        payload = data["payload"]
        return payload if isinstance(payload, dict) else None
    except (ValueError, KeyError, TypeError, AttributeError):  # corrupt or foreign: recompute
        return None


def _diagnostics(rows: Any) -> list[Diagnostic] | None:
    try:
        return [Diagnostic.from_row(row) for row in rows]
    except (TypeError, ValueError):
        return None


def _count_files(folder: Path) -> int:
    """How many files the published site has (what ``os.walk`` tells, without the lists of
    names it makes: a session counts 14,000 files at every save)."""
    count, folders = 0, [str(folder)]
    while folders:
        try:
            with os.scandir(folders.pop()) as entries:
                for entry in entries:
                    if not entry.is_dir():
                        count += 1
                    elif not entry.is_symlink():  # as os.walk: a linked folder is not entered
                        folders.append(entry.path)
        except OSError:
            continue
    return count
