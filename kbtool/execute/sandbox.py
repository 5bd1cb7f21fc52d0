"""Containing a page process before its first cell: environment, files, network, signals.

Called once in the page process, after it made its temporary folder and before any cell.
With Landlock (Linux 5.13+) the page process restricts itself and everything its cells start:

- **write** only in its own temporary folder (which is also ``HOME`` and ``TMPDIR``) and
  ``/dev/null``; it cannot remove that folder itself, only what is in it;
- **read** the Python installation (prefixes, ``sys.path``, kbtool's own package), system
  libraries and data (``/usr``, ``/lib*``, ``/bin``, ``/sbin``, ``/proc``, ``/sys``, a list of
  non-secret ``/etc`` files), the repository, the page's declared inputs and its own folder;
  nothing else: not ``HOME``, not ``/root``, not ``/etc/shadow``, not another page's folder;
- **TCP** connect and bind are refused (ABI 4+) unless the page allows network;
- **signals** and abstract Unix sockets reach only processes inside the page (ABI 6+), so a
  cell cannot kill the worker or talk to a desktop session's sockets.

Where the kernel does not enforce the network (no Landlock TCP rules, no namespace), the
``socket`` module is patched instead (:mod:`kbtool.execute.limits`). The environment is replaced
in every case (:mod:`kbtool.execute.environment`).
"""

from __future__ import annotations

import os
import sys
from functools import cache
from pathlib import Path
from typing import Any

import kbtool
from kbtool.execute import landlock
from kbtool.execute.environment import page_environment, replace_environ
from kbtool.execute.limits import disable_network
from kbtool.execute.tracebacks import set_hint

SYSTEM = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/proc", "/sys")
DEVICES_READ = ("/dev/urandom", "/dev/random", "/dev/zero", "/dev/full")
DEVICES_WRITE = ("/dev/null",)
#: POSIX shared memory and named semaphores (multiprocessing's locks, PyTorch's shared
#: tensors) live in /dev/shm; a cell may make, use and remove files there, never list it.
SHARED_MEMORY = "/dev/shm"
#: What programs read from /etc that holds no secret: the loader, time zones, users and groups
#: (names only; no shadow), name resolution, certificates, fonts, MIME types, the OS name.
ETC = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "passwd",
    "group",
    "nsswitch.conf",
    "hosts",
    "host.conf",
    "resolv.conf",
    "gai.conf",
    "services",
    "protocols",
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
    "pki",
    "fonts",
    "mime.types",
    "matplotlibrc",
    "os-release",
    "lsb-release",
    "debian_version",
    "terminfo",
    "magic",
)
_WRITES = "cells are contained: they write only in their own folder, $HOME"
_NETWORK = "no network without `allow-network: true`"


class SandboxError(RuntimeError):
    """``sandbox = "required"`` and the page process could not restrict itself."""


@cache
def python_paths() -> tuple[str, ...]:
    """Where this Python and its packages live; computed once, in the warm worker."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    paths.add(os.path.dirname(os.path.realpath(sys.executable)))
    paths.update(entry for entry in sys.path if entry and os.path.exists(entry))
    paths.add(str(Path(kbtool.__file__).resolve().parent))
    return tuple(sorted(os.path.realpath(path) for path in paths))


@cache
def system_rules() -> tuple[tuple[str, bool], ...]:
    """(real path, is a folder) of everything every page may read, without duplicates or
    paths inside another one; computed once, in the warm worker, so a page only adds rules."""
    found: dict[str, bool] = {}
    for path in (*SYSTEM, *DEVICES_READ, *(f"/etc/{name}" for name in ETC), *python_paths()):
        real = os.path.realpath(path)
        if real != "/" and os.path.exists(real):  # "/" on sys.path would open everything
            found[real] = os.path.isdir(real)
    folders = [path for path, is_dir in found.items() if is_dir]
    return tuple(
        (path, is_dir)
        for path, is_dir in sorted(found.items())
        if not any(path != top and path.startswith(top.rstrip("/") + "/") for top in folders)
    )


def contain(request: dict[str, Any], workdir: str, namespaced: bool) -> None:
    """Restrict this page process. ``namespaced``: it runs in the worker's empty network
    namespace (as root), which refuses the network where Landlock cannot."""
    env = page_environment(os.environ, request.get("cell_env", ()), workdir, request["file"])
    replace_environ(env)
    network = request["network"]
    mode = request.get("sandbox", "auto")
    kernel_network = False
    # kbtool probed the kernel (and may have been told to use less of it, in tests).
    abi = min(request.get("abi", 0), landlock.abi_version())
    if abi:
        try:
            _restrict(abi, request, workdir)
            kernel_network = abi >= 4
            set_hint(_WRITES if network or not kernel_network else f"{_WRITES}; {_NETWORK}")
        except OSError as error:
            if mode == "required":
                raise SandboxError(f"cannot apply Landlock: {error}") from None
    elif mode == "required":  # kbtool refuses to start such pages; this is a second lock
        raise SandboxError(landlock.unavailable_reason())
    if not (network or kernel_network or namespaced):
        disable_network()  # the last resort: Python's own socket module


def _restrict(abi: int, request: dict[str, Any], workdir: str) -> None:
    rights = landlock.fs_rights(abi)
    scoped = landlock.SCOPE_ABSTRACT_UNIX_SOCKET | landlock.SCOPE_SIGNAL
    net = 0 if request["network"] else landlock.BIND_TCP | landlock.CONNECT_TCP
    ruleset = landlock.Ruleset(abi, rights, net, scoped)
    for path, is_dir in system_rules():
        ruleset.allow(path, landlock.READ, is_dir)
    for path in (request["root"], *request.get("inputs", [])):
        ruleset.allow(path, landlock.READ)
    file_rw = landlock.READ_FILE | landlock.WRITE_FILE | landlock.TRUNCATE | landlock.IOCTL_DEV
    for path in DEVICES_WRITE:
        ruleset.allow(path, file_rw)
    shm = file_rw | landlock.MAKE_REG | landlock.REMOVE_FILE
    ruleset.allow(SHARED_MEMORY, shm, is_dir=True)
    ruleset.allow(workdir, rights)
    ruleset.restrict()
