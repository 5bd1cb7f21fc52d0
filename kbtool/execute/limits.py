"""Limits a page process puts on itself before its first cell: memory, core files, network.

Wall time and output size are enforced from outside, by the worker (a cell cannot switch them
off). Memory is an address-space limit (``RLIMIT_AS``), inherited by anything the cells start.

The network switch is **best effort, not a security sandbox**. As root, the warm worker moves
into an empty network namespace when it starts, so page processes (and their subprocesses)
have no network unless allowed, when they join the original namespace again (see
:mod:`kbtool.execute.procs`). In every case the ``socket`` module of a page without network is
patched so that connecting to an internet address or resolving a host name raises
:class:`NetworkDisabled` with a message that says how to allow it. Code that talks to the
kernel directly (a C extension, ``_socket``) when not root is not stopped.
"""

from __future__ import annotations

import contextlib
import ipaddress
import resource
import socket
from collections.abc import Callable
from typing import Any

_INTERNET = (socket.AF_INET, socket.AF_INET6)
_HINT = "network is off for cells (allow it with `allow-network: true` in the frontmatter)"


class NetworkDisabled(PermissionError):
    pass


def limit_memory(megabytes: int) -> None:
    limit = megabytes * 1024 * 1024
    _set(resource.RLIMIT_AS, limit)
    _set(resource.RLIMIT_CORE, 0)  # a crashing cell must not leave a core file behind


def _set(which: int, limit: int) -> None:
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    with contextlib.suppress(ValueError, OSError):  # not allowed here: best effort
        resource.setrlimit(which, (limit, hard))


def disable_network() -> None:
    """Refuse connections and name lookups at the ``socket`` module, with a clear message."""
    _patch_socket()


def _refuse(what: str) -> NetworkDisabled:
    return NetworkDisabled(f"{what}: {_HINT}")


def _patch_socket() -> None:
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex
    original_sendto = socket.socket.sendto

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in _INTERNET:
            raise _refuse(f"connect to {address!r} refused")
        original_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if self.family in _INTERNET:
            raise _refuse(f"connect to {address!r} refused")
        return original_connect_ex(self, address)

    def sendto(self: socket.socket, *args: Any) -> int:
        if self.family in _INTERNET:
            raise _refuse(f"sendto {args[-1]!r} refused")
        return original_sendto(self, *args)

    for method in (connect, connect_ex, sendto):
        setattr(socket.socket, method.__name__, method)
    for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr"):
        setattr(socket, name, _local_lookups_only(name, getattr(socket, name)))


def _local_lookups_only(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    """Name lookups would query DNS; addresses and ``localhost`` need no network."""

    def lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not _is_local(host):
            raise _refuse(f"{name}({host!r}) refused")
        return original(host, *args, **kwargs)

    return lookup


def _is_local(host: Any) -> bool:
    if host is None or host in ("localhost", b"localhost"):
        return True
    try:
        ipaddress.ip_address(host.decode() if isinstance(host, bytes) else host)
    except ValueError:
        return False
    return True
