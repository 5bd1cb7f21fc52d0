"""Stopping kbtool mid-work: Ctrl-C, SIGTERM, SIGKILL and crashes leave no process behind.

Each test starts kbtool as a process of its own (in a session of its own, so that everything
it starts can be found afterwards by session id), waits until its workers exist, signals it
and then checks: no process of that session survives it for more than a moment, Ctrl-C and
SIGTERM print exactly one line saying nothing was published, ``site/`` is the old site, and
the next run succeeds (and removes what a killed build left).
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc; parent-death signals are Linux"
)

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGKILL]
CONFIG = '[tool.kbtool]\nlanguage = "en"\nseverity = { KB3 = "off" }\npreload = []\n'
FRONTMATTER = "---\ntype: concept\nsummary: s\nupdated: 2020-01-01\n---\n"
#: Math is slow to render and quick to parse: a build spends seconds rendering these.
MATH = "".join(
    f"## S{j}\n\n" + " ".join(f"$a_{{{k}}}^2 + \\frac{{x}}{{y_{k}}}$" for k in range(8)) + "\n\n"
    for j in range(10)
)
#: A cell that keeps its page process (and a child of it) busy until it is stopped.
SLOW_CELL = (
    "```python\nimport subprocess, time\n"
    'child = subprocess.Popen(["sleep", "60"])\ntime.sleep(60)\n```\n'
)
QUICK_CELL = "```python\nprint(1 + 1)\n```\n"


# -- the wiki ------------------------------------------------------------------------------


def write_small_wiki(root: Path) -> None:
    (root / "wiki/concepts").mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(CONFIG)
    for name in ("a", "b"):
        text = f"{FRONTMATTER}# Page {name}\n\nSee [a](a.md) and [b](b.md).\n"
        (root / f"wiki/concepts/{name}.md").write_text(text, encoding="utf-8")


def add_big_pages(root: Path, count: int, body: str = MATH) -> list[Path]:
    folder = root / "wiki/big"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"p{i}.md"
        path.write_text(f"{FRONTMATTER}# Big {i}\n\n{body}", encoding="utf-8")
        paths.append(path)
    return paths


def remove_big_pages(root: Path) -> None:
    for path in (root / "wiki/big").glob("*.md"):
        path.unlink()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    write_small_wiki(repo)
    return repo


# -- processes ------------------------------------------------------------------------------


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, session id) of a process, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()
    return fields[0].decode(), int(fields[1]), int(fields[3])


def _processes() -> dict[int, tuple[str, int, int]]:
    found = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            stat = _stat(int(name))
            if stat is not None:
                found[int(name)] = stat
    return found


def descendants(pid: int) -> set[int]:
    table = _processes()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, (_, parent, _) in table.items() if parent in frontier} - found
        found |= frontier
    return found


def depth_of(pid: int, top: int) -> int:
    """How many generations below ``top`` the process ``pid`` is (0 when not below it)."""
    depth, current = 0, pid
    while current not in (top, 0, 1):
        stat = _stat(current)
        if stat is None:
            return 0
        current, depth = stat[1], depth + 1
    return depth if current == top else 0


def session_survivors(session: int) -> set[int]:
    """Live (not zombie) processes still in the session kbtool led."""
    return {
        pid
        for pid, (state, _, sid) in _processes().items()
        if sid == session and pid != session and state != "Z"
    }


@dataclass
class Run:
    process: subprocess.Popen[bytes]
    out: Path
    err: Path
    seen: set[int]

    @property
    def stdout(self) -> str:
        return self.out.read_text(encoding="utf-8", errors="replace")

    @property
    def stderr(self) -> str:
        return self.err.read_text(encoding="utf-8", errors="replace")


def _interruptible() -> None:
    """In the child before exec: Ctrl-C's signal as a terminal's foreground job has it. A test
    run started in the background inherits SIGINT ignored, and the child would keep that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(root: Path, *args: str) -> Run:
    out, err = root.parent / "out.txt", root.parent / "err.txt"
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "kbtool", "-C", str(root), *args],
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,  # the session id finds every process it starts
            preexec_fn=_interruptible,
        )
    return Run(process, out, err, set())


def wait_until(run: Run, ready: Callable[[set[int]], bool], what: str) -> None:
    """Poll until ``ready(descendants)``; every descendant seen is remembered."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        now = descendants(run.process.pid)
        run.seen |= now
        if ready(now):
            return
        if run.process.poll() is not None:
            pytest.fail(f"kbtool ended before {what}:\n{run.stderr}")
        time.sleep(0.01)
    run.process.kill()
    pytest.fail(f"never saw {what}")


def stop(run: Run, sig: int, group: bool = False) -> None:
    """Ctrl-C reaches the terminal's whole process group; `kill` reaches kbtool alone."""
    if sig == signal.SIGINT or group:
        os.killpg(run.process.pid, sig)
    else:
        run.process.send_signal(sig)
    try:
        run.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(run.process.pid, signal.SIGKILL)
        pytest.fail(f"kbtool did not stop after {signal.Signals(sig).name}")


