"""Stage 7, search: the index of every page into the staging folder, updated from the live
site's (pages unchanged since take their search text from it; the others' come from the load
stage, or from the store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kbtool.stages.load import Loaded, fetch_search_docs
from kbtool.stages.run import Run


def index_site(run: Run, loaded: Loaded, staging: Path) -> Any:
    """Write ``staging/search/``; the index's figures, as JSON."""
    from kbtool.search.site import build_search

    def fetch(paths: list[str]) -> Any:
        return fetch_search_docs(run, loaded, paths)

    labels = run.config.type_labels
    digests = run.snapshot.digests()
    stats = build_search(digests, staging, run.config.site_path, fetch, labels)
    run.clock.lap("search")
    return stats.to_json()
