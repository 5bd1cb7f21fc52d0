"""The page process: forked from the warm worker, it runs one page's cells and exits.

It starts clean: its own process group, standard streams on pipes the worker reads (output is
captured and capped from outside), every other inherited descriptor closed, a fresh temporary
working directory, a new ``__main__`` namespace, reseeded random generators, limits applied.
It reports to the worker on descriptor 3, one JSON line per event, and after each cell writes
an end-of-cell marker to its stdout and stderr, so that the worker charges each cell its own
output without the two processes ever waiting for each other.

    {"start": i, "at": t}         cell i (position in the request) begins at monotonic time t
    {"cell": i, "status": ...}    cell i's outcome (see evaluate.Outcome)
    {"end": true, "left": [...]}  all done; the names of processes the cells left running,
                                  which the page process has killed
    {"crash": "traceback"}        a bug in kbtool itself

A cell that fails stops the page; the worker reports the cells after it as not run.
"""

from __future__ import annotations

import contextlib
import faulthandler
import fcntl
import os
import random
import shutil
import signal
import stat
import sys
import tempfile
import time
import traceback
from typing import Any, NoReturn, TextIO

from kbtool import lifecycle
from kbtool.execute import procs
from kbtool.execute.evaluate import Page
from kbtool.execute.figures import quiet_show
from kbtool.execute.limits import limit_memory
from kbtool.execute.output import end_marker
from kbtool.execute.protocol import encode, write_all
from kbtool.execute.sandbox import contain

CONTROL_FD = 3


def run_page(
    request: dict[str, Any], pipes: tuple[int, int, int], workdir: str, network: int | None
) -> NoReturn:
    """Run in the forked child; never returns. ``pipes``: control, stdout, stderr;
    ``network``: the worker's descriptor of the namespace with network, if it left it."""
    code = 0
    try:
        lifecycle.die_with_parent(request.get("worker"))  # killed if the warm worker dies
        joined = not (request["network"] and network is not None) or procs.enter_network(network)
        _isolate(*pipes)
        if not joined:
            raise OSError("cannot join the network namespace for a page that allows network")
        _settle(request, workdir, namespaced=network is not None)
        _run_cells(request, workdir)
    except BrokenPipeError:  # the worker is gone: nobody to report to
        code = 1
    except BaseException:  # noqa: B036 - a bug of ours: report it as such, never hang the worker
        code = 70
        _send({"crash": traceback.format_exc()})
    finally:
        os._exit(code)


def _isolate(control: int, stdout: int, stderr: int) -> None:
    os.setpgid(0, 0)
    procs.become_subreaper()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # Lift the pipes above the standard descriptors first, so no dup2 clobbers another.
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (control, stdout, stderr)]
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(high[1], 1)
    os.dup2(high[2], 2)
    os.dup2(high[0], CONTROL_FD, inheritable=False)  # subprocesses must not hold the report pipe
    os.closerange(CONTROL_FD + 1, os.sysconf("SC_OPEN_MAX"))  # the worker's and other pages'
    # Line-buffered, so what a cell printed before it hung or crashed is not lost.
    streams = {
        "stdin": open(0, encoding="utf-8", closefd=False),  # noqa: SIM115
        "stdout": _text_stream(1),
        "stderr": _text_stream(2),
    }
    for name, stream in streams.items():
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _text_stream(fd: int) -> TextIO:
    return open(fd, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)


def _settle(request: dict[str, Any], workdir: str, namespaced: bool) -> None:
    os.mkdir(workdir, 0o700)
    os.chdir(workdir)
    # Environment (TMPDIR is the folder, so temporary files go where cleanup happens), files,
    # network: see kbtool.execute.sandbox.
    contain(request, workdir, namespaced)
    tempfile.tempdir = None
    sys.argv = [request["path"]]
    sys.path.insert(0, workdir)
    limit_memory(request["memory_mb"])
    # Forked processes share the worker's generator state; a fresh interpreter would not.
    random.seed()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed()
    quiet_show()
    faulthandler.enable()  # a crash in C code leaves a Python traceback in the cell's stderr


def _run_cells(request: dict[str, Any], workdir: str) -> None:
    cells = request["cells"]
    page = Page(request["path"], cells, request["output_limit"])
    me = os.getpid()
    for position, cell in enumerate(cells):
        if cell["mode"] == "skip":
            continue
        _send({"start": position, "at": time.monotonic()})
        outcome = page.run(cell)
        if os.getpid() != me:  # a cell called os.fork(): the copy must not go on with the page
            os._exit(0)
        _flush()
        marker = end_marker(request["nonce"], position)
        write_all(1, marker)
        write_all(2, marker)
        _send({"cell": position, **outcome.to_wire()})
        if outcome.status == "failed":
            break
    # Orphans of the cells' processes were re-parented to this process (a subreaper), so it can
    # find everything still running, kill it and name it for the report.
    left = procs.kill_orphans(keep=set()) if procs.has_children() else []
    os.chdir("/")
    remove_tree(workdir)
    _send({"end": True, "left": left})


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        # A cell may have replaced or closed a stream; what that held is its own loss.
        with contextlib.suppress(Exception):
            stream.flush()  # type: ignore[union-attr]
    procs.flush_c_stdio()


def _send(message: dict[str, Any]) -> None:
    write_all(CONTROL_FD, encode(message))


def remove_tree(path: str) -> None:
    """Remove a page's folder, even where a cell took away write permission."""

    def make_writable(function: Any, name: str, _: Any) -> None:
        try:
            # Only inside the tree: the folder holding it (the shared temporary folder) is
            # never changed, not even when the tree went away meanwhile.
            if name != path:
                os.chmod(os.path.dirname(name), stat.S_IRWXU)
            os.chmod(name, stat.S_IRWXU)
            function(name)
        except OSError:  # gone already, or not ours to change: nothing more to try
            pass

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=make_writable)
    else:
        shutil.rmtree(path, onerror=make_writable)
