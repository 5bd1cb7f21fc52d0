"""Where the kernel cannot contain cells: they still run, kbtool says once what is off, and
``sandbox = "required"`` refuses to run them.

The fallback is forced with ``sandbox = "off"`` or by pretending an older kernel through
``KBTOOL_TEST_LANDLOCK_ABI``, so these tests run on every machine.
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtool.config import load_config
from kbtool.execute import containment, landlock
from tests.execute_support import fixture_pages, make_repo, run

pytest_plugins = ["pytester"]

PRINTS = "# Prints\n\n```python\nprint('ran')\n```\n"
#: A cell that puts the patched socket module in place itself (as the fallback does where
#: neither Landlock nor a network namespace is there), then connects.
PATCHED = """\
# Refused by the patched socket module

```python
import socket

from kbtool.execute.limits import disable_network

disable_network()
```

```python
def connect():
    socket.create_connection(("127.0.0.1", 9), timeout=5)


connect()
```
"""


@pytest.fixture
def server() -> Iterator[socket.socket]:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.setblocking(False)
        yield listener


def test_off_warns_once_and_cells_still_run(tmp_path: Path, run_kbtool: Callable[..., Any]) -> None:
    root = make_repo(tmp_path, {"a.md": PRINTS, "b.md": PRINTS}, sandbox="off")
    result = run_kbtool("-C", root, "test", "-j", "2")
    assert result.code == 0, result.out
    warnings = [line for line in result.err.splitlines() if "KB411" in line]
    assert len(warnings) == 1, result.err
    assert warnings[0].startswith(
        'kbtool: KB411 warning cells are not fully contained (sandbox = "off"'
    )
    assert "files (cells can read and write whatever this user can)" in warnings[0]


def test_a_kernel_without_landlock_is_named_in_the_warning(
    tmp_path: Path, run_kbtool: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(containment.TEST_ABI, "0")
    root = make_repo(tmp_path, {"a.md": PRINTS})
    result = run_kbtool("-C", root, "test")
    assert result.code == 0
    assert "KB411 warning cells are not fully contained (KBTOOL_TEST_LANDLOCK_ABI=0)" in result.err
    # Nothing runs from the cache: nothing to warn about.
    assert "KB411" not in run_kbtool("-C", root, "test").err


def test_required_refuses_to_run_pages_without_landlock(
    tmp_path: Path, run_kbtool: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(containment.TEST_ABI, "0")
    root = make_repo(tmp_path, {"a.md": PRINTS}, sandbox="required")
    [result] = run(root).values()
    assert (result.status, result.code) == ("failed", "KB412")
    assert result.reason == 'not run: sandbox = "required" but KBTOOL_TEST_LANDLOCK_ABI=0'
    assert [cell.status for cell in result.cells] == ["not-run"]
    report = run_kbtool("-C", root, "test")
    assert report.code == 1
    assert "KB412" in report.out


def test_the_environment_is_small_without_landlock_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KBTOOL_TEST_TOKEN", "not for cells")
    monkeypatch.setenv("KBTOOL_TEST_WANTED", "for cells")
    pages = fixture_pages("contained")
    wanted = "```python\nimport os\nprint(os.environ['KBTOOL_TEST_WANTED'])\n```\n"
    root = make_repo(
        tmp_path,
        {"environment.md": pages["environment.md"], "wanted.md": wanted},
        sandbox="off",
        **{"cell-env": ["KBTOOL_TEST_WANTED"]},
    )
    (root / "targets.json").write_text("{}", encoding="utf-8")
    results = run(root)
    assert results["wiki/environment.md"].cells[1].reason == "KeyError: 'KBTOOL_TEST_TOKEN'"
    assert results["wiki/wanted.md"].cells[0].stdout == "for cells\n"


def test_the_patched_socket_module_leaves_no_kbtool_frame(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"patched.md": PATCHED}, sandbox="off")
    cell = run(root)["wiki/patched.md"].cells[1]
    assert cell.reason and "network is off for cells" in cell.reason
    error = cell.error or ""
    files = re.findall(r'File "([^"]+)"', error)
    assert files[:2] == ["wiki/patched.md", "wiki/patched.md"], error
    # It ends in the standard library's socket.py, which called the patched method.
    assert all(not file.startswith("wiki/") for file in files[2:]), error
    assert not any("kbtool" in file for file in files), error


@pytest.mark.skipif(
    not landlock.abi_version() and os.environ.get("CI") != "true",
    reason=f"needs Landlock: {landlock.unavailable_reason()}",
)
def test_without_tcp_rules_the_network_falls_back(
    tmp_path: Path, server: socket.socket, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ABI 3: files are contained, TCP is not: the namespace (root) or the socket module refuses.
    monkeypatch.setenv(containment.TEST_ABI, "3")
    monkeypatch.setenv("KBTOOL_TEST_PORT", str(server.getsockname()[1]))
    code = (
        "import os, socket\n"
        "socket.create_connection(('127.0.0.1', int(os.environ['KBTOOL_TEST_PORT'])), timeout=5)\n"
    )
    root = make_repo(
        tmp_path, {"net.md": f"```python\n{code}```\n"}, **{"cell-env": ["KBTOOL_TEST_PORT"]}
    )
    reason = run(root)["wiki/net.md"].cells[0].reason or ""
    if os.geteuid() == 0:
        assert reason == "OSError: [Errno 101] Network is unreachable"
    else:
        assert "network is off for cells" in reason
    with pytest.raises(BlockingIOError):
        server.accept()
    status = containment.probe(load_config(root))
    assert status.abi == 3
    warning = containment.warning(status)
    if os.geteuid() == 0:
        assert warning is None  # the namespace refuses the network
    else:
        assert warning is not None and "network (Landlock ABI 3 has no TCP rules" in warning


@pytest.mark.skipif(landlock.abi_version() < 4, reason="needs Landlock ABI 4")
def test_no_warning_where_everything_is_enforced(
    tmp_path: Path, run_kbtool: Callable[..., Any]
) -> None:
    root = make_repo(tmp_path, {"a.md": PRINTS}, sandbox="required")
    result = run_kbtool("-C", root, "test")
    assert result.code == 0, result.out
    assert "KB41" not in result.err + result.out


def test_pytest_warns_once_under_xdist(pytester: pytest.Pytester) -> None:
    make_repo(pytester.path, {"a.md": PRINTS, "b.md": PRINTS}, sandbox="off")
    with (pytester.path / "pyproject.toml").open("a", encoding="utf-8") as f:
        f.write('\n[tool.pytest.ini_options]\ntestpaths = ["wiki"]\n')
    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, warnings=1)
    assert result.stdout.str().count("KB411 warning cells are not fully contained") == 1


def test_a_doctest_shows_no_kbtool_frame_either(tmp_path: Path) -> None:
    page = PATCHED.replace("\n\nconnect()\n", "\n") + "\n```python\n>>> connect()\n```\n"
    root = make_repo(tmp_path, {"patched.md": page}, sandbox="off")
    cell = run(root)["wiki/patched.md"].cells[2]
    assert cell.status == "failed"
    error = cell.error or ""
    assert "Exception raised:" in error and "network is off for cells" in error, error
    assert not any("kbtool" in f for f in re.findall(r'File "([^"]+)"', error)), error


def test_a_cell_that_kills_the_worker_fails_only_its_page(tmp_path: Path) -> None:
    # Without Landlock's signal scope a cell can kill the warm worker, its parent.
    code = "import os, signal, time\ntime.sleep(0.5)\nos.kill(os.getppid(), signal.SIGKILL)\n"
    killer = f"```python\n{code}```\n"
    pages = {"killer.md": killer, **{f"p{i}.md": PRINTS for i in range(4)}}
    results = run(make_repo(tmp_path, pages, sandbox="off"), jobs=2)
    assert results["wiki/killer.md"].code == "KB410"
    assert "worker stopped while this page ran" in (results["wiki/killer.md"].reason or "")
    assert all(results[f"wiki/p{i}.md"].status == "passed" for i in range(4)), results
