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
import shutil
import signal
import stat
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from kbtool.execute import procs
from kbtool.execute.child import run_page
from kbtool.execute.output import CappedBuffer, mebibytes
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
    def __init__(self, request: dict[str, Any]) -> None:
        self.request = request
        self.cells: list[dict[str, Any]] = request["cells"]
        limit = request["output_limit"]
        self.stdout = [CappedBuffer(limit) for _ in self.cells]
        self.stderr = [CappedBuffer(limit) for _ in self.cells]
        self.outcomes: dict[int, dict[str, Any]] = {}
        self.started: dict[int, float] = {}
        runnable = [i for i, cell in enumerate(self.cells) if cell["mode"] != "skip"]
        self.current = runnable[0] if runnable else 0  # the cell that output is charged to
        self.ended = False
        self.leftover = False
        self.crash: str | None = None
        self.stopped: Failure | None = None  # set when the worker stopped the page
        self.reader = LineReader()
        self.pid = 0
        self.deadline = 0.0

    # -- starting ---------------------------------------------------------------------------

    def start(self) -> None:
        self.workdir = tempfile.mkdtemp(prefix="kbtool-page-")
        control_r, control_w = os.pipe()
        go_r, go_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        self.clock = time.monotonic()
        pid = os.fork()
        if pid == 0:
            run_page(self.request, (control_w, go_r, stdout_w, stderr_w), self.workdir)
        for fd in (control_w, go_r, stdout_w, stderr_w):
            os.close(fd)
        self.go = go_w
        # Also done by the child: whichever runs first, the group exists before any kill.
        with contextlib.suppress(PermissionError, ProcessLookupError):
            os.setpgid(pid, pid)
        for fd in (control_r, stdout_r, stderr_r):
            os.set_blocking(fd, False)
        self.pid = pid
        self.control, self.out, self.err = control_r, stdout_r, stderr_r
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
            self._charge_output(fd, data)
        return open_

    def _charge_output(self, fd: int, data: bytes) -> None:
        buffers = self.stdout if fd == self.out else self.stderr
        buffer = buffers[self.current]
        buffer.add(data)
        if buffer.overflowed and self.stopped is None:
            limit = mebibytes(buffer.limit)
            reason = f"output exceeded the limit of {limit} a cell (output-limit-kb); page stopped"
            self.stop(Failure(self.current, reason, "KB407"))

    def _drain_output(self) -> None:
        for fd in (self.out, self.err):
            data, _ = _read_available(fd)
            if data:
                self._charge_output(fd, data)

    def _on_messages(self, data: bytes) -> None:
        try:
            messages = self.reader.feed(data)
        except ProtocolError as error:
            reason = f"the page process wrote garbage on its report pipe ({error})"
            self.stop(Failure(None, reason, "KB408"))
            return
        for message in messages:
            now = time.monotonic()
            if "start" in message:
                self.current = message["start"]
                self.started[self.current] = now
                self.deadline = now + self._timeout(self.current)
            elif "cell" in message:
                # The page process waits for our go-ahead after each cell, so what is in the
                # pipes now is this cell's output and none of the next one's.
                self._drain_output()
                self.outcomes[message["cell"]] = message
                self.deadline = now + self._timeout(message["cell"] + 1)
                if message["status"] != "failed":
                    self._go_ahead()
            elif "end" in message:
                self.ended, self.leftover = True, bool(message.get("leftover"))
            elif "crash" in message:
                self.crash = str(message["crash"])

    def _go_ahead(self) -> None:
        # The page process may have died meanwhile; its exit tells the rest.
        with contextlib.suppress(BrokenPipeError):
            os.write(self.go, b"+")

    def _timeout(self, position: int) -> float:
        cells = self.cells
        return float(cells[min(position, len(cells) - 1)]["timeout"]) if cells else 60.0

    def check_deadline(self, now: float) -> None:
        if self.stopped is None and now > self.deadline:
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
        _remove_tree(self.workdir)

    def has_exited(self) -> bool:
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        if pid == 0:
            return False
        self.status = status
        return True

    # -- the end ----------------------------------------------------------------------------

    def finish(self, keep: set[int]) -> dict[str, Any]:
        """Once the process has exited: drain, clean up, and the page's result as a dict."""
        self._drain(self.control, self._on_messages)
        left = []
        if not (self.ended and not self.leftover) or procs.kill_group(self.pid):
            left = procs.kill_orphans(keep)
            procs.kill_group(self.pid)
        # Only now, with every writer gone, can the output pipes be read to their end.
        self._drain(self.out, lambda data: self._charge_output(self.out, data))
        self._drain(self.err, lambda data: self._charge_output(self.err, data))
        for fd in (*self.fds(), self.go):
            os.close(fd)
        _remove_tree(self.workdir)
        return to_dict(self._result(left, time.monotonic() - self.clock))

    @staticmethod
    def _drain(fd: int, consume: Any) -> None:
        while True:
            data, open_ = _read_available(fd)
            if data:
                consume(data)
            if not data or not open_:
                return

    def _result(self, left: list[str], duration: float) -> PageResult:
        failure = self._failure(left)
        cells = [self._cell_result(i, cell, failure) for i, cell in enumerate(self.cells)]
        reason, code = (failure.reason, failure.code) if failure else (None, None)
        first = next((i for i, c in enumerate(cells) if c.status == "failed"), None)
        if first is not None and (failure is None or failure.position is not None):
            reason = f"cell-{self.cells[first]['number']}: {cells[first].reason}"
            code = cells[first].code
        status: PageStatus = "failed" if reason is not None else "passed"
        return PageResult(self.request["path"], status, tuple(cells), duration, reason, code=code)

    def _failure(self, left: list[str]) -> Failure | None:
        """What stopped the page, if it did not end normally."""
        if self.stopped is not None:
            return self.stopped
        if self.crash is not None:
            last = self.crash.strip().splitlines()[-1]
            return Failure(None, f"kbtool error in the page process: {last}", "KB410")
        if not self.ended:
            running = self.current in self.started and self.current not in self.outcomes
            return Failure(self.current if running else None, _death(self.status), "KB408")
        if self.leftover or left:
            names = ", ".join(sorted(set(left))) or "?"
            count = f"{len(left)} processes" if len(left) > 1 else "a process"
            return Failure(None, f"cells left {count} running ({names}); killed", "KB409")
        return None

    def _cell_result(
        self, position: int, cell: dict[str, Any], failure: Failure | None
    ) -> CellResult:
        index, line = cell["index"], cell["line"]
        stdout, stderr = self.stdout[position].text(), self.stderr[position].text()
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
            )
        if cell["mode"] == "skip":
            return CellResult(index, line, "skipped", reason="skip-execution")
        return CellResult(index, line, "not-run", stdout=stdout, stderr=stderr)


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


def _remove_tree(path: str) -> None:
    """Remove the page's folder even where a cell took away write permission."""

    def make_writable(function: Any, name: str, _: Any) -> None:
        try:
            os.chmod(os.path.dirname(name), stat.S_IRWXU)
            os.chmod(name, stat.S_IRWXU)
            function(name)
        except OSError:
            pass

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=make_writable)
    else:
        shutil.rmtree(path, onerror=make_writable)
