"""Stage 4, cells: run every page's python cells (stored results reused). With the checks,
the gate: a failing cell stops the build before anything is rendered."""

from __future__ import annotations

from collections.abc import Iterable

from kbtool.execute.results import PageResult
from kbtool.stages.run import Run
from kbtool.wiki import Wiki


def run_cells(run: Run, wiki: Wiki, paths: Iterable[str] | None = None) -> dict[str, PageResult]:
    """Results of every page that runs (among ``paths``, the pages whose facts say they run
    cells, if given), by path."""
    try:
        from kbtool.execute import run_pages, should_run
    except ImportError:  # The runner is not there: a site without cell outputs.
        return {}
    config = run.config
    candidates = wiki.pages.values() if paths is None else [wiki.pages[p] for p in paths]
    pages = [p for p in candidates if p.python_cells and should_run(config, p)]
    if not pages:
        return {}
    results = run_pages(
        config, pages, jobs=run.workers.jobs, use_store=run.use_store, store=run.store
    )
    return {r.path: r for r in results}
