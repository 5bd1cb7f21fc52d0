"""The environment cells see: a small, documented set of variables, never the caller's whole one.

The warm worker is started with :func:`worker_environment` (what cells may see, plus ``HOME``
for the worker's own caches), so the caller's other variables (CI tokens, cloud credentials)
are never in its memory, and so never in a page process forked from it, not even in the
original environment block that ``/proc/self/environ`` shows. Each page process then replaces
``os.environ`` with :func:`page_environment`, which subprocesses of its cells inherit.

Cells get ``PATH``, ``LANG``, ``LC_*``, ``TZ``, ``HOME`` and ``TMPDIR`` (both the page's own
temporary folder), ``KBTOOL_PAGE`` and ``KBTOOL_PAGE_DIR``, the thread-count variables (one
thread each), ``MPLBACKEND=Agg``, and the variables named by ``cell-env`` in the
configuration, when the caller has them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

#: Thread pools of numerical libraries do not survive a fork; one thread each makes the warm
#: worker safe to fork (and pages running side by side do not oversubscribe the cores).
PINNED_THREADS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "BLIS_NUM_THREADS",
)
PASSED = ("PATH", "LANG", "TZ")
#: Set for each page by the page process itself.
PER_PAGE = ("HOME", "TMPDIR", "KBTOOL_PAGE", "KBTOOL_PAGE_DIR")


def _kept(name: str, extra: Iterable[str]) -> bool:
    return name in PASSED or name.startswith("LC_") or name in extra


def worker_environment(
    caller: Mapping[str, str] | None = None, cell_env: Iterable[str] = ()
) -> dict[str, str]:
    """The warm worker's environment, from the caller's (``os.environ`` by default)."""
    caller = os.environ if caller is None else caller
    extra = set(cell_env)
    env = {name: value for name, value in caller.items() if _kept(name, extra)}
    env.setdefault("PATH", os.defpath)
    # For the worker itself: its caches (matplotlib's font list) and where page folders are
    # made. Each page process replaces both with its own folder.
    env.update({name: caller[name] for name in ("HOME", "TMPDIR") if name in caller})
    env.update(dict.fromkeys(PINNED_THREADS, "1"))
    env["MPLBACKEND"] = "Agg"
    return env


def page_environment(
    inherited: Mapping[str, str], cell_env: Iterable[str], workdir: str, page_file: str
) -> dict[str, str]:
    """A page's environment: what the worker was given that cells may see, and its own folders."""
    extra = set(cell_env) | set(PINNED_THREADS) | {"MPLBACKEND"}
    env = {name: value for name, value in inherited.items() if _kept(name, extra)}
    env.update(
        HOME=workdir,
        TMPDIR=workdir,
        KBTOOL_PAGE=page_file,
        KBTOOL_PAGE_DIR=os.path.dirname(page_file),
    )
    return env


def replace_environ(env: Mapping[str, str]) -> None:
    """Make ``env`` the process's environment (``os.environ`` and the C ``environ``)."""
    for name in [name for name in os.environ if name not in env]:
        del os.environ[name]
    os.environ.update(env)
