"""Limits and isolation: each hostile page fails alone, with a one-line reason; the run goes on.

Every page of ``tests/fixtures/cells/hostile/`` has a harmless first cell, the hostile second
cell, and a third cell that must be reported as not run. They run together, two at a time,
beside a well-behaved page, in one run.
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtool.execute import PageResult
from tests.execute_support import fixture_pages, has_command, line_of, make_repo, process_gone, run

#: The test's server port reaches the cells only because the configuration names it.
PORT_ENV = ["KBTOOL_TEST_PORT"]
GOOD = "# Good\n\n```python\nprint('fine')\n```\n"


@pytest.fixture(scope="module")
def server() -> Iterator[socket.socket]:
    """A local TCP server the network fixtures try to reach."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        yield listener


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pages = {**fixture_pages("hostile"), "good.md": GOOD}
    settings = {"memory-limit-mb": 300, "cell-env": PORT_ENV}
    return make_repo(tmp_path_factory.mktemp("hostile"), pages, **settings)


@pytest.fixture(scope="module")
def results(repo: Path, server: socket.socket) -> dict[str, PageResult]:
    port = server.getsockname()[1]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KBTOOL_TEST_PORT", str(port))  # the worker's environment is ours
        return run(repo, jobs=2)


def hostile(results: dict[str, PageResult], name: str) -> PageResult:
    """The result of a hostile page, after the checks every one of them must pass."""
    result = results[f"wiki/{name}.md"]
    assert result.status == "failed"
    assert result.reason and "\n" not in result.reason
    assert [c.status for c in result.cells][0] == "passed"
    return result


def failed_cell(results: dict[str, PageResult], name: str, code: str) -> str:
    """The reason of the hostile (second) cell, which failed; the third was not run."""
    result = hostile(results, name)
    first, second, third = result.cells
    assert (second.status, third.status) == ("failed", "not-run"), result
    assert second.code == code == result.code
    assert second.reason and "\n" not in second.reason
    assert "after" not in third.stdout
    return second.reason


def test_the_run_goes_on(results: dict[str, PageResult]) -> None:
    assert results["wiki/good.md"].status == "passed"
    assert results["wiki/good.md"].cells[0].stdout == "fine\n"
    assert results["wiki/network_allowed.md"].status == "passed"
    others = {
        path: r.status
        for path, r in results.items()
        if path not in ("wiki/good.md", "wiki/network_allowed.md")
    }
    assert set(others.values()) == {"failed"}


def test_infinite_loop_stops_at_the_cell_timeout(results: dict[str, PageResult]) -> None:
    reason = failed_cell(results, "loop", "KB406")
    assert reason.startswith("timed out after 1 s")
    assert 1 <= results["wiki/loop.md"].cells[1].duration < 5


def test_os_exit_fails_the_page(results: dict[str, PageResult]) -> None:
    assert "exited with status 3" in failed_cell(results, "exit", "KB408")


def test_sys_exit_fails_the_cell(results: dict[str, PageResult]) -> None:
    assert "sys.exit(0)" in failed_cell(results, "sysexit", "KB404")


def test_a_20_gib_allocation_is_refused(results: dict[str, PageResult]) -> None:
    assert failed_cell(results, "alloc", "KB404") == "MemoryError"


def test_the_memory_limit_is_the_configured_one(results: dict[str, PageResult]) -> None:
    # 600 MiB is nothing to this machine: only the 300 MiB limit refuses it.
    assert failed_cell(results, "overlimit", "KB404") == "MemoryError"


def test_printing_50_mb_stops_at_the_output_limit(results: dict[str, PageResult]) -> None:
    reason = failed_cell(results, "print", "KB407")
    assert "output exceeded the limit of 64.0 KiB" in reason
    stdout = results["wiki/print.md"].cells[1].stdout
    assert stdout.startswith("x" * 1000)
    assert len(stdout) < 64 * 1024 + 200
    assert "output truncated" in stdout


def test_a_syntax_error_points_at_its_markdown_line(
    results: dict[str, PageResult], repo: Path
) -> None:
    assert failed_cell(results, "syntax", "KB404") == "SyntaxError: invalid syntax"
    cell = results["wiki/syntax.md"].cells[1]
    assert cell.error_line == line_of(repo, "syntax.md", "def broken(:")
    assert f'File "wiki/syntax.md", line {cell.error_line}' in (cell.error or "")


@pytest.mark.skipif(not has_command("sleep"), reason="needs the sleep command")
@pytest.mark.parametrize("name", ["leftover", "daemon"])
def test_a_process_left_running_fails_the_page_and_is_killed(
    results: dict[str, PageResult], name: str
) -> None:
    result = hostile(results, name)
    assert [c.status for c in result.cells] == ["passed", "passed", "passed"]
    assert result.code == "KB409"
    assert re.fullmatch(r"cells left a process running \(sleep\); killed", result.reason or "")
    pid = int(result.cells[1].stdout.split()[0])
    assert process_gone(pid)


@pytest.mark.skipif(not has_command("sleep"), reason="needs the sleep command")
def test_a_timeout_kills_the_cells_children_too(results: dict[str, PageResult]) -> None:
    failed_cell(results, "hang_with_child", "KB406")
    pid = int(results["wiki/hang_with_child.md"].cells[1].stdout.split()[0])
    assert process_gone(pid)


def test_network_is_off_unless_the_page_allows_it(results: dict[str, PageResult]) -> None:
    # Refused by Landlock (with a note), the empty namespace (root), or the socket module.
    reason = failed_cell(results, "network", "KB404")
    assert "allow-network: true" in reason or reason.endswith("Network is unreachable"), reason
    assert results["wiki/network_allowed.md"].status == "passed"


def test_a_crash_in_c_code_fails_the_page(results: dict[str, PageResult]) -> None:
    reason = failed_cell(results, "segfault", "KB408")
    assert "SIGSEGV" in reason
    assert "Fatal Python error" in results["wiki/segfault.md"].cells[1].stderr


def test_network_allowed_by_the_configuration(tmp_path: Path, server: socket.socket) -> None:
    pages = fixture_pages("hostile")
    root = make_repo(
        tmp_path / "repo",
        {"network.md": pages["network.md"]},
        **{"allow-network": True, "cell-env": PORT_ENV},
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KBTOOL_TEST_PORT", str(server.getsockname()[1]))
        assert run(root)["wiki/network.md"].status == "passed"


@pytest.mark.skipif(os.geteuid() != 0, reason="the kernel-level switch needs root")
def test_as_root_the_kernel_refuses_too(tmp_path: Path, server: socket.socket) -> None:
    # `_socket` is beneath the patched module: only the empty network namespace stops it.
    code = (
        "import _socket, os\n"
        "s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)\n"
        "s.settimeout(5)\n"
        "s.connect(('127.0.0.1', int(os.environ['KBTOOL_TEST_PORT'])))\n"
    )
    page = f"```python\n{code}```\n"
    pages = {"off.md": page, "on.md": "---\nallow-network: true\n---\n" + page}
    # Without Landlock, so that the namespace is what refuses.
    root = make_repo(tmp_path, pages, sandbox="off", **{"cell-env": PORT_ENV})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KBTOOL_TEST_PORT", str(server.getsockname()[1]))
        results = run(root)
    assert results["wiki/on.md"].status == "passed"
    assert results["wiki/off.md"].cells[0].reason == "OSError: [Errno 101] Network is unreachable"
