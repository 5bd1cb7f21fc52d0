"""A time limit for a piece of the project's own code (a rule), in any thread.

A signal (``SIGALRM``) reaches only the main thread, and the language server checks in
another. Instead one watchdog thread per process looks at the deadlines of the threads that
run limited code and, once one is past, raises :class:`PastDeadline` in that thread
(``PyThreadState_SetAsyncExc``): pure Python code stops at its next bytecode. A C call that
never returns (a ``time.sleep(3600)`` in a thread other than the main one) is not stopped
until it returns. :class:`PastDeadline` is a ``BaseException``, so that ``except Exception``
in a rule does not swallow it; it is raised again while the code goes on.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: How often the watchdog looks, at most (seconds).
_TICK = 0.02


class PastDeadline(BaseException):  # noqa: N818 - not an error of the code, a stop
    """Raised in a thread whose limited code ran past its deadline."""


_lock = threading.Lock()
_wake = threading.Condition(_lock)
#: thread id -> (deadline on the monotonic clock, token of the limited call)
_deadlines: dict[int, tuple[float, int]] = {}
#: token of each call an exception was raised in -> when (raised again each _AGAIN seconds)
_fired: dict[int, float] = {}
_AGAIN = 0.5
_watchdog_pid: int | None = None
#: when the watchdog looks next (monotonic clock)
_next_look = float("inf")
_tokens = iter(range(1, 2**62))


def _set_async(thread: int, exception: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread), ctypes.py_object(exception) if exception else None
    )


def _watch() -> None:
    global _next_look
    with _lock:
        while True:
            now = time.monotonic()
            for thread, (deadline, token) in list(_deadlines.items()):
                if now >= deadline and now - _fired.get(token, -_AGAIN) >= _AGAIN:
                    _fired[token] = now
                    _set_async(thread, PastDeadline)
            if _deadlines:
                soonest = min(deadline for deadline, _ in _deadlines.values())
                wait = min(max(_TICK, soonest - now), 1.0)
                _next_look = now + wait
                _wake.wait(wait)
            else:
                _next_look = float("inf")
                _wake.wait()


def _after_fork() -> None:
    """A forked worker starts afresh: the watchdog did not come along, and its lock may have
    been held when the process forked."""
    global _lock, _wake, _watchdog_pid, _next_look
    _lock = threading.Lock()
    _wake = threading.Condition(_lock)
    _deadlines.clear()
    _fired.clear()
    _watchdog_pid, _next_look = None, float("inf")


os.register_at_fork(after_in_child=_after_fork)


def _ensure_watchdog() -> None:
    """Start the process's watchdog (again, in a forked worker: threads do not survive)."""
    global _watchdog_pid, _next_look
    if _watchdog_pid != os.getpid():
        _watchdog_pid, _next_look = os.getpid(), float("inf")
        threading.Thread(target=_watch, name="kbtool-deadline", daemon=True).start()


def call_within(seconds: float, function: Callable[[], T]) -> T:
    """``function()``; :class:`PastDeadline` if it ran longer than ``seconds``."""
    thread = threading.get_ident()
    with _lock:
        _ensure_watchdog()
        token = next(_tokens)
        outer = _deadlines.get(thread)
        ends = time.monotonic() + seconds
        _deadlines[thread] = (ends, token)
        if ends < _next_look:  # the watchdog would look too late (seldom: it sleeps till the next)
            _wake.notify()
    late = False
    try:
        return function()
    except PastDeadline:
        late = True
        raise
    finally:
        while True:  # an exception delivered now must not leave the deadline behind
            try:
                late = _stop(thread, token, outer) or late
                break
            except PastDeadline:
                late = True
        if late:
            raise PastDeadline  # noqa: B012 - the stop, whatever else was in flight


def _stop(thread: int, token: int, outer: tuple[float, int] | None) -> bool:
    """Take the call's deadline off; whether an exception was raised for it."""
    with _lock:
        if outer is None:
            _deadlines.pop(thread, None)
        else:
            _deadlines[thread] = outer
        fired = _fired.pop(token, None) is not None
        if fired:
            _set_async(thread, None)  # one raised but not delivered yet: not after the call
        return fired
