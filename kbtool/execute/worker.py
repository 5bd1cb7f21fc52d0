"""The warm worker: one interpreter that imports the heavy modules once and forks a page process
per page, so isolation costs a fork (milliseconds) instead of a fresh interpreter (~0.5 s with
numpy and matplotlib).

Started by :class:`kbtool.execute.runner.Runner` as ``python -P -c <boot>`` with BLAS and
OpenMP pinned to one thread (a fork copies no threads, so a pool started before it would be
dead in the child) and matplotlib on Agg, then it imports ``config.preload`` (missing modules
are skipped). It reads requests on stdin and writes results on stdout, JSON lines:

    in:  {"id": n, "path": ..., "cells": [...], ...}      a page to run
    out: {"started": n}                                   its page process is forked
    out: {"result": n, "page": {...PageResult...}}        done

It runs up to ``jobs`` page processes at once and exits when stdin closes and all are done.
"""

from __future__ import annotations

import importlib
import json
import os
import select
import signal
import sys
import time
from collections import deque
from types import FrameType
from typing import Any

from kbtool import collector, lifecycle
from kbtool.execute import ipython, landlock, procs, sandbox
from kbtool.execute.protocol import LineReader, encode, write_all
from kbtool.execute.supervise import PageProcess

#: What the page process needs, imported here so that no page pays for it.
_OWN_MODULES = (
    "ast",
    "codecs",
    "doctest",
    "pprint",
    "linecache",
    "traceback",
    "tempfile",
    "random",
    "socket",
    "ipaddress",
    "resource",
    "ctypes",
    "warnings",
    "io",
    "tokenize",
)
#: How often to look for exited page processes where pidfd_open is missing.
_POLL_INTERVAL = 0.05


def preload(modules: list[str]) -> None:
    for name in (*_OWN_MODULES, *modules):
        try:
            importlib.import_module(name)
        except ImportError:
            continue  # not installed here: the cells that need it will say so themselves
        except Exception as error:  # a module that breaks on import; not the worker's problem
            print(f"kbtool worker: preloading {name} failed: {error!r}", file=sys.stderr)
    try:  # IPython (the ipython extra), its shell made once here rather than in every page
        ipython.prepare()
    except Exception as error:
        print(f"kbtool worker: preparing IPython failed: {error!r}", file=sys.stderr)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        # Every page process reseeds numpy's global generator; the first seeding initialises
        # lazily (~15 ms, megabytes of memory touched), so it is done once, here.
        numpy.random.seed()


class Worker:
    def __init__(self, jobs: int, requests_fd: int, results_fd: int, network: int | None) -> None:
        self.jobs = max(1, jobs)
        self.requests_fd = requests_fd
        self.results_fd = results_fd
        self.reader = LineReader()
        self.queue: deque[dict[str, Any]] = deque()
        self.pages: dict[int, PageProcess] = {}  # by pid
        self.owners: dict[int, PageProcess] = {}  # fd -> page
        self.poll = select.poll()
        self.poll.register(requests_fd, select.POLLIN)
        self.accepting = True
        self.network = network

    def serve(self) -> None:
        while self.accepting or self.queue or self.pages:
            while self.queue and self._running() < self.jobs:
                self._start(self.queue.popleft())
            for fd, _ in self.poll.poll(self._wait_ms()):
                if fd == self.requests_fd:
                    self._read_requests()
                elif fd in self.owners and not self.owners[fd].on_readable(fd):
                    self.poll.unregister(fd)
                    del self.owners[fd]
            now = time.monotonic()
            for page in list(self.pages.values()):
                page.check_deadline(now)
                exited = page.has_exited()
                if page.ready and not page.reported:
                    result = page.report(keep=set(self.pages))
                    self._send({"result": page.request["id"], "page": result})
                if exited:
                    self._forget(page)

    def _wait_ms(self) -> int | None:
        if not self.pages:
            return None
        deadlines = [page.deadline for page in self.pages.values() if not page.reported]
        soonest = min(deadlines, default=time.monotonic() + 60) - time.monotonic()
        if any(page.pidfd is None for page in self.pages.values()):
            soonest = min(soonest, _POLL_INTERVAL)
        return max(0, int(soonest * 1000) + 1)

    def _read_requests(self) -> None:
        data = os.read(self.requests_fd, 1 << 16)
        if not data:
            self.accepting = False
            self.poll.unregister(self.requests_fd)
            return
        self.queue.extend(self.reader.feed(data))

    def _start(self, request: dict[str, Any]) -> None:
        page = PageProcess(request, self.network)
        page.start()
        self.pages[page.pid] = page
        for fd in page.fds():
            self.owners[fd] = page
            self.poll.register(fd, select.POLLIN)
        self._send({"started": request["id"]})

    def _running(self) -> int:
        """Pages not yet reported (one that has reported may still be exiting)."""
        return sum(not page.reported for page in self.pages.values())

    def _forget(self, page: PageProcess) -> None:
        for fd in page.fds():
            if fd in self.owners:
                self.poll.unregister(fd)
                del self.owners[fd]
        del self.pages[page.pid]
        page.clean_up()

    def _send(self, message: dict[str, Any]) -> None:
        write_all(self.results_fd, encode(message))

    def stop_all(self) -> None:
        """Interrupted: kill every page process and what it started; remove their folders."""
        for page in self.pages.values():
            page.abandon()
        procs.kill_orphans(keep=set())


def _raise_exit(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def main(settings_json: str | None = None) -> None:
    settings = json.loads(settings_json if settings_json is not None else sys.argv[1])
    # The results pipe is our stdout; anything else printing there (a preloaded module) would
    # corrupt it, so stdout proper becomes stderr.
    results_fd = os.dup(1)
    os.dup2(2, 1)
    # SIGTERM when kbtool ends, however it ends; it stops the pages first (see `_raise_exit`).
    lifecycle.die_with_parent(settings.get("parent"), signal.SIGTERM)
    procs.become_subreaper()
    signal.signal(signal.SIGTERM, _raise_exit)
    # Ctrl-C reaches the whole terminal's process group: kbtool stops this worker itself, and a
    # worker that left first would look to kbtool like a crash.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    preload(settings.get("preload", []))
    sandbox.system_rules()  # the same for every page: found once, here
    landlock.abi_version()  # and ctypes' libc handle with it
    # Everything imported so far is shared with every page process. Frozen, the garbage
    # collector of a page process never walks it, so its memory pages are never copied.
    collector.hold(collect_first=True)
    # Pages run without network unless they allow it; leaving the network here, once, is much
    # cheaper than a namespace per page (creating and tearing one down costs milliseconds).
    network = procs.leave_network()
    worker = Worker(settings.get("jobs", 1), 0, results_fd, network)
    try:
        worker.serve()
    except BrokenPipeError:  # kbtool went away: nobody wants the results
        pass
    finally:
        worker.stop_all()
    # Tearing down numpy and matplotlib takes longer than a page; nothing is left to flush.
    os._exit(0)


if __name__ == "__main__":
    main()
