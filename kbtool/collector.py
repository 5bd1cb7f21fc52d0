"""The garbage collector's policy, in one place.

kbtool makes millions of small objects that reference counting frees, and keeps large
structures (every page, the wiki) that are never garbage. The cyclic collector's passes over
what is alive are then pure cost: it runs less often (:func:`collect_less_often`), and what a
process keeps is frozen out of its sight (:func:`hold`, :func:`holding`); a session collects
between builds what the last one left (:func:`settle`).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

#: settled states between two collections of everything (what became garbage once held)
_FULL_COLLECTION_EVERY = 50
_settled = 0


def collect_less_often() -> None:
    """Run the cyclic collector about 1,400 times less often than Python's default.

    At the default threshold (700 allocations) its passes over everything alive took about
    15 % of a cold build's CPU time. They find almost nothing: in a cold build of 2,000
    pages, five young collections every 100,000 allocations freed 142 objects and took
    0.21-0.25 s, and after a one-page edit a one-shot check spent 0.10 s, a build 0.12 s, in
    collections that walked the values just read from the store (each page's facts, listing
    and outputs), which the process keeps. What it costs is that cyclic garbage waits longer
    to be freed, and kbtool makes little of it: a session collects after each build
    (:func:`settle`)."""
    gc.set_threshold(1_000_000, 10, 10)


def hold(collect_first: bool = False) -> None:
    """Take what the process holds now out of the collector's sight (what a forked process
    inherited, what a build loaded): no collection walks it again, nor copies its memory
    pages by touching them. ``collect_first``: free the garbage there is first."""
    if collect_first:
        gc.collect()
    gc.freeze()


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No collection inside: a session's build or check, which collects once its answer is
    out (:func:`settle`). A collection inside walks what the build made so far, to find
    nothing: 20-27 ms of a save at 7,000 pages."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextlib.contextmanager
def holding() -> Iterator[None]:
    """No collection inside, and what was made inside is held after (see :func:`hold`):
    unpickling every page makes millions of objects, none of them garbage."""
    with paused():
        try:
            yield
        finally:
            gc.freeze()


def settle() -> None:
    """After a session's build: collect its garbage, then hold what the session keeps, or a
    collection during the next build walks every page held (most of a second at 7,000
    pages). Cycles among held values dropped later wait for the occasional collection of
    everything."""
    global _settled
    _settled += 1
    if _settled % _FULL_COLLECTION_EVERY == 0:
        gc.unfreeze()
    hold(collect_first=True)
