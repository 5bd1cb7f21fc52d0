"""The pages' own files: their SearchDocs, a few neighbours (by id) to a file.

A result on screen needs its page's title, URL and text (for the excerpt). One file per page
would make the index as many files as the site has pages, and creating files is most of the
cost of writing an index; so consecutive pages share a file up to :data:`CHUNK` bytes, and a
long page has a file of its own. Which file holds a page is found from the first id of each
file, which ``meta.js`` carries as a short string of deltas (``chunks``).
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kbtool.search.codec import decode, encode, script, unscript
from kbtool.search.text import SearchDoc

#: Characters of JSON after which a file of pages is closed: about the median page's search
#: text, so a page of median length or more has a file of its own and short source pages
#: share one. A query downloads the files of the ten results it shows, most of what it
#: downloads: a neighbour in the same file is bytes nobody reads (benchmarks/bench_search.py).
CHUNK = 1_500


def page_file(chunk: int) -> str:
    return f"d/{chunk}.js"


def chunk_files(
    docs: Iterable[tuple[int, SearchDoc | None]], first_chunk: int = 0, limit: float = CHUNK
) -> tuple[list[int], list[tuple[str, bytes]]]:
    """Files for ``docs`` (consecutive ids, ``None`` for an id with no page), numbered from
    ``first_chunk``, each closed past ``limit`` bytes: the first id of each, and (name,
    content) of each."""
    starts: list[int] = []
    files: list[tuple[str, bytes]] = []
    group: list[Any] = []
    size = 0
    first = 0

    def close() -> None:
        chunk = first_chunk + len(starts)
        starts.append(first)
        files.append((page_file(chunk), script(f"d/{chunk}", {"first": first, "docs": group})))

    for doc_id, doc in docs:
        data = doc.to_json() if doc is not None else None
        if not group:
            first = doc_id
        group.append(data)
        size += len(json.dumps(data, ensure_ascii=False)) if data else 4
        if size >= limit:
            close()
            group, size = [], 0
    if group:
        close()
    return starts, files


def encode_starts(starts: list[int]) -> str:
    return encode([b - a for a, b in zip([0, *starts], starts, strict=False)])


def decode_starts(text: str) -> list[int]:
    starts, at = [], 0
    for delta in decode(text):
        at += delta
        starts.append(at)
    return starts


class PageReader:
    """SearchDocs by id from an index folder (each file read once)."""

    def __init__(self, folder: Path, meta: dict[str, Any]) -> None:
        self.folder = folder
        self.starts = decode_starts(meta.get("chunks", ""))
        self._files: dict[int, Any] = {}

    def chunk_of(self, doc_id: int) -> int:
        return bisect.bisect_right(self.starts, doc_id) - 1

    def doc(self, doc_id: int) -> SearchDoc | None:
        chunk = self.chunk_of(doc_id)
        if chunk < 0:
            return None
        if chunk not in self._files:
            try:
                self._files[chunk] = unscript((self.folder / page_file(chunk)).read_bytes())
            except (OSError, ValueError):
                self._files[chunk] = None
        data = self._files[chunk]
        try:
            return SearchDoc.from_json(data["docs"][doc_id - data["first"]])
        except (TypeError, KeyError, IndexError, ValueError):
            return None
