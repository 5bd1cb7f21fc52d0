"""Contained cells: each hostile page of ``tests/fixtures/cells/contained/`` fails alone.

Every page has a harmless first cell (it reads ``targets.json``, written here, for the paths
and the port to attack), the hostile second cell, and a third that must be reported as not
run. They run together beside a well-behaved page, through ``kbtool`` and through ``pytest``.
These tests need Landlock; they skip where the kernel lacks it, except under ``CI=true``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtool.execute import PageResult, landlock
from tests.execute_support import fixture_pages, has_command, make_repo, process_gone, run

ABI = landlock.abi_version()
needs_landlock = pytest.mark.skipif(
    not ABI and os.environ.get("CI") != "true",
    reason=f"needs Landlock: {landlock.unavailable_reason()}",
)
pytestmark = needs_landlock

TOKEN = "kbtool-test-token-" + secrets.token_hex(8)
SECRET = "the planted secret " + secrets.token_hex(8)
GOOD = "# Good\n\n```python\nprint('fine')\n```\n"
#: What the caller's environment holds that a cell must not see.
CALLER_ENV = {"KBTOOL_TEST_TOKEN": TOKEN}


@pytest.fixture(scope="module")
def server() -> Iterator[socket.socket]:
    """A local TCP server the network pages try to reach; accept() tells what arrived."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.setblocking(False)
        yield listener


@pytest.fixture(scope="module")
def other_page() -> Iterator[Path]:
    """A folder like another page's temporary folder, where page folders are made."""
    folder = Path(tempfile.mkdtemp(prefix="kbtool-page-", dir=tempfile.gettempdir()))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Files outside the repository: the caller's home, a secret, a file a daemon writes."""
    folder = tmp_path_factory.mktemp("outside")
    (folder / "home").mkdir()
    (folder / "secret.txt").write_text(SECRET, encoding="utf-8")
    return folder


