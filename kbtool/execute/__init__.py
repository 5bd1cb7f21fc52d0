"""Executable pages: run each page's python cells in a clean process of its own, cache results.

The public API, used by ``kbtool test``, ``kbtool build`` and the pytest plugin:

- :func:`run_pages` runs pages (in parallel, cached) and returns one :class:`PageResult` each;
- :func:`cached_result` reads a page's stored result without running anything;
- :func:`should_run` says whether a page is executed at all under the configuration.

Layout: ``plan`` (page -> what to run), ``cache``, ``runner`` (kbtool's side), ``worker`` and
``supervise`` (the warm worker and its page processes), ``child``, ``evaluate``, ``doctests``,
``figures``, ``limits``, ``procs``, ``sandbox``, ``landlock``, ``environment``, ``tracebacks``
(inside a page process), ``containment`` (what this machine enforces), ``shard`` and ``junit``
(CI matrices), ``pytest_plugin``.
"""

from typing import TYPE_CHECKING, Any

from kbtool.execute.plan import should_run
from kbtool.execute.results import CellResult, PageResult, from_dict, to_dict

if TYPE_CHECKING:
    from kbtool.execute.runner import Runner, cached_result, run_pages

#: imported when first asked for: `kbtool check` reads `should_run` and never runs a cell
_FROM_RUNNER = {"Runner", "cached_result", "run_pages"}


def __getattr__(name: str) -> Any:
    if name in _FROM_RUNNER:
        from kbtool.execute import runner

        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CellResult",
    "PageResult",
    "Runner",
    "cached_result",
    "from_dict",
    "run_pages",
    "should_run",
    "to_dict",
]
