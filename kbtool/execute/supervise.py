"""The worker's side of one page process: fork it, watch it, enforce limits, build its result.

The page process (see :mod:`kbtool.execute.child`) reports cell starts and outcomes on a pipe;
its standard output and error are two more pipes read here, each cell's share kept up to the
output limit. Wall time per cell and output size are enforced from here, by killing the page's
process group: a cell cannot catch that. When the process is gone, whatever it left running
is killed, its temporary folder removed, and one :class:`PageResult` built.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kbtool.execute import procs
from kbtool.execute.child import remove_tree, run_page
from kbtool.execute.output import CappedBuffer, CellSplitter, mebibytes
from kbtool.execute.protocol import LineReader, ProtocolError
from kbtool.execute.results import CellResult, PageResult, PageStatus, to_dict

_CHUNK = 1 << 16
_READS_PER_TURN = 32


@dataclass(frozen=True, slots=True)
class Failure:
    """Why a page did not end normally: the cell to blame (a position), if any, and a code."""

    position: int | None
    reason: str
    code: str


class PageProcess:
    def __init__(self, request: dict[str, Any], network: int | None = None) -> None:
        self.nonce = secrets.token_hex(8)
        self.request = {**request, "nonce": self.nonce, "worker": os.getpid()}
        self.cells: list[dict[str, Any]] = request["cells"]
        limit = request["output_limit"]
        self.runnable = [i for i, cell in enumerate(self.cells) if cell["mode"] != "skip"]
        self.current = self.runnable[0] if self.runnable else 0  # the cell running (or next)
        self.outcomes: dict[int, dict[str, Any]] = {}
        self.started: dict[int, float] = {}
        self.ended = False
        self.left: list[str] = []  # what the cells left running (killed by the page process)
        self.crash: str | None = None
        self.stopped: Failure | None = None  # set when the worker stopped the page
        self.reader = LineReader()
        self.pid = 0
        self.deadline = 0.0
        self.streams: dict[int, _Stream] = {}
        self._limit = limit
        self.status: int | None = None  # wait status, once the process has exited
        self.network = network  # the namespace with network, when the worker left it
        self.reported = False

    # -- starting ---------------------------------------------------------------------------

    def start(self) -> None:
        # Made and removed by the page process itself (the worker serves every page, so its
        # own time is the scarce one); the worker removes it only if the page process died.
        self.workdir = os.path.join(tempfile.gettempdir(), f"kbtool-page-{self.nonce}")
        control_r, control_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        self.clock = time.monotonic()
        pid = os.fork()
        if pid == 0:
            run_page(self.request, (control_w, stdout_w, stderr_w), self.workdir, self.network)
        for fd in (control_w, stdout_w, stderr_w):
            os.close(fd)
        # Also done by the child: whichever runs first, the group exists before any kill.
        with contextlib.suppress(PermissionError, ProcessLookupError):
            os.setpgid(pid, pid)
        for fd in (control_r, stdout_r, stderr_r):
            os.set_blocking(fd, False)
        self.pid = pid
        self.control = control_r
        first = self.current
        self.streams = {
            stdout_r: _Stream(self.nonce, self._limit, len(self.cells), first),
            stderr_r: _Stream(self.nonce, self._limit, len(self.cells), first),
        }
        self.out, self.err = stdout_r, stderr_r
        self.pidfd = procs.pidfd(pid)
        self.deadline = self.clock + self._timeout(self.current)

    def fds(self) -> list[int]:
        fds = [self.control, self.out, self.err]
        return fds + [self.pidfd] if self.pidfd is not None else fds

    # -- events -----------------------------------------------------------------------------

    def on_readable(self, fd: int) -> bool:
        """Read what ``fd`` has; False once it is at end of file (stop polling it)."""
        if fd == self.pidfd:
            return True  # the caller asks has_exited()
        data, open_ = _read_available(fd)
        if fd == self.control:
            self._on_messages(data)
        elif data:
            self._on_output(fd, data)
        return open_

    def _on_output(self, fd: int, data: bytes) -> None:
        stream = self.streams[fd]
        overflowed = stream.feed(data, self._next_runnable)
        if overflowed is not None and self.stopped is None:
            limit = mebibytes(self._limit)
            reason = f"output exceeded the limit of {limit} a cell (output-limit-kb); page stopped"
            self.stop(Failure(overflowed, reason, "KB407"))

    def _next_runnable(self, position: int) -> int:
        later = [i for i in self.runnable if i > position]
        return later[0] if later else position

    def _on_messages(self, data: bytes) -> None:
        try:
            messages = self.reader.feed(data)
        except ProtocolError as error:
            reason = f"the page process wrote garbage on its report pipe ({error})"
            self.stop(Failure(None, reason, "KB408"))
            return
        for message in messages:
            if "start" in message:
                # The page process's clock is ours (CLOCK_MONOTONIC): a late look here does
                # not lengthen the cell's time.
                self.current = message["start"]
                self.started[self.current] = message["at"]
                self.deadline = message["at"] + self._timeout(self.current)
            elif "cell" in message:
                self.outcomes[message["cell"]] = message
                self.deadline = time.monotonic() + self._timeout(message["cell"] + 1)
            elif "end" in message:
                self.ended, self.left = True, [str(name) for name in message.get("left", [])]
            elif "crash" in message:
                self.crash = str(message["crash"])

    def _timeout(self, position: int) -> float:
        cells = self.cells
        return float(cells[min(position, len(cells) - 1)]["timeout"]) if cells else 60.0

    def check_deadline(self, now: float) -> None:
        if self.stopped is None and not self.ready and now > self.deadline:
            position = self.current if self.current in self.started else None
            seconds = self._timeout(self.current)
            reason = (
                f"timed out after {seconds:g} s (cell timeout; set timeout=N in its fence info)"
            )
            self.stop(Failure(position, reason, "KB406"))

    def stop(self, failure: Failure) -> None:
        self.stopped = failure
        procs.kill_group(self.pid)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)

    def abandon(self) -> None:
        procs.kill_group(self.pid)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        self.clean_up()

    def has_exited(self) -> bool:
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid == 0:
                return False
            self.status = status
        return True

    # -- the end ----------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        """Whether the result can be reported: the process has exited, or it said it ended
        (having killed whatever the cells left running). Its exit (tearing down a copy of numpy
        and matplotlib takes milliseconds) then need not be waited for: :meth:`clean_up`
        follows later."""
        return self.status is not None or self.ended

    def report(self, keep: set[int]) -> dict[str, Any]:
        """The page's result as a dict. A page process that did not end normally (timed out,
        crashed) could not clean up: what it left is re-parented to the worker and killed."""
        self._drain(self.control, self._on_messages)
        if self.status is not None and (not self.ended or self.stopped is not None):
            procs.kill_orphans(keep)
            procs.kill_group(self.pid)
        # With every writer gone (or finished), the output pipes hold all there is to read.
        for fd, stream in self.streams.items():
            self._drain(fd, lambda data, fd=fd: self._on_output(fd, data))
            stream.close()
        self.reported = True
        return to_dict(self._result(time.monotonic() - self.clock))

    def clean_up(self) -> None:
        """After the exit: nothing of the page may remain, not even its scratch folder."""
        procs.kill_group(self.pid)
        for fd in self.fds():
            os.close(fd)
        if os.path.lexists(self.workdir):
            remove_tree(self.workdir)

    @staticmethod
    def _drain(fd: int, consume: Any) -> None:
        while True:
            data, open_ = _read_available(fd)
            if data:
                consume(data)
            if not data or not open_:
                return

    def _result(self, duration: float) -> PageResult:
        failure = self._failure()
        cells = [self._cell_result(i, cell, failure) for i, cell in enumerate(self.cells)]
        reason, code = (failure.reason, failure.code) if failure else (None, None)
        first = next((i for i, c in enumerate(cells) if c.status == "failed"), None)
        if first is not None and (failure is None or failure.position is not None):
            reason = f"cell-{self.cells[first]['number']}: {cells[first].reason}"
            code = cells[first].code
        status: PageStatus = "failed" if reason is not None else "passed"
        return PageResult(self.request["path"], status, tuple(cells), duration, reason, code=code)

    def _failure(self) -> Failure | None:
        """What stopped the page, if it did not end normally."""
        if self.stopped is not None:
            return self.stopped
        if self.crash is not None:
            last = self.crash.strip().splitlines()[-1]
            return Failure(None, f"kbtool error in the page process: {last}", "KB410")
        if not self.ended:
            running = self.current in self.started and self.current not in self.outcomes
            assert self.status is not None, "a page that did not end has exited"
            return Failure(self.current if running else None, _death(self.status), "KB408")
        if self.left:
            names = ", ".join(sorted(set(self.left)))
            count = f"{len(self.left)} processes" if len(self.left) > 1 else "a process"
            return Failure(None, f"cells left {count} running ({names}); killed", "KB409")
        return None

    def _cell_result(
        self, position: int, cell: dict[str, Any], failure: Failure | None
    ) -> CellResult:
        index, line = cell["index"], cell["line"]
        stdout, stderr = (self.streams[fd].buffers[position].text() for fd in (self.out, self.err))
        outcome = self.outcomes.get(position)
        if failure is not None and position == failure.position:
            took = time.monotonic() - self.started.get(position, self.clock)
            return CellResult(
                index,
                line,
                "failed",
                took,
                stdout,
                stderr,
                reason=failure.reason,
                code=failure.code,
            )
        if outcome is not None:
            return CellResult(
                index,
                line,
                outcome["status"],
                outcome["duration"],
                stdout,
                stderr,
                outcome["value"],
                tuple(outcome["figures"]),
                outcome["reason"],
                outcome["error"],
                outcome["error_line"],
                outcome["code"],
                outcome.get("value_data"),
                tuple(outcome.get("displays", ())),
            )
        if cell["mode"] == "skip":
            return CellResult(index, line, "skipped", reason="skip-execution")
        return CellResult(index, line, "not-run", stdout=stdout, stderr=stderr)


class _Stream:
    """One output pipe of a page process: split at end-of-cell markers, kept per cell."""

    def __init__(self, nonce: str, limit: int, cells: int, first: int) -> None:
        self.splitter = CellSplitter(nonce)
        self.buffers = [CappedBuffer(limit) for _ in range(cells)]
        self.owner = first  # the cell whose output comes now

    def feed(self, data: bytes, next_cell: Callable[[int], int]) -> int | None:
        """Charge ``data`` to its cells; the position of a cell that went over the limit."""
        overflowed = None
        for chunk, ended in self.splitter.feed(data):
            if chunk and self.buffers:
                buffer = self.buffers[self.owner]
                buffer.add(chunk)
                if buffer.overflowed and overflowed is None:
                    overflowed = self.owner
            if ended is not None:
                self.owner = next_cell(ended)
        return overflowed

    def close(self) -> None:
        rest = self.splitter.flush()
        if rest and self.buffers:
            self.buffers[self.owner].add(rest)


def _read_available(fd: int) -> tuple[bytes, bool]:
    """What ``fd`` holds now (up to a bound, so a cell printing without end cannot keep the
    worker from its clocks), and whether it is still open (not at end of file)."""
    chunks: list[bytes] = []
    while len(chunks) < _READS_PER_TURN:
        try:
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:
            return b"".join(chunks), True
        if not chunk:
            return b"".join(chunks), False
        chunks.append(chunk)
    return b"".join(chunks), True


def _death(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        name = signal.Signals(number).name if number in signal.valid_signals() else str(number)
        hint = " (out of memory?)" if number == signal.SIGKILL else ""
        return f"the page process was killed by {name}{hint}"
    code = os.waitstatus_to_exitcode(status)
    return f"the page process exited with status {code} (os._exit or a crash)"
