"""Stage 7, search: the index of every page into the staging folder, updated from the live
site's (pages unchanged since take their search text from it; the others' come from the load
stage, or from the store), with each page's in-links from the site's listings (the ranking's
prior)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kbtool.render.site import Listing
from kbtool.stages.load import Loaded, fetch_search_docs
from kbtool.stages.run import Run


def index_site(run: Run, loaded: Loaded, staging: Path, listings: Mapping[str, Listing]) -> Any:
    """Write ``staging/search/``; the index's figures, as JSON."""
    from kbtool.search.site import build_search

    def fetch(paths: list[str]) -> Any:
        return fetch_search_docs(run, loaded, paths)

    labels = run.config.type_labels
    digests = run.snapshot.digests()
    links = {path: len(item.backlinks) for path, item in listings.items()}
    stats = build_search(digests, staging, run.config.site_path, fetch, labels, links)
    run.clock.lap("search")
    return stats.to_json()
