"""How kbtool's processes end: all together, and with their ``finally`` blocks run.

However the kbtool process ends, no process it started outlives it by more than a moment:

- SIGTERM and SIGHUP (``timeout``, a cancelled CI job, a closed terminal) are raised as
  :class:`Interrupted`, a ``KeyboardInterrupt``, exactly like Ctrl-C: every ``finally`` runs, so
  the staging folder is removed, the workers are stopped and the build lock is released
  (:func:`signals_as_interrupts`). The command then prints one line (:func:`interrupted_line`).
- Worker pools (:func:`worker_pool`) fork workers that receive SIGKILL when kbtool dies, even by
  SIGKILL or a crash (``PR_SET_PDEATHSIG``), ignore Ctrl-C (kbtool stops them itself), and are
  killed at once when kbtool leaves the pool early, instead of finishing the queued work.

The warm worker of :mod:`kbtool.execute` and its page processes use :func:`die_with_parent` too.

A command run as ``kbtool`` ends without freeing what it holds (:func:`exit_at_once`).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

from kbtool import collector
from kbtool.errors import KbtoolError

if TYPE_CHECKING:  # imported when a pool is made: `kbtool check` with nothing to parse needs none
    import ctypes
    from concurrent.futures import ProcessPoolExecutor

_PR_SET_PDEATHSIG = 1
#: The signals that stop a command the way Ctrl-C does.
STOP_SIGNALS = tuple(
    getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)
)


class Interrupted(KeyboardInterrupt):
    """A stop signal, raised where the main thread is, so that ``finally`` blocks clean up."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


# -- dying with the parent ------------------------------------------------------------------


@functools.cache
def _libc() -> ctypes.CDLL | None:
    import ctypes.util

    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    except OSError:
        return None


def die_with_parent(parent: int | None, sig: int = signal.SIGKILL) -> bool:
    """Receive ``sig`` when the parent exits; exit now if ``parent`` has already gone.

    ``parent`` is the parent's pid as the parent saw it before starting this process: had it
    died before the signal was asked for, the signal would never come, and ``getppid()`` names
    whoever adopted us instead. The signal follows the parent *thread* that forked: start
    workers from the thread that outlives them (the main thread, in kbtool). False where the
    kernel offers no such signal (not Linux).
    """
    libc = _libc()
    armed = (
        libc is not None
        and hasattr(libc, "prctl")
        and libc.prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0) == 0
    )
    if parent is not None and os.getppid() != parent:
        os._exit(1)
    return armed


def _watch_parent(parent: int) -> None:
    """Where there is no parent-death signal: look for the parent twice a second."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _start_worker(parent: int, then: Callable[..., object] | None, args: tuple[Any, ...]) -> None:
    """Pool initializer, run in each forked worker before any work; then the caller's."""
    # What the worker inherited lives as long as it does: frozen, the garbage collector never
    # walks it (nor copies its memory pages by touching them).
    collector.hold()
    _leave_stop_signals_to_kbtool()
    if not die_with_parent(parent):
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if then is not None:
        then(*args)


