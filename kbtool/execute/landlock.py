"""A small ctypes binding of Linux Landlock: the three system calls and the access flags.

Landlock lets an unprivileged process restrict itself, and everything it starts, to an
allow-list of file hierarchies (and, from ABI 4, of TCP ports). The kernel reports the ABI
version it speaks; rights a newer ABI added are left out on an older kernel, so the same code
runs on every kernel from 5.13 (ABI 1) on.

Why not the ``landlock`` package on PyPI: at 1.0.0.dev5 it is a pre-release that binds only the
filesystem rights (no TCP rules, no scopes), and it is as long as this module. What kbtool
needs is three system calls and a handful of constants, so it keeps its own.

    >>> abi_version() >= 0
    True
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import stat
import sys
from functools import cache

# The system call numbers are the same on x86_64 and aarch64 (the generic table).
_SYSCALLS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446), "arm64": (444, 445, 446)}
_CREATE_RULESET_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

# Filesystem rights (ABI 1 unless noted).
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
# Network rights (ABI 4) and scopes (ABI 6).
BIND_TCP = 1 << 0
CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

#: The rights that make sense on a file (not a directory) in a rule.
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ = EXECUTE | READ_FILE | READ_DIR


class LandlockError(OSError):
    pass


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # packed in the kernel's header
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@cache
def _libc() -> ctypes.CDLL | None:
    if sys.platform != "linux" or platform.machine() not in _SYSCALLS:
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    libc.syscall.restype = ctypes.c_long
    return libc


@cache
def _numbers() -> tuple[int, int, int]:
    return _SYSCALLS[platform.machine()]


def _call(index: int, *args: object) -> int:
    libc = _libc()
    if libc is None:
        raise LandlockError(errno.ENOSYS, "Landlock needs Linux on x86_64 or aarch64")
    result = int(libc.syscall(ctypes.c_long(_numbers()[index]), *args))
    if result < 0:
        code = ctypes.get_errno()
        raise LandlockError(code, os.strerror(code))
    return result


@cache
def abi_version() -> int:
    """The Landlock ABI the kernel speaks; 0 where it has none (or has it switched off)."""
    try:
        return _call(0, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except LandlockError:
        return 0


def unavailable_reason() -> str:
    """Why :func:`abi_version` is 0, in words, for the fallback warning."""
    if sys.platform != "linux":
        return f"Landlock is a Linux feature; this is {platform.system()}"
    if platform.machine() not in _SYSCALLS:
        return (
            f"kbtool knows Landlock's system calls on x86_64 and aarch64, not {platform.machine()}"
        )
    try:
        _call(0, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except LandlockError as error:
        if error.errno == errno.ENOSYS:
            return f"kernel {platform.release()} has no Landlock (5.13 or newer needed)"
        if error.errno == errno.EOPNOTSUPP:
            return "Landlock is built into the kernel but switched off at boot (lsm=)"
        if error.errno == errno.EPERM:
            return "a seccomp filter (container runtime) refuses the Landlock system calls"
        return f"Landlock cannot be used here: {error.strerror}"
    return "Landlock is available"


def fs_rights(abi: int) -> int:
    """Every filesystem right the kernel of ``abi`` knows: all of them are handled (denied
    unless a rule allows them)."""
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


class Ruleset:
    """A ruleset being built: add path rules, then :meth:`restrict` the calling thread."""

    def __init__(self, abi: int, handled_fs: int, handled_net: int = 0, scoped: int = 0) -> None:
        self.abi = abi
        self.rights = handled_fs
        attr = _RulesetAttr(handled_fs, handled_net if abi >= 4 else 0, scoped if abi >= 6 else 0)
        size = 24 if abi >= 6 else 16 if abi >= 4 else 8
        self.fd = _call(0, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))

    def allow(self, path: str, rights: int, is_dir: bool | None = None) -> bool:
        """Allow ``rights`` beneath ``path`` (a file gets only file rights); False if ``path``
        cannot be opened (a missing path needs no rule). ``is_dir``, when known, saves a stat."""
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return False
        try:
            if is_dir is None:
                is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)
            attr = _PathBeneathAttr((rights if is_dir else rights & FILE_RIGHTS) & self.rights, fd)
            _call(1, self.fd, _RULE_PATH_BENEATH, ctypes.byref(attr), 0)
        finally:
            os.close(fd)
        return True

    def restrict(self) -> None:
        """Enforce the ruleset on this process (and every process it starts), for good."""
        try:
            libc = _libc()
            assert libc is not None, "a ruleset exists, so the system calls do"
            if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
                code = ctypes.get_errno()
                raise LandlockError(code, f"cannot set no_new_privs: {os.strerror(code)}")
            _call(2, ctypes.c_int(self.fd), ctypes.c_uint32(0))
        finally:
            os.close(self.fd)
