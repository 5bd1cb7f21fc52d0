"""Stage 7, search: the index of every page into the staging folder, updated from the live
site's (pages unchanged since take their search text from it; the others' come from the load
stage, or from the store), with each page's in-links from the site's listings (the ranking's
prior). Written from scratch, it merges the pages' stored terms in the run's workers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from kbtool.render.site import Listing
from kbtool.stages.load import Loaded, fetch_search_docs, fetch_term_records
from kbtool.stages.run import Run

#: Below this many pages, merging the terms in this process costs less than forking.
_PARALLEL_THRESHOLD = 512


def index_site(run: Run, loaded: Loaded, staging: Path, listings: Mapping[str, Listing]) -> Any:
    """Write ``staging/search/``; the index's figures, as JSON."""
    from kbtool.search.page_terms import Terms, in_process
    from kbtool.search.site import build_search

    def fetch(paths: list[str]) -> Any:
        return fetch_search_docs(run, loaded, paths)

    def records(paths: list[str]) -> Iterable[bytes]:
        return fetch_term_records(run, paths)

    labels = run.config.type_labels
    digests = run.snapshot.digests()
    links = {path: len(item.backlinks) for path, item in listings.items()}
    parallel = run.workers.worth_forking(len(digests), _PARALLEL_THRESHOLD)
    terms = Terms(records, run.workers.map if parallel else in_process)
    site = run.config.site_path
    stats = build_search(digests, staging, site, fetch, labels, links, terms, run.config.flavor)
    run.clock.lap("search")
    return stats.to_json()
