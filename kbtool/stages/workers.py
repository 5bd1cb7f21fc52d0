"""The run's worker processes: how every stage shares its work between forked processes.

A stage calls :meth:`Workers.map` with a function, the inputs the whole stage shares (the
files to parse; the site to render), and the chunks to split among the workers. The workers
are forked when the stage asks, so they inherit the shared inputs as they are then: the wiki
and its bodies are never pickled, only each chunk (small) and its result. Work too small to
be worth a fork runs in this process. Parsing and rendering both go through here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from kbtool.lifecycle import worker_pool

S = TypeVar("S")
T = TypeVar("T")
R = TypeVar("R")


class _Inherited:
    """A forked worker's copy of its stage's shared inputs, set once by the pool's
    initializer; each task reads it, nothing else writes it."""

    value: Any = None

    @classmethod
    def adopt(cls, value: Any) -> None:
        cls.value = value


def _call(function: Callable[[Any, T], R], chunk: T) -> R:
    return function(_Inherited.value, chunk)


class Workers:
    """``jobs`` worker processes for the stages of one run."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        #: wall seconds so far from handing the workers a stage's chunks to the last result
        self.seconds = 0.0

    def worth_forking(self, items: int, threshold: int) -> bool:
        """Whether ``items`` pieces of work are enough to share among workers."""
        return self.jobs > 1 and items >= threshold and _can_fork()

    def map(
        self,
        function: Callable[[S, T], R],
        shared: S,
        chunks: Sequence[T],
        meanwhile: Callable[[], None] | None = None,
    ) -> Iterator[R]:
        """``function(shared, chunk)`` for each chunk, in order, in the workers. ``meanwhile``
        runs in this process while the workers start on the chunks."""
        started = time.perf_counter()
        try:
            with worker_pool(self.jobs, _Inherited.adopt, (shared,)) as pool:
                futures = [pool.submit(_call, function, chunk) for chunk in chunks]
                if meanwhile is not None:
                    meanwhile()
                for future in futures:
                    yield future.result()
        finally:
            self.seconds += time.perf_counter() - started


def chunked(count: int, jobs: int, smallest: int, largest: int = 64) -> list[range]:
    """``range(count)`` in pieces of ``smallest``..``largest``, about eight per worker, so
    that an uneven piece does not keep one worker busy at the end."""
    size = max(smallest, min(largest, count // (jobs * 8) or 1))
    return [range(i, min(i + size, count)) for i in range(0, count, size)]


def _can_fork() -> bool:
    import multiprocessing  # here, not at the top: a check that forks nothing skips 4 ms

    return "fork" in multiprocessing.get_all_start_methods()
