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
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from kbtool.search.codec import decode, encode, script, unscript
from kbtool.search.text import SearchDoc

#: Characters of JSON after which a file of pages is closed: about the median page's search
#: text, so a page of median length or more has a file of its own and short source pages
#: share one. A query downloads the files of the ten results it shows, most of what it
#: downloads: a neighbour in the same file is bytes nobody reads (benchmarks/bench_search.py).
CHUNK = 1_500


#: Characters of a page's search text that its page file holds. The rest is in the file's
#: continuation (``c/<n>.js``), which a reader downloads only for an excerpt that the first
#: part cannot show: a long hub page among the results no longer costs its whole text.
CUT = 2_000


def page_file(chunk: int) -> str:
    return f"d/{chunk}.js"


def rest_file(chunk: int) -> str:
    return f"c/{chunk}.js"


def chunk_files(
    docs: Iterable[tuple[int, SearchDoc | None]],
    first_chunk: int = 0,
    limit: float = CHUNK,
    write: Callable[[str, bytes], object] | None = None,
) -> tuple[list[int], list[tuple[str, bytes]]]:
    """Files for ``docs`` (consecutive ids, ``None`` for an id with no page), numbered from
    ``first_chunk``, each closed past ``limit`` bytes: the first id of each, and (name,
    content) of each, a page file followed by its continuation when one of its pages is
    longer than :data:`CUT` (that page is marked ``more``). With ``write``, each file is
    handed to it as it is closed instead (the list is empty): a whole wiki's page files are
    never held at once."""
    starts: list[int] = []
    files: list[tuple[str, bytes]] = []
    group: list[Any] = []
    rests: list[str | None] = []
    size = 0
    first = 0

    def close() -> None:
        chunk = first_chunk + len(starts)
        starts.append(first)
        made = [(page_file(chunk), script(f"d/{chunk}", {"first": first, "docs": group}))]
        if any(rest is not None for rest in rests):
            made.append((rest_file(chunk), script(f"c/{chunk}", {"first": first, "rests": rests})))
        if write is None:
            files.extend(made)
        else:
            for name, content in made:
                write(name, content)

    for doc_id, doc in docs:
        data = doc.to_json() if doc is not None else None
        rest = None
        if data is not None and len(data["body"]) > CUT:
            data["body"], rest = data["body"][:CUT], data["body"][CUT:]
            data["more"] = 1
        if not group:
            first = doc_id
        group.append(data)
        rests.append(rest)
        size += len(json.dumps(data, ensure_ascii=False)) if data else 4
        if size >= limit:
            close()
            group, rests, size = [], [], 0
    if group:
        close()
    return starts, files


def whole_doc(entry: Any, rests: Any, at: int) -> SearchDoc | None:
    """The SearchDoc of a page file's ``entry``, its text joined again with its rest (the
    ``at``-th of the continuation's ``rests``) when it was cut; None if either is damaged."""
    try:
        doc = SearchDoc.from_json(entry)
        if entry.get("more"):
            rest = rests["rests"][at]
            if not isinstance(rest, str):
                return None
            doc = replace(doc, body=doc.body + rest)
        return doc
    except (TypeError, KeyError, IndexError, ValueError, AttributeError):
        return None


def encode_starts(starts: list[int]) -> str:
    return encode([b - a for a, b in zip([0, *starts], starts, strict=False)])


def decode_starts(text: str) -> list[int]:
    starts, at = [], 0
    for delta in decode(text):
        at += delta
        starts.append(at)
    return starts


class PageReader:
    """SearchDocs by id from an index folder (each file read once), whole: a page cut in its
    page file is joined again with its continuation."""

    def __init__(self, folder: Path, meta: dict[str, Any]) -> None:
        self.folder = folder
        self.starts = decode_starts(meta.get("chunks", ""))
        self._files: dict[str, Any] = {}

    def chunk_of(self, doc_id: int) -> int:
        return bisect.bisect_right(self.starts, doc_id) - 1

    def _read(self, name: str) -> Any:
        if name not in self._files:
            try:
                self._files[name] = unscript((self.folder / name).read_bytes())
            except (OSError, ValueError):
                self._files[name] = None
        return self._files[name]

    def doc(self, doc_id: int) -> SearchDoc | None:
        chunk = self.chunk_of(doc_id)
        if chunk < 0:
            return None
        data = self._read(page_file(chunk))
        try:
            at = doc_id - data["first"]
            entry = data["docs"][at]
        except (TypeError, KeyError, IndexError):
            return None
        rests = (
            self._read(rest_file(chunk)) if isinstance(entry, dict) and entry.get("more") else None
        )
        return whole_doc(entry, rests, at)
