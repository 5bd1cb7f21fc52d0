"""``sandbox.contain`` itself, in a forked process (it restricts the process that calls it):
which network switch it picks, and the second lock of ``sandbox = "required"``."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from kbtool.execute import landlock
from kbtool.execute.sandbox import SandboxError, contain

ORIGINAL_CONNECT = socket.socket.connect


def in_fork(check: Callable[[], bool]) -> bool:
    """Run ``check`` in a forked child; its answer (an exception counts as False)."""
    pid = os.fork()
    if pid == 0:
        try:
            os._exit(0 if check() else 1)
        except BaseException:  # noqa: B036 - anything in the child is a failed check
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def request(
    tmp_path: Path, abi: int, mode: str = "auto", network: bool = False
) -> dict[str, object]:
    return {
        "file": str(tmp_path / "wiki" / "a.md"),
        "root": str(tmp_path),
        "inputs": [],
        "network": network,
        "sandbox": mode,
        "abi": abi,
        "cell_env": [],
    }


def contained(tmp_path: Path, abi: int, namespaced: bool, **options: object) -> Callable[[], bool]:
    def check() -> bool:
        workdir = tempfile.mkdtemp()
        contain(request(tmp_path, abi, **options), workdir, namespaced)  # type: ignore[arg-type]
        return socket.socket.connect is ORIGINAL_CONNECT

    return check


def test_without_landlock_or_namespace_the_socket_module_is_patched(tmp_path: Path) -> None:
    assert not in_fork(contained(tmp_path, abi=0, namespaced=False))


def test_the_namespace_needs_no_patch(tmp_path: Path) -> None:
    assert in_fork(contained(tmp_path, abi=0, namespaced=True))


def test_a_page_with_network_is_left_alone(tmp_path: Path) -> None:
    assert in_fork(contained(tmp_path, abi=0, namespaced=False, network=True))


@pytest.mark.skipif(
    landlock.abi_version() < 4 and os.environ.get("CI") != "true",
    reason="needs Landlock ABI 4 (TCP rules)",
)
def test_where_landlock_refuses_tcp_the_socket_module_is_left_alone(tmp_path: Path) -> None:
    def check() -> bool:
        unpatched = contained(tmp_path, abi=landlock.abi_version(), namespaced=False)()
        try:
            socket.create_connection(("127.0.0.1", 9), timeout=1)
        except PermissionError:
            return unpatched
        return False

    assert in_fork(check)


def test_required_is_locked_in_the_page_process_too(tmp_path: Path) -> None:
    def check() -> bool:
        try:
            contained(tmp_path, abi=0, namespaced=False, mode="required")()
        except SandboxError:
            return True
        return False

    assert in_fork(check)
