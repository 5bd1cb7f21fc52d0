"""Processes that end together: parent-death signals, stop signals as interrupts, pools."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kbtool import lifecycle
from kbtool.lifecycle import Interrupted, signals_as_interrupts, signals_deferred, worker_pool

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux prctl and /proc")


def _gone(pid: int, seconds: float = 5.0) -> bool:
    """Whether ``pid`` exits (or is a zombie) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    return True
        except OSError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


def _run_and_exit(code: str) -> int:
    """Run ``code`` in a process that prints a pid and exits; that pid."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=True
    )
    return int(done.stdout)


@linux
def test_a_child_dies_with_its_parent() -> None:
    code = (
        "import os, time\n"
        "from kbtool.lifecycle import die_with_parent\n"
        "parent = os.getpid()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    os.dup2(os.open(os.devnull, os.O_RDWR), 1)\n"
        "    die_with_parent(parent)\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "print(child)\n"
    )
    assert _gone(_run_and_exit(code))


@linux
def test_a_child_whose_parent_died_before_it_asked_exits_at_once(tmp_path: Path) -> None:
    survived = tmp_path / "survived"
    code = (
        "import os, sys, time\n"
        "from kbtool.lifecycle import die_with_parent\n"
        "parent = os.getpid()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    os.dup2(os.open(os.devnull, os.O_RDWR), 1)\n"
        "    while os.getppid() == parent:\n"
        "        time.sleep(0.01)\n"
        "    die_with_parent(parent)  # too late for the signal: it must see that\n"
        f"    open({str(survived)!r}, 'w').close()\n"
        "    os._exit(0)\n"
        "print(child)\n"
    )
    assert _gone(_run_and_exit(code))
    assert not survived.exists()


@linux
def test_sigterm_is_raised_as_an_interrupt_and_the_handlers_are_restored() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Interrupted) as caught, signals_as_interrupts():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
    assert isinstance(caught.value, KeyboardInterrupt)
    assert lifecycle.exit_code(caught.value) == 143
    assert lifecycle.interrupted_line(caught.value, published=False) == (
        "kbtool: interrupted (SIGTERM); nothing was published"
    )
    assert "after the new site was published" in lifecycle.interrupted_line(caught.value, True)
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_deferred_step_finishes_before_the_interrupt() -> None:
    steps = []
    with pytest.raises(Interrupted), signals_as_interrupts():
        with signals_deferred():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            steps.append("done")
        steps.append("after")  # never: the interrupt comes as the step ends
    assert steps == ["done"]


def test_an_interrupt_raised_inside_a_finalizer_is_not_lost() -> None:
    class Finalized:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGTERM)
            sum(range(1000))  # the handler runs here, where Python drops what it raises

    with pytest.raises(Interrupted), signals_as_interrupts():
        Finalized()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            time.sleep(0.01)


@linux
def test_leaving_a_pool_early_kills_its_workers_at_once() -> None:
    with pytest.raises(RuntimeError), worker_pool(2) as pool:
        futures = [pool.submit(time.sleep, 3600) for _ in range(4)]  # never finishes by itself
        workers = list(pool._processes)
        raise RuntimeError("a bug")
    assert all(_gone(pid, 0) for pid in workers)
    assert all(future.done() for future in futures)


@linux
def test_workers_ignore_ctrl_c_and_do_not_keep_kbtools_handlers() -> None:
    with signals_as_interrupts(), worker_pool(1) as pool:
        handlers = pool.submit(_handlers).result()
    assert handlers == (signal.SIG_IGN, signal.SIG_DFL)


def _handlers() -> tuple[object, object]:
    return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)


def test_a_listener_is_told_of_each_site_swapped_in_while_it_listens() -> None:
    heard: list[int] = []
    with lifecycle.telling_published(lambda: heard.append(lifecycle.publications())):
        lifecycle.note_published()
        lifecycle.note_published()
    lifecycle.note_published()
    assert len(heard) == 2 and heard[1] == heard[0] + 1


_ENDING = """
import atexit, sys, threading
from kbtool import lifecycle

class Held:
    def __del__(self):
        print("freed", flush=True)

held = Held()  # freed by the interpreter's teardown, if it runs
atexit.register(print, "handler ran")
print("output", end="")
if sys.argv[1] == "thread":
    threading.Thread(target=threading.Event().wait, args=(0.2,)).start()
lifecycle.exit_at_once(3)
"""


@pytest.mark.parametrize("threads", ["alone", "thread"])
def test_the_process_ends_with_its_code_its_output_and_handlers_and_no_teardown_when_alone(
    threads: str,
) -> None:
    """A one-shot command ends without the teardown that frees every object one by one; a
    thread still running gets the usual exit, which waits for it."""
    done = subprocess.run(
        [sys.executable, "-c", _ENDING, threads], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 3
    assert done.stdout.startswith("outputhandler ran\n")
    assert ("freed" in done.stdout) == (threads == "thread")