def hostile_repo(root: Path, outside: Path, other_page: Path, port: int) -> Path:
    pages = {**fixture_pages("contained"), "good.md": GOOD}
    if ABI < 6:  # signals are scoped from ABI 6 on: before, this page would kill the worker
        del pages["kill_worker.md"]
    make_repo(root, pages)
    targets = {
        "home": str(outside / "home"),
        "secret": str(outside / "secret.txt"),
        "escape": str(outside / "escaped.txt"),
        "other_page": str(other_page),
        "port": port,
    }
    (root / "targets.json").write_text(json.dumps(targets), encoding="utf-8")
    (root / ".kbtool").mkdir(exist_ok=True)
    (root / ".kbtool" / "keep.txt").write_text("kbtool's own", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def repo(
    tmp_path_factory: pytest.TempPathFactory,
    outside: Path,
    other_page: Path,
    server: socket.socket,
) -> Path:
    root = tmp_path_factory.mktemp("contained") / "repo"
    return hostile_repo(root, outside, other_page, server.getsockname()[1])


#: Where the page writing at the top of the filesystem would leave its file.
AT_THE_TOP = Path("/kbtool-contained-planted.txt")


@pytest.fixture(scope="module")
def results(repo: Path, outside: Path) -> Iterator[dict[str, PageResult]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(outside / "home"))
        for name, value in CALLER_ENV.items():
            patch.setenv(name, value)
        yield run(repo, jobs=2)
    # Under CI=true without Landlock these pages do run unprotected: leave nothing behind.
    if AT_THE_TOP.exists():
        AT_THE_TOP.unlink()


def refused(results: dict[str, PageResult], name: str) -> str:
    """The reason of the hostile (second) cell, which failed; the third was not run."""
    result = results[f"wiki/{name}.md"]
    assert result.status == "failed", result
    first, second, third = result.cells
    assert (first.status, second.status, third.status) == ("passed", "failed", "not-run"), result
    assert second.code == result.code == "KB404"
    assert second.reason and "\n" not in second.reason
    assert result.reason == f"cell-2: {second.reason}"
    return second.reason


def test_the_run_goes_on(results: dict[str, PageResult]) -> None:
    assert results["wiki/good.md"].status == "passed"
    assert results["wiki/good.md"].cells[0].stdout == "fine\n"
    assert {r.status for path, r in results.items() if path != "wiki/good.md"} == {"failed"}


@pytest.mark.parametrize(
    ("name", "target"),
    [
        ("write_home", "home/planted.txt"),
        ("write_root", str(AT_THE_TOP)),
        ("write_other_page", None),
    ],
)
def test_writes_outside_the_page_folder_are_refused(
    results: dict[str, PageResult], outside: Path, other_page: Path, name: str, target: str | None
) -> None:
    reason = refused(results, name)
    assert reason.startswith("PermissionError: [Errno 13] Permission denied: ")
    assert "write only in their own folder" in reason
    written = other_page / "planted.txt" if target is None else outside / target
    assert not written.exists()


def test_the_page_itself_cannot_be_changed(results: dict[str, PageResult], repo: Path) -> None:
    assert refused(results, "write_repo").startswith("PermissionError: [Errno 13]")
    page = (repo / "wiki" / "write_repo.md").read_text(encoding="utf-8")
    assert page == fixture_pages("contained")["write_repo.md"]


def test_a_secret_outside_the_repository_cannot_be_read(results: dict[str, PageResult]) -> None:
    assert refused(results, "read_secret").startswith("PermissionError: [Errno 13]")
    assert SECRET not in everything_printed(results)


def everything_printed(results: dict[str, PageResult]) -> str:
    return "".join(
        f"{cell.stdout}{cell.stderr}{cell.error}{cell.reason}{cell.value}"
        for result in results.values()
        for cell in result.cells
    )


def test_the_callers_environment_is_not_passed_on(results: dict[str, PageResult]) -> None:
    assert refused(results, "environment") == "KeyError: 'KBTOOL_TEST_TOKEN'"
    # Not even in the environment block the process started with (the worker's).
    assert refused(results, "environ_file").startswith("ValueError: not enough values")
    assert TOKEN not in everything_printed(results)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("connect_socket", "PermissionError: [Errno 13] Permission denied"),
        ("connect_raw", "PermissionError: [Errno 13] Permission denied"),
        ("connect_subprocess", "subprocess.CalledProcessError: Command"),
        ("connect_curl", "subprocess.CalledProcessError: Command"),
    ],
)
def test_no_connection_arrives(
    results: dict[str, PageResult], server: socket.socket, name: str, reason: str
) -> None:
    if name == "connect_curl" and not has_command("curl"):
        pytest.skip("needs curl")
    assert refused(results, name).startswith(reason)
    with pytest.raises(BlockingIOError):
        server.accept()  # nothing is waiting: no connection was ever made


def test_a_refused_connection_ends_in_the_users_code(results: dict[str, PageResult]) -> None:
    error = results["wiki/connect_raw.md"].cells[1].error or ""
    files = re.findall(r'File "([^"]+)", line \d+', error)
    assert files == ["wiki/connect_raw.md"], error
    if ABI >= 4:
        assert "no network without `allow-network: true`" in (
            results["wiki/connect_raw.md"].cells[1].reason or ""
        )


def test_a_daemon_is_killed_and_never_writes_outside(
    results: dict[str, PageResult], outside: Path
) -> None:
    result = results["wiki/daemon_escape.md"]
    assert [c.status for c in result.cells] == ["passed", "passed", "passed"]
    assert result.code == "KB409"
    assert re.fullmatch(r"cells left a process running \(.+\); killed", result.reason or "")
    assert process_gone(int(result.cells[1].stdout.split()[0]))
    assert not (outside / "escaped.txt").exists()


def test_the_page_folder_itself_cannot_be_removed(results: dict[str, PageResult]) -> None:
    reason = refused(results, "remove_own_folder")
    match = re.search(r"Permission denied: '([^']+)'", reason)
    assert match, reason
    folder = Path(match[1])
    assert folder.name.startswith("kbtool-page-")
    assert not folder.exists()  # still cleaned up when the page ended


def test_kbtools_cache_cannot_be_removed(results: dict[str, PageResult], repo: Path) -> None:
    assert refused(results, "remove_cache").startswith("PermissionError: [Errno 13]")
    assert (repo / ".kbtool" / "keep.txt").read_text(encoding="utf-8") == "kbtool's own"


