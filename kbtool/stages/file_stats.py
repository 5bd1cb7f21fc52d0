"""The stat of each file when the scan last took its digest, so that the next scan hashes
only the files whose stat changed: git's index rule.

A file is trusted when its size, mtime, inode and ctime are the ones recorded with its digest,
unless the record is *racy*: its mtime was so close to the time it was read that a later
write within the same timestamp could have left the stat as it was (git's racy-git rule). The
time of reading is measured on the file system's own clock (the record's mtime, less how long
the scan took), so a clock that differs from the file server's does not matter.

Kept in ``.kbtool/file-stats`` beside the store: a header line, then NUL-separated fields. A
damaged or foreign file is ignored (every file is hashed, as without one).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from kbtool.atomic import write_atomic
from kbtool.cache_dir import make_cache_dir

FILENAME = "file-stats"
_MAGIC = b"kbtool file stats 2"
#: the coarsest file timestamps in use (FAT's two seconds): a file modified this close to
#: its reading is hashed again
RACY_NS = 2_000_000_000

#: size, mtime_ns, inode and ctime_ns, what a write changes, as one string: the record of
#: 7,000 files is then compared as read, without making 28,000 integers first
Stat = str


def stat_of(result: os.stat_result) -> Stat:
    return f"{result.st_size} {result.st_mtime_ns} {result.st_ino} {result.st_ctime_ns}"


@dataclass(frozen=True)
class FileStats:
    """Each file's stat and digest as the last scan took them."""

    entries: dict[str, tuple[Stat, str]]
    #: an entry whose mtime is this or later is racy (never trusted)
    racy_from: int = 0

    def digest_if_unchanged(self, path: str, stat: Stat, mtime_ns: int) -> str | None:
        """The recorded digest of ``path`` if its stat is the recorded one and its
        modification time, ``mtime_ns``, is not racy."""
        entry = self.entries.get(path)
        if entry is None or entry[0] != stat or mtime_ns >= self.racy_from:
            return None
        return entry[1]


NONE = FileStats({})


def load_file_stats(cache_dir: Path) -> FileStats:
    """The stats the last scan recorded (none if there is no usable record)."""
    path = cache_dir / FILENAME
    try:
        with open(path, "rb") as f:
            written = os.fstat(f.fileno()).st_mtime_ns
            data = f.read()
    except OSError:
        return NONE
    header, _, body = data.partition(b"\n")
    parts = header.split(b" ")
    if b" ".join(parts[:-1]) != _MAGIC:
        return NONE
    try:
        took = int(parts[-1])
        fields = body.decode(errors="surrogatepass").split("\0")[
            :-1
        ]  # path, stat, digest: each ends in NUL
        if len(fields) % 3:
            return NONE
        entries = dict(zip(fields[0::3], zip(fields[1::3], fields[2::3], strict=True), strict=True))
    except (ValueError, UnicodeDecodeError):  # damaged: hash everything
        return NONE
    return FileStats(entries, written - took - RACY_NS)


def save_file_stats(cache_dir: Path, entries: dict[str, tuple[Stat, str]], took_ns: int) -> None:
    """Record ``entries``; ``took_ns``: how long ago the first of them was read. A folder that
    cannot be written is left alone (the next scan hashes everything)."""
    rows = "".join(f"{path}\0{stat}\0{digest}\0" for path, (stat, digest) in entries.items())
    data = b"%s %d\n%s" % (_MAGIC, took_ns, rows.encode(errors="surrogatepass"))
    with contextlib.suppress(OSError):
        make_cache_dir(cache_dir)
        write_atomic(cache_dir / FILENAME, data)