@contextlib.contextmanager
def worker_pool(
    jobs: int, initializer: Callable[..., object] | None = None, initargs: tuple[Any, ...] = ()
) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``jobs`` forked workers that end with this process and with this block.
    ``initializer(*initargs)`` runs in each worker first; being forked, the workers inherit
    ``initargs`` as they are, without pickling them.

    Leaving the block by an exception (Ctrl-C, SIGTERM, a bug) kills the workers at once; the
    work they had not done is dropped. A worker that dies (the kernel's OOM killer) becomes a
    :class:`KbtoolError`, unless a stop signal is what killed it.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(
        jobs,
        mp_context=context,
        initializer=_start_worker,
        initargs=(os.getpid(), initializer, initargs),
    )
    try:
        # A forking pool starts all its workers at the first task. Interrupted half-way, it
        # would lose track of a worker it had forked, and wait for it at exit: so not then.
        with signals_deferred():
            pool.submit(int)
        yield pool
    except BrokenProcessPool as error:
        _kill_workers(pool)
        if _received is not None:  # `timeout` signals the workers too; that is not their fault
            raise Interrupted(_received) from None
        raise KbtoolError(
            "a worker process died unexpectedly (out of memory?); nothing was published"
        ) from error
    except BaseException:
        _kill_workers(pool)
        raise
    finally:
        pool.shutdown(wait=True)  # at once, when the workers are dead


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    # The pool's manager thread fails every pending future once it sees the workers die, and
    # (Python 3.11) raises in its thread on one already cancelled, as `map` cancels them. It
    # is given a fresh future to fail instead (its own table is never touched from here).
    from concurrent.futures import Future

    for item in list(pool._pending_work_items.values()):
        if item.future.cancelled():
            item.future = Future()
    processes = list((pool._processes or {}).values())
    for process in processes:
        with contextlib.suppress(OSError):
            process.kill()
    for process in processes:
        process.join(timeout=5)
    # A worker killed while it sent a result leaves half a message in the result pipe, and the
    # manager thread would wait forever for the rest: this process holds the pipe's write end
    # too. Closing it ends the pipe, so the thread reads end-of-file and gives up.
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        writer.close()


# -- stop signals ---------------------------------------------------------------------------

_received: int | None = None
_installed_in: int | None = None  # the pid whose handlers :func:`signals_as_interrupts` set
_deferring = 0
_pending: int | None = None


def _interrupt(signum: int, frame: FrameType | None) -> None:
    global _received, _pending
    _received = signum
    if _deferring:
        _pending = signum
        return
    raise Interrupted(signum)


@contextlib.contextmanager
def signals_as_interrupts() -> Iterator[None]:
    """Within the block, SIGINT, SIGTERM and SIGHUP raise :class:`Interrupted`.

    Signals that were ignored when kbtool started (``nohup``) stay ignored; outside the main
    thread (where Python cannot set handlers) this does nothing.
    """
    global _received, _installed_in
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received, _installed_in = None, os.getpid()
    previous = {}
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            previous[sig] = signal.signal(sig, _interrupt)
    hook = sys.unraisablehook
    sys.unraisablehook = functools.partial(_raise_again, hook)
    try:
        yield
    finally:
        _installed_in = None
        sys.unraisablehook = hook
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _raise_again(hook: Callable[[Any], object], unraisable: Any) -> None:
    """An interrupt raised where Python drops exceptions (a finalizer, the handlers a fork
    runs: ``logging`` has one) would be lost: send the signal again a moment later, when this
    process is back in plain code (and again, should that be another such place)."""
    if not isinstance(unraisable.exc_value, Interrupted):
        hook(unraisable)
    elif os.getpid() == _installed_in:
        resend = threading.Timer(0.02, _resend, (unraisable.exc_value.signum,))
        resend.daemon = True
        resend.start()


def _resend(signum: int) -> None:
    if os.getpid() == _installed_in:  # not once the command is over and its handlers gone
        os.kill(os.getpid(), signum)


def _forked_child() -> None:
    """A child forked while kbtool's handlers are set (a pool worker) must not run them: the
    stop signals are kbtool's to handle; Ctrl-C reaches the child too, and is ignored."""
    if _installed_in is not None:
        _leave_stop_signals_to_kbtool()
        sys.unraisablehook = sys.__unraisablehook__


def _leave_stop_signals_to_kbtool() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for kbtool, which stops us
    for sig in STOP_SIGNALS[1:]:
        signal.signal(sig, signal.SIG_DFL)  # not kbtool's handler, inherited through the fork


if hasattr(os, "register_at_fork"):  # not on Windows, where nothing forks
    os.register_at_fork(after_in_child=_forked_child)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """A step that must not be cut in half (the swap of the site): a stop signal arriving
    meanwhile is raised when it is done."""
    global _deferring, _pending
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
        pending = _pending if not _deferring else None
        if not _deferring:
            _pending = None
    if pending is not None:  # the step is done: now the signal does what it came to do
        raise Interrupted(pending)


# -- what an interrupted command says -------------------------------------------------------

_publications = 0
#: told at once when a site is swapped in (serve tells the waiting browsers)
_on_published: list[Callable[[], None]] = []


def note_published() -> None:
    """Called when a new site has been swapped in."""
    global _publications
    _publications += 1
    for listener in list(_on_published):
        listener()


@contextlib.contextmanager
def telling_published(listener: Callable[[], None]) -> Iterator[None]:
    """Call ``listener`` inside, as each new site is swapped in (before its build ends)."""
    _on_published.append(listener)
    try:
        yield
    finally:
        _on_published.remove(listener)


def publications() -> int:
    """How many sites this process has published: compare before and after a command."""
    return _publications


def signal_name(interrupt: BaseException) -> str:
    signum = getattr(interrupt, "signum", signal.SIGINT)
    return signal.Signals(signum).name


def exit_code(interrupt: BaseException) -> int:
    """128 + the signal's number, as a shell reports a process the signal ended."""
    return 128 + int(getattr(interrupt, "signum", signal.SIGINT))


def interrupted_line(interrupt: BaseException, published: bool) -> str:
    """The one line an interrupted command prints."""
    name = signal_name(interrupt)
    if published:
        return f"kbtool: interrupted ({name}) after the new site was published"
    return f"kbtool: interrupted ({name}); nothing was published"


# -- the end of the process -----------------------------------------------------------------


def exit_at_once(code: int) -> NoReturn:
    """End the process with ``code``: the exit handlers run (workers, temporary folders) and
    the output is flushed, but the interpreter's teardown, which frees every object one by
    one (0.5 s after a one-shot build of 7,000 pages), is skipped. Only with the main thread
    alone: another thread is left to end as it would, with the usual exit."""
    if threading.active_count() == 1:
        atexit._run_exitfuncs()
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed pipe or stream: the usual exit reports it
            pass
        else:
            os._exit(code)
    sys.exit(code)
