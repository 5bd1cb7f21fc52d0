"""kbtool's side of execution: decide, look in the cache, hand the rest to a warm worker.

:func:`run_pages` is what ``kbtool test``, ``kbtool build`` and the pytest plugin call. The
worker process is started only when some page has to run, so a repeat run with nothing
changed starts no interpreter at all.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import kbtool
from kbtool.config import Config
from kbtool.execute import cache, containment
from kbtool.execute.compare import compare_outputs
from kbtool.execute.environment import worker_environment
from kbtool.execute.plan import PagePlan, not_run_reason, plan_page
from kbtool.execute.protocol import ProtocolError, decode, encode
from kbtool.execute.results import CellResult, PageResult, from_dict
from kbtool.model import Page, Problem
from kbtool.store.db import Store, open_store

# `-P` keeps the current folder off sys.path; kbtool's own folder is on it only while the
# worker module is imported, so that cells cannot import from wherever kbtool lives.
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[2]); "
    "from kbtool.execute.worker import main; del sys.path[0]; main(sys.argv[1])"
)
_RESTARTS = 2

OnResult = Callable[[PageResult], None]
OnNotice = Callable[[str], None]


def _print_notice(message: str) -> None:
    print(f"kbtool: {message}", file=sys.stderr, flush=True)


class Runner:
    """A warm worker process, started on first use and reused by every :meth:`run`."""

    def __init__(
        self, config: Config, jobs: int | None = None, on_notice: OnNotice | None = None
    ) -> None:
        self.config = config
        self.containment = containment.probe(config)
        self.on_notice = _print_notice if on_notice is None else on_notice
        self.jobs = config.workers(jobs)
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0  # worker processes started: 0 when everything came from the cache
        self.closed = False
        self.abandoned = False  # a run was left mid-way (Ctrl-C): close() stops its pages
        self._next_id = 0

    def __enter__(self) -> Runner:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close(abort=error is not None)

    def _worker(self) -> subprocess.Popen[bytes]:
        if self.process is None or self.process.poll() is not None:
            settings = {
                "jobs": self.jobs,
                "preload": list(self.config.preload),
                "parent": os.getpid(),  # the worker exits at once if this process has gone
            }
            package_parent = str(Path(kbtool.__file__).resolve().parent.parent)
            self.process = subprocess.Popen(
                [sys.executable, "-P", "-c", _BOOT, encode(settings).decode(), package_parent],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=worker_environment(os.environ, self.config.cell_env),
                cwd=self.config.root,
            )
            notice = containment.warning(self.containment)
            if self.starts == 0 and notice is not None:
                self.on_notice(notice)  # once, when cells are about to run
            self.starts += 1
        return self.process

    def close(self, abort: bool = False) -> None:
        """Stop the worker: it cleans up after its last pages and exits (it skips interpreter
        teardown); with ``abort`` (Ctrl-C in the middle of a run) it kills its pages first."""
        self.closed = True  # a run still reading (another thread) stops instead of restarting
        process, self.process = self.process, None
        if process is None:
            return
        try:
            if abort or self.abandoned:
                process.terminate()  # the worker kills its page processes on SIGTERM
            if process.stdin is not None:
                with contextlib.suppress(OSError):
                    process.stdin.close()  # no more requests: the worker finishes and exits
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        finally:
            if process.stdout is not None:
                process.stdout.close()

    def run(self, plans: Iterable[PagePlan]) -> Iterator[PageResult]:
        """Run each plan in a page process of its own; results come in completion order."""
        pending: dict[int, PagePlan] = {}
        for plan in plans:
            pending[self._next_id] = plan
            self._next_id += 1
        restarts = 0
        while pending and not self.closed:
            started: set[int] = set()
            try:
                for ident, data in self._exchange(pending, started):
                    del pending[ident]
                    yield from_dict(data)
            except BaseException:  # interrupted, or the caller stopped asking: pages still run
                self.abandoned = True
                raise
            if not pending or self.closed:
                break
            # The worker died. Pages it had started may be what killed it: they fail. The rest
            # go to a new worker, unless it keeps dying.
            status = self.process.wait() if self.process else None
            self.process = None
            restarts += 1
            # (Pages that had started may have reported before it died: they are done.)
            blamed = started & set(pending) if restarts <= _RESTARTS else set(pending)
            for ident in sorted(blamed):
                plan = pending.pop(ident)
                reason = f"kbtool's cell worker stopped while this page ran (exit status {status})"
                yield failed_result(plan, reason, "KB410")

    def _exchange(
        self, pending: dict[int, PagePlan], started: set[int]
    ) -> Iterator[tuple[int, dict[str, Any]]]:
        process = self._worker()
        assert process.stdin is not None and process.stdout is not None
        requests = [encode(self._request(ident, plan)) for ident, plan in pending.items()]
        # Written from a thread: the worker answers while we are still sending, and two full
        # pipes waiting on each other would deadlock.
        writer = threading.Thread(target=_write, args=(process.stdin, requests), daemon=True)
        writer.start()
        waiting = set(pending)
        while waiting:
            try:
                line = process.stdout.readline()
            except ValueError:  # closed by close() from another thread
                return
            if not line:
                return
            try:
                message = decode(line)
            except ProtocolError:
                continue  # never ours to worry about: the worker writes only whole messages
            if "started" in message:
                started.add(message["started"])
            elif "result" in message and message["result"] in waiting:
                waiting.discard(message["result"])
                yield message["result"], message["page"]
        writer.join()

    def _request(self, ident: int, plan: PagePlan) -> dict[str, Any]:
        config = self.config
        return {
            "id": ident,
            "path": plan.path,
            "file": str(config.root / plan.path),
            "cells": [cell.to_wire() for cell in plan.cells],
            "memory_mb": config.memory_limit_mb,
            "output_limit": config.output_limit_kb * 1024,
            "network": plan.network,
            "root": str(config.root),
            "inputs": [str(config.root / path) for path in plan.inputs],
            "sandbox": config.sandbox,
            "abi": self.containment.abi,
            "cell_env": list(config.cell_env),
        }


def _write(stream: IO[bytes], requests: list[bytes]) -> None:
    try:
        for request in requests:
            stream.write(request)
        stream.flush()
    except (BrokenPipeError, ValueError):  # the worker died (the reader handles that)
        pass


def not_run_result(page: Page, reason: str) -> PageResult:
    cells = tuple(CellResult(c.index, c.line, "not-run") for c in page.python_cells)
    return PageResult(page.path, "not-run", cells, reason=reason)


def failed_result(plan: PagePlan, reason: str, code: str, **extra: Any) -> PageResult:
    cells = tuple(CellResult(c.index, c.line, "not-run") for c in plan.cells)
    return PageResult(plan.path, "failed", cells, reason=reason, code=code, extra=extra)


def problem_result(plan: PagePlan) -> PageResult:
    """A page that cannot run as written: it fails with its problems, nothing runs."""
    problems = [{"code": p.code, "message": p.message, "line": p.line} for p in plan.problems]
    reason = "; ".join(p.message for p in plan.problems)
    return failed_result(plan, reason, plan.problems[0].code, problems=problems)


def cached_result(config: Config, page: Page, store: Store | None = None) -> PageResult | None:
    """The stored result of ``page`` if it is current; a not-run result if the page does not
    run; None when it has no python cells or must be run. Never executes anything."""
    reason = not_run_reason(config, page)
    if reason is not None:
        return None if not page.python_cells else not_run_result(page, reason)
    plan = plan_page(config, page)
    try:
        key = cache.page_key(config, page, plan)
    except (cache.InputProblem, OSError):
        return None
    if store is not None:
        return cache.load(store, page.path, key)
    with open_store(config.cache_path) as own:
        return cache.load(own, page.path, key)


def run_pages(
    config: Config,
    pages: Iterable[Page],
    jobs: int | None = None,
    use_store: bool = True,
    on_result: OnResult | None = None,
    runner: Runner | None = None,
    on_notice: OnNotice | None = None,
    compare: bool = False,
    store: Store | None = None,
) -> list[PageResult]:
    """Run every page that should run (cached results reused), in parallel; one result per
    page, in the order given. ``runner`` lets a caller keep one warm worker across calls;
    ``on_notice`` receives the containment warning (default: printed on stderr); ``compare``
    compares every imported page's outputs with the saved ones, not only the pages that ask for
    it (``compare-outputs: true``); ``store``: the caller's open store (else one is opened for
    this call)."""
    if store is None:
        with open_store(config.cache_path) as opened:
            return run_pages(
                config, pages, jobs, use_store, on_result, runner, on_notice, compare, opened
            )
    pages = list(pages)
    by_path = {page.path: page for page in pages}
    results: dict[str, PageResult] = {}

    def done(result: PageResult) -> None:
        result = compare_outputs(config, by_path[result.path], result, compare)
        results[result.path] = result
        if on_result is not None:
            on_result(result)

    todo: dict[str, tuple[PagePlan, str]] = {}
    for page in pages:
        reason = not_run_reason(config, page)
        if reason is not None:
            done(not_run_result(page, reason))
            continue
        plan = plan_page(config, page)
        key = ""
        try:
            key = cache.page_key(config, page, plan)
        except (cache.InputProblem, OSError) as error:
            line = page.frontmatter.line_of("inputs") if page.frontmatter else 1
            message = (
                str(error)
                if isinstance(error, cache.InputProblem)
                else f"cannot read a declared input: {error}"
            )
            plan = replace(plan, problems=(*plan.problems, Problem("KB403", message, line)))
        if plan.problems:
            done(problem_result(plan))
            continue
        hit = cache.load(store, page.path, key) if use_store else None
        if hit is not None:
            done(hit)
        else:
            todo[page.path] = (plan, key)
    refused = containment.refusal(containment.probe(config)) if todo else None
    if refused is not None:
        for plan, _ in todo.values():
            done(failed_result(plan, refused, "KB412"))
        todo = {}
    if todo:
        own = runner is None
        runner = runner or Runner(config, jobs, on_notice)
        completed = False
        try:
            for result in runner.run(plan for plan, _ in todo.values()):
                cache.save(store, result, todo[result.path][1])
                done(result)
            completed = True
        finally:
            if own:
                runner.close(abort=not completed)
    interrupted = "the run was stopped before this page ran"
    return [
        results.get(page.path) or failed_result(plan_page(config, page), interrupted, "KB410")
        for page in pages
    ]
