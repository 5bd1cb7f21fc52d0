"""Process housekeeping on Linux: subreapers, finding and killing leftovers.

A page must leave no process behind. Each page process is the leader of its own process group
and a *child subreaper*: anything its cells start and orphan (a daemon that called setsid) is
re-parented to it rather than to init, so before it exits it finds, kills and names what is
still running. If it dies first (timed out, crashed), its orphans move up to the warm worker,
a subreaper too, which kills them. Parent-death signals are in :mod:`kbtool.lifecycle`.
Everything here is best effort and degrades to a no-op where the kernel or platform does not
offer it.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import signal
from functools import cache

_PR_SET_CHILD_SUBREAPER = 36
_CLONE_NEWNET = 0x40000000


@cache
def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    except OSError:
        return None


def _prctl(option: int, value: int) -> bool:
    libc = _libc()
    return libc is not None and hasattr(libc, "prctl") and libc.prctl(option, value, 0, 0, 0) == 0


def become_subreaper() -> bool:
    """Orphaned descendants are re-parented to this process instead of init."""
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def leave_network() -> int | None:
    """Move into a fresh, empty network namespace (loopback only, down).

    Returns a descriptor of the namespace left behind, for :func:`enter_network`; None where
    this is not possible (it needs root, or CAP_SYS_ADMIN).
    """
    libc = _libc()
    if libc is None or not hasattr(libc, "unshare") or os.geteuid() != 0:
        return None
    try:
        original = os.open("/proc/self/ns/net", os.O_RDONLY)
    except OSError:
        return None
    if libc.unshare(_CLONE_NEWNET) != 0:
        os.close(original)
        return None
    return original


def enter_network(namespace: int) -> bool:
    """Join the network namespace open on descriptor ``namespace``."""
    libc = _libc()
    return libc is not None and hasattr(libc, "setns") and libc.setns(namespace, _CLONE_NEWNET) == 0


def flush_c_stdio() -> None:
    """Flush C-level ``stdout`` buffers, so a C extension's printf lands in its own cell."""
    libc = _libc()
    if libc is not None:
        libc.fflush(None)


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> bool:
    """Signal a process group; True if any process was in it."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member changed its credentials (setuid): it still exists
        return True
    return True


def has_children() -> bool:
    """Whether this process has children still running; zombies are reaped on the way."""
    while True:
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG)
        except ChildProcessError:
            return False
        if info is None:  # children exist and none has exited
            return True


def _children(parent: int) -> list[tuple[int, bool]]:
    """(pid, is a zombie) of each child of ``parent``, found by scanning ``/proc``.

    Slow-ish (a read per process), so called only when a page may have left something behind.
    """
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == parent:
            found.append((int(name), fields[0] == b"Z"))
    return found


def process_name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
            return f.read().strip() or "?"
    except OSError:
        return "?"


def kill_orphans(keep: set[int], rounds: int = 50) -> list[str]:
    """Kill and reap this subreaper's children not in ``keep``, and theirs, until none is left.

    Returns the names of the processes that were still running in the first round: what a page
    left behind. Each round's victims hand their own children up to us for the next round.
    """
    me, names = os.getpid(), []
    for round_number in range(rounds):
        found = [(pid, zombie) for pid, zombie in _children(me) if pid not in keep]
        if not found:
            break
        orphans = [pid for pid, _ in found]
        if round_number == 0:
            names = [process_name(pid) for pid, zombie in found if not zombie]
        for pid in orphans:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in orphans:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    return names


def pidfd(pid: int) -> int | None:
    """A descriptor that polls readable when ``pid`` exits (Linux >= 5.3), else None."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError) as error:
        if isinstance(error, OSError) and error.errno not in (errno.ENOSYS, errno.EPERM):
            raise
        return None