@pytest.mark.skipif(ABI < 6, reason="signals are scoped from Landlock ABI 6")
def test_the_worker_cannot_be_killed(results: dict[str, PageResult]) -> None:
    assert refused(results, "kill_worker").startswith("PermissionError: [Errno 1]")
    assert results["wiki/good.md"].status == "passed"


def test_cells_keep_their_own_folder_home_and_tmpdir(tmp_path: Path) -> None:
    code = (
        "import os, pathlib, tempfile\n"
        "home = pathlib.Path.home()\n"
        "assert home == pathlib.Path.cwd() == pathlib.Path(tempfile.gettempdir())\n"
        "(home / 'notes.txt').write_text('mine')\n"
        "with tempfile.NamedTemporaryFile() as f:\n"
        "    f.write(b'scratch')\n"
        "open(os.devnull, 'w').write('gone')\n"
        "print(sorted(os.environ))\n"
    )
    root = make_repo(tmp_path, {"own.md": f"```python\n{code}```\n"}, **{"cell-env": ["LANG"]})
    [result] = run(root).values()
    assert result.status == "passed", result
    names = set(eval(result.cells[0].stdout))
    assert {"HOME", "TMPDIR", "KBTOOL_PAGE", "KBTOOL_PAGE_DIR", "PATH"} <= names
    assert names <= {
        *("HOME", "TMPDIR", "KBTOOL_PAGE", "KBTOOL_PAGE_DIR", "PATH", "LANG", "TZ"),
        *("MPLBACKEND", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"),
        *("VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "BLIS_NUM_THREADS"),
        *(name for name in names if name.startswith("LC_")),
    }


def test_multiprocessing_still_works(tmp_path: Path) -> None:
    # Its locks are named semaphores in /dev/shm: made and removed there, never listed.
    code = (
        "import multiprocessing, os\n"
        "with multiprocessing.get_context('fork').Pool(2) as pool:\n"
        "    print(pool.map(abs, [-1, -2]))\n"
        "os.listdir('/dev/shm')\n"
    )
    root = make_repo(tmp_path, {"pool.md": f"```python\n{code}```\n"})
    [result] = run(root).values()
    assert result.cells[0].stdout == "[1, 2]\n", result
    assert (result.cells[0].reason or "").startswith("PermissionError: [Errno 13]")


def test_pytest_gives_the_same_results(
    repo: Path,
    outside: Path,
    results: dict[str, PageResult],
    server: socket.socket,
    tmp_path: Path,
) -> None:
    (repo / "pyproject.toml").write_text(
        (repo / "pyproject.toml").read_text(encoding="utf-8")
        + '\n[tool.pytest.ini_options]\ntestpaths = ["wiki"]\n',
        encoding="utf-8",
    )
    report = tmp_path / "pytest.xml"
    env = {**os.environ, **CALLER_ENV, "HOME": str(outside / "home")}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "-q"]
    done = subprocess.run(
        [*command, "--kbtool-no-cache", f"--junitxml={report}"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    by_pytest = junit_outcomes(report)
    expected = {
        (path.replace("/", "."), f"cell-{number}"): outcome(result, position)
        for path, result in results.items()
        for position, number in enumerate(range(1, len(result.cells) + 1))
    }
    assert by_pytest == expected
    assert TOKEN not in report.read_text(encoding="utf-8")
    with pytest.raises(BlockingIOError):
        server.accept()


def outcome(result: PageResult, position: int) -> str:
    cell = result.cells[position]
    if cell.status == "passed" and result.status == "failed":
        failing = [c for c in result.cells if c.status == "failed"]
        ran = [i for i, c in enumerate(result.cells) if c.status == "passed"]
        if not failing and ran[-1] == position:
            return "failed"  # the page's own failure (a process left running) is charged here
    return {"not-run": "skipped"}.get(cell.status, cell.status)


def junit_outcomes(report: Path) -> dict[tuple[str, str], str]:
    outcomes: dict[tuple[str, str], str] = {}
    for case in ET.parse(report).iter("testcase"):
        kind: Any = next((child.tag for child in case if child.tag in _OUTCOMES), "passed")
        outcomes[(case.get("classname", ""), case.get("name", ""))] = _OUTCOMES.get(kind, kind)
    return outcomes


_OUTCOMES = {"failure": "failed", "error": "failed", "skipped": "skipped", "passed": "passed"}
