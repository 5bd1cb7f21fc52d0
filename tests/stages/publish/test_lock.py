"""The build lock: one build at a time, never held by a forked child, taken over from the dead."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtool.errors import KbtoolError
from kbtool.stages.publish.lock import build_lock

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

#: A process that takes a flock on argv[1], writes argv[2] into it, prints "locked", and then
#: either sleeps (argv[3] == "hold") or forks a child that sleeps holding it, and exits.
HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0)
os.write(fd, sys.argv[2].encode())
if sys.argv[3] == "hold":
    print("locked", flush=True)
    time.sleep(60)
child = os.fork()
if child == 0:
    time.sleep(60)
    os._exit(0)
print(child, flush=True)
"""


@pytest.fixture
def holders() -> Iterator[list[int]]:
    """Pids to kill after the test."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def hold(lock: Path, record: str, how: str, holders: list[int]) -> int:
    """Start HOLDER; the pid of the process left holding the lock."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock), record, how], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if how == "hold":
        holders.append(process.pid)
        return process.pid
    holders.append(int(line))
    process.wait()
    return int(line)


def dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], text=True, capture_output=True
    )
    return int(done.stdout)


def test_one_build_at_a_time_and_the_holder_is_named(tmp_path: Path) -> None:
    with build_lock(tmp_path):
        record = (tmp_path / "build.lock").read_text().split()
        assert int(record[0]) == os.getpid()
        with (
            pytest.raises(
                KbtoolError, match=f"another build of this site is running \\(pid {os.getpid()}\\)"
            ),
            build_lock(tmp_path),
        ):
            pass
    with build_lock(tmp_path):  # released
        pass


def test_a_live_holder_keeps_the_lock(tmp_path: Path, holders: list[int]) -> None:
    pid = hold(tmp_path / "build.lock", "", "hold", holders)  # names nobody: /proc/locks does
    with pytest.raises(KbtoolError, match=f"pid {pid}"), build_lock(tmp_path):
        pass


def test_a_forked_child_does_not_inherit_the_lock(tmp_path: Path, holders: list[int]) -> None:
    # kbtool takes the lock, forks a worker (which never learns to die with its parent) and is
    # killed: the worker lives on, and must not keep the next build out.
    script = (
        "import os, sys, time\n"
        "from pathlib import Path\n"
        "from kbtool.stages.publish.lock import build_lock\n"
        "with build_lock(Path(sys.argv[1])):\n"
        "    child = os.fork()\n"
        "    if child == 0:\n"
        "        null = os.open(os.devnull, os.O_RDWR)\n"
        "        os.dup2(null, 1), os.dup2(null, 2)  # let `run` see the end of its output\n"
        "        time.sleep(60)\n"
        "        os._exit(0)\n"
        "    print(child, flush=True)\n"
        "    os.kill(os.getpid(), 9)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode == -signal.SIGKILL
    holders.append(int(done.stdout))
    assert os.path.exists(f"/proc/{done.stdout.strip()}")
    with build_lock(tmp_path):
        pass


def test_a_lock_whose_recorded_holder_is_dead_is_taken_over(
    tmp_path: Path, holders: list[int]
) -> None:
    lock = tmp_path / "build.lock"
    keeper = hold(lock, f"{dead_pid()} 1\n", "hold", holders)
    with build_lock(tmp_path):
        assert int(lock.read_text().split()[0]) == os.getpid()
    assert os.path.exists(f"/proc/{keeper}")  # still holding the old file, which nobody asks for
    with build_lock(tmp_path):  # and the new file is free again
        pass


def test_the_orphans_of_a_build_that_recorded_nothing_do_not_keep_the_lock(
    tmp_path: Path, holders: list[int]
) -> None:
    # An older kbtool wrote no pid, died, and its forked workers kept the lock: /proc/locks
    # still names the dead process that took it.
    orphan = hold(tmp_path / "build.lock", "", "fork", holders)  # its parent has exited
    assert os.path.exists(f"/proc/{orphan}")
    with build_lock(tmp_path):
        pass
