"""Stage 8, publish: build beside ``site/`` and swap the result in, so ``site/`` is always whole.

The new site is written into ``.site.build-XXXX`` next to ``site/``. Files of outputs that did
not change are hard links to the current site's files (no copy, no re-render); every file is
written as a new inode and renamed into place, so nothing is ever written through a link into
the live site. At the end the two folders are exchanged with one ``renameat2(RENAME_EXCHANGE)``
where Linux offers it (else two renames). A build that fails or is interrupted removes its
staging folder and leaves ``site/`` as it was.

The old one is kept as a spare, the next build's staging folder, where only the outputs that
differ are replaced: in memory by ``kbtool serve`` (``spare.py``), in the cache folder by a
one-shot build (``stored_spare.py``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import tempfile
from pathlib import Path

from kbtool import lifecycle
from kbtool.stages.publish.published import Published, forget_published, save_published
from kbtool.stages.publish.staging import Staging, staging_prefix
from kbtool.stages.run import Run

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


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
