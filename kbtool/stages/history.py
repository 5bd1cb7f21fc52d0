"""Stage 5c, history: the ``git log`` that what's new is made of, run once per state of the
checkout's HEAD rather than at every build.

At 300 commits of a 7,000-page wiki one ``git log --name-status`` takes about 0.2 s, which
``kbtool serve`` would spend on every save. The log depends only on the commits HEAD reaches,
so it is kept (in the process and as a store record) under a fingerprint of HEAD read from
the git folder's files without running git: the text of ``HEAD`` and the status of the ref it
names and of ``packed-refs``. A commit, checkout, reset, merge or fetch rewrites one of those
(git writes a ref as a new file renamed into place). Where the git folder's layout is not one
this understands, git is asked every time, as before.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from kbtool.render.changes import Change, changes_from_log, git_log
from kbtool.render.site import Listing
from kbtool.reuse.values import WHOLE
from kbtool.stages.reused import CHANGES, HISTORY
from kbtool.stages.run import Run
from kbtool.store.records import HISTORY_LOG


def site_changes(
    run: Run, folders: list[str], listings: Mapping[str, Listing], listed: str
) -> list[Change]:
    """The recent changes of the pages under ``folders`` (see :mod:`kbtool.render.changes`),
    made again only when the log or ``listed``, the digest of every listing
    (:mod:`kbtool.stages.listed`), changed: a save seldom changes either, and parsing and
    sorting the log costs more than telling so."""
    log = _log(run, folders)
    return run.reuse.made(CHANGES, WHOLE, (log, listed), lambda *_: changes_from_log(log, listings))


def _log(run: Run, folders: list[str]) -> str | None:
    root = run.config.root
    state = head_state(root)
    if state is None:
        return git_log(root, folders)
    key = HISTORY_LOG.key(str(root), "\x00".join(folders), state)
    held = run.reuse.get(HISTORY, WHOLE, key)
    if held is not None:
        return held
    stored = run.store.get(HISTORY_LOG, "log", key) if run.use_store else None
    log = stored.decode("utf-8", "replace") if stored is not None else git_log(root, folders)
    if log is None:
        return None
    if stored is None and run.use_store:
        with run.store.transaction():
            run.store.put(HISTORY_LOG, [("log", key, log.encode("utf-8"))])
    return run.reuse.put(HISTORY, WHOLE, key, log)


def head_state(root: Path) -> str | None:
    """A fingerprint of the HEAD of the git checkout ``root`` is in, or None (no checkout, or a
    layout not understood)."""
    git = _git_dir(root)
    if git is None:
        return None
    try:
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
        common = git
        if (git / "commondir").is_file():  # a linked worktree: refs live in the main one
            common = (git / (git / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except (OSError, UnicodeDecodeError):
        return None
    parts = [head]
    if head.startswith("ref: "):
        parts.append(_status(common / head.removeprefix("ref: ")))
    parts.append(_status(common / "packed-refs"))
    return "\x00".join(parts)


def _git_dir(root: Path) -> Path | None:
    for folder in (root, *root.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return dot
        if dot.is_file():  # a worktree or submodule: "gitdir: <path>"
            try:
                text = dot.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError):
                return None
            if not text.startswith("gitdir: "):
                return None
            return (folder / text.removeprefix("gitdir: ")).resolve()
    return None


def _status(path: Path) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "missing"
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"
