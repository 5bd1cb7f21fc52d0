"""The staging folder a build fills beside ``site/``, and the files written or linked into it.

Files of outputs that did not change are hard links to the live site's files (no copy, no
re-render); every other file is written as a new inode, so nothing is ever written through a
link into the live site. A staging folder is removed by renaming it away first, so that a
spare (``spare.py``) is always whole or gone.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kbtool.stages.publish.published import Published


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
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")  # two workers, one file
        tmp.write_bytes(raw)
        os.replace(tmp, target)
        return
    with open(fd, "wb") as file:
        file.write(raw)


def write_or_link(site_dir: Path, staging: Path, relative: str, data: str | bytes) -> None:
    """As :func:`write_file`, or a hard link to the live site's file where it holds these very
    bytes (a page rendered again for a note it shows keeps its Markdown, most of its figures):
    here, a new file costs about twenty times a read and a link."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    live = os.path.join(site_dir, relative)
    try:
        found = os.lstat(live)  # a file of the site's own: a link there is not followed
        same_size = stat.S_ISREG(found.st_mode) and found.st_size == len(raw)
        if same_size and Path(live).read_bytes() == raw:
            os.link(live, os.path.join(staging, relative), follow_symlinks=False)
            return
    except OSError:  # not there, another file there already, no hard links: written
        pass
    write_file(staging, relative, raw)


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
