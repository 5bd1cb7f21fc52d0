"""Stage 8, publish: build beside ``site/`` and swap the result in, so ``site/`` is always whole.

The new site is written into ``.site.build-XXXX`` next to ``site/``. Files of outputs that did
not change are hard links to the current site's files (no copy, no re-render); every file is
written as a new inode and renamed into place, so nothing is ever written through a link into
the live site. At the end the two folders are exchanged with one ``renameat2(RENAME_EXCHANGE)``
where Linux offers it (else two renames), and the old one is removed. A build that fails or is
interrupted removes its staging folder and leaves ``site/`` as it was.

``kbtool serve`` keeps the old one instead, as a spare (``build/spare.py``): the next build's
staging folder, where only the outputs that differ are replaced. A staging folder is removed by
renaming it away first, so that a spare is always whole or gone.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kbtool import lifecycle
from kbtool.build.published import Published, forget_published, save_published
from kbtool.build.run import Run

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def staging_prefix(site_dir: Path) -> str:
    return f".{site_dir.name}.build-"


def make_staging(site_dir: Path) -> Path:
    site_dir.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=staging_prefix(site_dir), dir=site_dir.parent))


@dataclass
class Staging:
    """The folder a build fills: new, or a former site kept to be brought up to date."""

    folder: Path
    #: the outputs the folder holds already, by name (none for a new folder)
    held: dict[str, Published] = field(default_factory=dict)
    #: set once swapped in: the folder is no longer this build's to remove
    swapped: bool = False


@contextlib.contextmanager
def staging_folder(site_dir: Path, reuse: Staging | None = None) -> Iterator[Staging]:
    """``reuse``, else a new staging folder beside ``site_dir``; removed at the end unless
    it was swapped in."""
    staging = reuse or Staging(make_staging(site_dir))
    try:
        yield staging
    finally:
        if not staging.swapped:
            remove_folder(site_dir, staging.folder)


def remove_folder(site_dir: Path, folder: Path) -> None:
    """Remove a staging folder of ``site_dir``, renamed away first: a folder kept as a spare
    is then whole or gone, never half removed."""
    if not folder.is_dir():
        return
    trash = make_staging(site_dir)
    try:
        os.rename(folder, trash / "old")
    except OSError:
        trash.rmdir()
        shutil.rmtree(folder, ignore_errors=True)
        return
    shutil.rmtree(trash, ignore_errors=True)


def remove_stale_staging(site_dir: Path, keep: Path | None = None) -> None:
    """Staging folders left by a build that was killed (the lock says none is running), but
    ``keep``, a former site this process keeps as a spare."""
    prefix = staging_prefix(site_dir)
    for entry in site_dir.parent.glob(prefix + "*"):
        if entry != keep and entry.is_dir() and not entry.is_symlink():
            remove_folder(site_dir, entry)


def write_file(root: Path, relative: str, data: str | bytes) -> None:
    """Write as a new file: created (a fresh staging folder has none), else renamed into
    place; never through an existing (linked) inode."""
    target = root / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:  # O_EXCL: fails on any existing entry, a link to the live site's file included
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_bytes(raw)
        os.replace(tmp, target)
        return
    with open(fd, "wb") as file:
        file.write(raw)


def reuse_file(site_dir: Path, staging: Path, relative: str) -> bool:
    """Hard-link ``relative`` from the live site into staging (copied where there are no
    hard links); False when it cannot be reused."""
    try:
        return link_file(str(site_dir), str(staging), relative)
    except OSError:  # no hard links here (another filesystem): copy instead
        try:
            shutil.copy2(site_dir / relative, staging / relative, follow_symlinks=False)
            return True
        except OSError:
            return False


def link_file(site: str, staging: str, relative: str) -> bool:
    """Hard-link ``relative`` from ``site`` into ``staging``; False when the site has no such
    file, OSError when there are no hard links here. The link is tried first: a build after an
    edit links thousands of files, most into a folder already made."""
    source, target = os.path.join(site, relative), os.path.join(staging, relative)
    for attempt in range(2):
        try:
            os.link(source, target, follow_symlinks=False)
            return True
        except FileExistsError:
            return True  # a file two outputs share (a figure), already there
        except FileNotFoundError:  # no such file in the site, or no such folder in staging
            if attempt or not os.path.lexists(source):
                return False
            os.makedirs(os.path.dirname(target), exist_ok=True)
    return False


def _exchange(a: Path, b: Path) -> bool:
    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return False
    try:
        libc = ctypes.CDLL(libc_name, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return bool(result == 0)


def swap_in(staging: Path, site_dir: Path, keep_old: bool = False) -> Path | None:
    """Make ``staging`` the site; the folder now holding the former site if ``keep_old``
    (else it is removed). Afterwards ``staging`` holds the former site or nothing."""
    # Ctrl-C here waits for the swap to finish, so that "nothing was published" is never a lie.
    with lifecycle.signals_deferred():
        if not site_dir.exists():
            os.rename(staging, site_dir)
            lifecycle.note_published()
            return None
        if _exchange(staging, site_dir):
            lifecycle.note_published()
            old = staging  # now holds the previous site
        else:
            old = Path(tempfile.mkdtemp(prefix=staging_prefix(site_dir), dir=site_dir.parent))
            os.rmdir(old)
            os.rename(site_dir, old)
            os.rename(staging, site_dir)
            lifecycle.note_published()
    if keep_old:
        return old
    shutil.rmtree(old, ignore_errors=True)  # if interrupted, the next build removes the rest
    return None


def publish(
    run: Run,
    staging: Staging,
    outputs: dict[str, Published],
    previous: dict[str, Published],
    keep_old: bool = False,
) -> Path | None:
    """Swap ``staging`` in as the site, and record what it holds; the folder holding the
    former site if ``keep_old``. The old record is dropped first, so a crash between the two
    costs a full rebuild, never a stale page."""
    site_dir = run.config.site_path
    forget_published(run.store)
    old = swap_in(staging.folder, site_dir, keep_old)
    staging.swapped = True
    save_published(run.store, site_dir, outputs, previous)
    run.clock.lap("swap")
    return old
