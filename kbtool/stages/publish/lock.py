"""One build at a time per repository, and never a lock kept by a build that is gone.

The lock is ``flock`` on ``.kbtool/build.lock``: the kernel drops it when the process that holds
it ends, however it ends (SIGKILL included), with no stale file to clean up. Two things could
still keep it after its holder died, and both are handled here:

- **Forked children.** A flock belongs to the open file description, and a forked child
  inherits the descriptor: while any child lives, the lock is held. (Render and parse workers
  once kept every later build out this way.) So every fork closes the descriptor in the child
  (``os.register_at_fork``): only the process that took the lock holds it. The alternatives are
  worse: POSIX ``fcntl`` locks are not inherited, but belong to the whole process, so two
  threads of one process would both get the lock, and closing *any* descriptor of the file
  drops it; open-file-description (OFD) locks are inherited exactly like flock.
- **A holder that is dead while the lock is held** (by workers of an older kbtool, or anything
  else that inherited the descriptor). The holder writes its pid and start time into the file;
  a build refused the lock reads them (or, for a file that names nobody, ``/proc/locks``), and
  if that process is gone it takes over: it puts a new, locked file in place of the old one,
  so whoever still holds the old file holds a lock nobody asks for. Taking the lock and taking
  over happen under a second, short-lived lock (``build.lock.guard``), so two builds cannot
  both take over, nor read a pid that the new holder has not written yet.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from kbtool.cache_dir import make_cache_dir
from kbtool.errors import KbtoolError

#: Descriptors of locks this process holds: a forked child closes them at once.
_HELD: set[int] = set()


def _close_held_in_child() -> None:
    for fd in _HELD:
        with contextlib.suppress(OSError):
            os.close(fd)  # closing (never LOCK_UN, which would unlock for the parent too)
    _HELD.clear()


os.register_at_fork(after_in_child=_close_held_in_child)


@contextlib.contextmanager
def build_lock(cache_dir: Path) -> Iterator[None]:
    """Hold the build lock of the repository whose cache folder is ``cache_dir``."""
    make_cache_dir(cache_dir)
    fd = _acquire(cache_dir / "build.lock")
    try:
        yield
    finally:
        _HELD.discard(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _acquire(path: Path) -> int:
    guard = os.open(f"{path}.guard", os.O_RDWR | os.O_CREAT, 0o644)
    _HELD.add(guard)
    try:
        fcntl.flock(guard, fcntl.LOCK_EX)  # held for microseconds, by whoever is acquiring
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        if not _try_lock(fd):
            holder = _holder(fd)
            os.close(fd)
            if holder is None or _alive(*holder):
                who = f" (pid {holder[0]})" if holder else ""
                raise KbtoolError(
                    f"another build of this site is running{who}; try again when it ends"
                )
            fd = _take_over(path)
        _HELD.add(fd)
        _record_self(fd)
        return fd
    finally:
        _HELD.discard(guard)
        os.close(guard)  # which releases the guard


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _take_over(path: Path) -> int:
    """A new lock file, locked, renamed over the one a dead holder's heirs keep locked."""
    fresh = path.with_name(f"{path.name}.{os.getpid()}.new")
    fd = os.open(fresh, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a new file: nobody else can hold it
    os.replace(fresh, path)
    return fd


def _record_self(fd: int) -> None:
    pid = os.getpid()
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{pid} {_start_time(pid)}\n".encode(), 0)


def _holder(fd: int) -> tuple[int, int | None] | None:
    """(pid, start time) of the process that took the lock on ``fd``'s file, if known."""
    fields = os.pread(fd, 64, 0).split()
    if fields and fields[0].isdigit():
        start = int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None
        return int(fields[0]), start
    pid = _pid_in_proc_locks(os.fstat(fd).st_ino)
    return (pid, None) if pid is not None else None


def _pid_in_proc_locks(inode: int) -> int | None:
    """The pid that took a flock on ``inode``, from ``/proc/locks`` (it stays that pid after
    the process has died, while others keep the lock)."""
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            lines = f.readlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if len(fields) > 5 and fields[1] == "FLOCK" and fields[5].endswith(f":{inode}"):
            return int(fields[4]) if fields[4].isdigit() else None
    return None


def _start_time(pid: int) -> int | None:
    """When ``pid`` started (clock ticks since boot), to tell it from a later one with its pid;
    None when it does not exist (or is a zombie), or there is no ``/proc``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()
    return None if fields[0] == b"Z" else int(fields[19])


def _alive(pid: int, start: int | None) -> bool:
    if os.path.isdir("/proc/self"):
        now = _start_time(pid)
        return now is not None and (start is None or now == start)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