def assert_nothing_survives(run: Run) -> None:
    session = run.process.pid
    deadline = time.monotonic() + 3
    while session_survivors(session) and time.monotonic() < deadline:
        time.sleep(0.02)
    left = session_survivors(session)
    for pid in left:  # do not leave them to the next test
        os.kill(pid, signal.SIGKILL)
    assert not left, f"still running after kbtool ended: {left} (seen {sorted(run.seen)})"


def assert_said_nothing_was_published(run: Run, sig: int) -> None:
    if sig == signal.SIGKILL:
        assert run.process.returncode == -signal.SIGKILL
        return
    assert run.process.returncode == 128 + sig, run.stderr
    lines = run.stderr.splitlines()
    assert "Traceback" not in run.stderr, run.stderr
    name = signal.Signals(sig).name
    said = [line for line in lines if "nothing was published" in line]
    assert said == [f"kbtool: interrupted ({name}); nothing was published"], run.stderr


def kbtool(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbtool", "-C", str(root), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def snapshot(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.blake2b(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def staging_folders(root: Path) -> list[str]:
    return sorted(p.name for p in root.glob(".site.build-*"))


def rendering(root: Path, jobs: int = 2) -> Callable[[set[int]], bool]:
    """The build is in its render stage: staging exists and the render workers run."""
    return lambda now: bool(staging_folders(root)) and len(now) >= jobs


# -- build and serve ------------------------------------------------------------------------


def _interrupt_a_build(root: Path, sig: int, *command: str, group: bool = False) -> None:
    assert kbtool(root, "build").returncode == 0
    old = snapshot(root / "site")
    add_big_pages(root, 80)
    run = start(root, *command)
    wait_until(run, rendering(root), "the render workers")
    stop(run, sig, group)
    assert_nothing_survives(run)
    assert_said_nothing_was_published(run, sig)
    assert snapshot(root / "site") == old  # the old site, whole: never half of the new one
    if sig != signal.SIGKILL:
        assert staging_folders(root) == []  # removed on the way out

    remove_big_pages(root)
    again = kbtool(root, "build")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "another build" not in again.stderr
    assert staging_folders(root) == []
    assert (root / "site/wiki/concepts/a.html").is_file()
    assert not (root / "site/wiki/big").exists()


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_an_interrupted_build_leaves_no_worker_and_the_old_site(root: Path, sig: int) -> None:
    _interrupt_a_build(root, sig, "build", "-j", "2")


def test_timeout_signalling_the_whole_process_group_is_an_interrupt_too(root: Path) -> None:
    # `timeout` and some CI runners send SIGTERM to the group: the workers die of it at once,
    # which must not read as a worker crash.
    _interrupt_a_build(root, signal.SIGTERM, "build", "-j", "2", group=True)


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_serve_interrupted_while_building_leaves_no_worker(root: Path, sig: int) -> None:
    _interrupt_a_build(root, sig, "serve", "--port", "0", "--no-watch", "-j", "2")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_serve_stopped_between_builds_exits_quietly(root: Path, sig: int) -> None:
    run = start(root, "serve", "--port", "0")  # watching: the watcher thread must stop too
    deadline = time.monotonic() + 60
    while "serving " not in run.stdout and run.process.poll() is None:
        assert time.monotonic() < deadline, run.stderr
        time.sleep(0.02)
    stop(run, sig)
    assert run.process.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr and "nothing was published" not in run.stderr
    assert_nothing_survives(run)


def test_serve_interrupted_in_a_rebuild_says_it_was_not_published(root: Path) -> None:
    run = start(root, "serve", "--port", "0", "-j", "2")
    deadline = time.monotonic() + 60
    while "serving " not in run.stdout and run.process.poll() is None:
        assert time.monotonic() < deadline, run.stderr
        time.sleep(0.02)
    printed = len(run.stdout.splitlines())
    while len(run.stdout.splitlines()) == printed:  # until the watcher is seen to be watching
        assert time.monotonic() < deadline and run.process.poll() is None, run.stderr
        (root / "wiki/concepts/a.md").touch()
        time.sleep(0.3)
    old = snapshot(root / "site")
    elsewhere = root.parent / "elsewhere"
    add_big_pages(elsewhere, 80)
    # All at once, so that one rebuild renders them all. (The watcher ignores names without an
    # extension, so the folder has one.)
    (elsewhere / "wiki/big").rename(root / "wiki/big.pages")
    wait_until(run, rendering(root), "the rebuild's render workers")
    stop(run, signal.SIGTERM)
    assert_nothing_survives(run)
    assert_said_nothing_was_published(run, signal.SIGTERM)
    assert snapshot(root / "site") == old


# -- check and test -------------------------------------------------------------------------


def _diagnostics(result: subprocess.CompletedProcess[str]) -> list[str]:
    return result.stdout.splitlines()[:-1]  # the last line is the summary, with its time


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_an_interrupted_check_leaves_no_worker_and_a_sound_cache(root: Path, sig: int) -> None:
    add_big_pages(root, 400, body=MATH[: len(MATH) // 3])
    (root / "wiki/concepts/a.md").write_text(f"{FRONTMATTER}# A\n\n[gone](gone.md)\n")
    run = start(root, "check", "-j", "2")
    wait_until(run, lambda now: len(now) >= 2, "the parse workers")
    stop(run, sig)
    assert_nothing_survives(run)
    assert_said_nothing_was_published(run, sig)

    for path in sorted((root / "wiki/big").glob("*.md"))[100:]:
        path.unlink()  # the next check need not be as long
    cached, fresh = kbtool(root, "check"), kbtool(root, "check", "--no-cache")
    assert cached.returncode == fresh.returncode == 1, cached.stdout + cached.stderr
    assert _diagnostics(cached) == _diagnostics(fresh)
    assert any("gone.md" in line for line in _diagnostics(cached))


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_interrupted_cells_leave_no_page_process_behind(root: Path, sig: int) -> None:
    pages = add_big_pages(root, 3, body=SLOW_CELL)
    run = start(root, "test", "-j", "2")
    # kbtool -> warm worker -> page process -> `sleep`: two pages, each with its child.
    sleeping = lambda now: sum(depth_of(pid, run.process.pid) == 3 for pid in now) >= 2  # noqa: E731
    wait_until(run, sleeping, "two pages' cells running")
    stop(run, sig)
    assert_nothing_survives(run)
    assert_said_nothing_was_published(run, sig)

    for path in pages:
        path.write_text(f"{FRONTMATTER}# Quick\n\n{QUICK_CELL}", encoding="utf-8")
    again = kbtool(root, "test", "-j", "2")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "3 pages passed, 0 failed" in again.stdout, again.stdout


def test_pytest_interrupted_in_the_cells_leaves_no_page_process_behind(root: Path) -> None:
    add_big_pages(root, 3, body=SLOW_CELL)
    out, err = root.parent / "out.txt", root.parent / "err.txt"
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "wiki"],
            cwd=root,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
            preexec_fn=_interruptible,
        )
    run = Run(process, out, err, set())
    sleeping = lambda now: any(depth_of(pid, process.pid) == 3 for pid in now)  # noqa: E731
    wait_until(run, sleeping, "a page's cell running under pytest")
    stop(run, signal.SIGINT)
    assert process.returncode == 2, run.stdout  # pytest's "interrupted"
    assert_nothing_survives(run)


# -- crashes --------------------------------------------------------------------------------

#: kbtool's own command line, with one function replaced first (a worker or kbtool crashing).
CRASHING = """
import os, signal, sys
import {module} as target
original = target.{name}
calls = []
def crash(*args, **kwargs):
    calls.append(1)
    if len(calls) == 3:
        {crash}
    return original(*args, **kwargs)
target.{name} = crash
from kbtool.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _crash(root: Path, module: str, name: str, crash: str) -> Run:
    assert kbtool(root, "build").returncode == 0
    old = snapshot(root / "site")
    add_big_pages(root, 60)
    script = CRASHING.format(module=module, name=name, crash=crash)
    out, err = root.parent / "out.txt", root.parent / "err.txt"
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-c", script, "-C", str(root), "build", "-j", "2"],
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )
    run = Run(process, out, err, set())
    process.wait(timeout=120)
    assert_nothing_survives(run)
    assert snapshot(root / "site") == old
    assert staging_folders(root) == []
    remove_big_pages(root)
    again = kbtool(root, "build")
    assert again.returncode == 0, again.stdout + again.stderr
    return run


def test_a_worker_killed_mid_render_is_reported_in_one_line(root: Path) -> None:
    # What the kernel's OOM killer does to a render worker.
    kill = "os.kill(os.getpid(), signal.SIGKILL)"
    run = _crash(root, "kbtool.stages.render", "render_page", kill)
    assert run.process.returncode == 1
    assert "Traceback" not in run.stderr
    assert "a worker process died unexpectedly" in run.stderr


def test_kbtool_crashing_while_its_workers_render_leaves_none_of_them(root: Path) -> None:
    # A bug in kbtool itself, in the process that hands out the work and collects it.
    boom = "raise RuntimeError('a bug in kbtool')"
    run = _crash(root, "kbtool.progress", "Progress.advance", boom)
    assert run.process.returncode == 1
    assert "RuntimeError: a bug in kbtool" in run.stderr  # a bug is shown as one
