"""The build's search stage: the site's pages -> their :class:`SearchDoc` -> ``site/search/``.

A page's SearchDoc is made by the worker that parsed it, from the same tokens (see
:mod:`kbtool.stages.load`). A page whose content is unchanged since the live site was built takes
its SearchDoc from the live index; the others' come from the load stage (``fetch``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from kbtool.search import layout
from kbtool.search.codec import unscript
from kbtool.search.output import SearchStats
from kbtool.search.pagefiles import PageReader
from kbtool.search.text import SearchDoc
from kbtool.search.writer import write_search_index
from kbtool.store.records import SEARCH

#: Which page content each SearchDoc of the index was made from: path -> [digest, id].
ORIGINS = "origins.json"


def _text_version() -> str:
    """Which code made the search texts an index holds: that of the store's search-text
    records, so an index written by other code gives none of its texts again."""
    return SEARCH.code


def _previous(old: Path | None) -> dict[str, Any]:
    if old is None:
        return {}
    try:
        data = json.loads((old / ORIGINS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != _text_version():
        return {}
    origins = data.get("pages")
    return origins if isinstance(origins, dict) else {}


def _reader(old: Path | None) -> PageReader | None:
    try:
        return PageReader(old, unscript((old / layout.META).read_bytes())) if old else None
    except (OSError, ValueError):
        return None


Fetch = Callable[[list[str]], dict[str, SearchDoc]]


def search_docs(digests: Mapping[str, str], old: Path | None, fetch: Fetch) -> dict[str, SearchDoc]:
    """Every page's SearchDoc, taken from the index in ``old`` where the page is unchanged,
    else from ``fetch(paths)``."""
    previous = _previous(old)
    reader = _reader(old) if previous else None
    docs: dict[str, SearchDoc] = {}
    for path, digest in digests.items():
        row = previous.get(path)
        if reader and isinstance(row, list) and len(row) == 2 and row[0] == digest:
            doc = reader.doc(int(row[1]))
            if doc is not None and doc.path == path:
                docs[path] = doc
    docs.update(fetch([path for path in digests if path not in docs]))
    return {path: docs[path] for path in digests}


def build_search(
    digests: Mapping[str, str],
    staging: Path,
    live: Path,
    fetch: Fetch,
    labels: dict[str, str] | None = None,
    links: Mapping[str, int] | None = None,
) -> SearchStats:
    """Write the index of the pages (path -> content ``digests``) into ``staging/search``,
    updating the live site's;
    ``labels`` are what the site calls the page types (``type-labels``), ``links`` how many
    pages link to each (the ranking's prior)."""
    old = live / layout.FOLDER
    old_dir = old if (old / layout.TABLE).is_file() else None
    docs = search_docs(digests, old_dir, fetch)
    folder = staging / layout.FOLDER
    stats = write_search_index(docs, folder, old_dir, labels, links)
    data = json.loads((folder / layout.TABLE).read_text(encoding="utf-8"))
    rows = {**data["table"], **data.get("delta", {})}  # the update segment's ids win
    origins = {path: [digest, rows[path][0]] for path, digest in digests.items()}
    data = {"version": _text_version(), "pages": origins}
    (folder / ORIGINS).write_text(json.dumps(data), encoding="utf-8")
    return stats
