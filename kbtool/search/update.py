"""Update an index for edited, added and removed pages without touching its main shards.

The pages that changed since the index was written from scratch go to a small **update
segment**, as in log-structured indexes (Lucene's segments): their postings in ``x/<hex>.js``
shards of their own, their words in ``x/words.js``, and in ``meta.js`` the ids of the pages
whose postings in the main shards are no longer valid (``dead``: edited or removed). A query
reads a term from both and drops the dead pages' main entries, which gives the same pages as
a fresh build. The main shards, long lists and word lists are kept as they are (hard links),
so an edit costs merging the changed pages' stored terms (made by the page worker,
:mod:`kbtool.search.page_terms`) and a few small files, whatever the size of the site.
The segment is written again at each update; past :data:`MAX_SEGMENT` pages the index is
written from scratch, which empties it.

Told which pages changed since the old index (``changed``), an update reads only those pages'
SearchDocs and those of the pages that share a page file it rewrites. Written into a folder
that holds a former index of the same main part (a spare site's), it leaves the main files,
and the page files the old index kept from that one, in place, and replaces the rest.
"""

from __future__ import annotations

import bisect
import contextlib
import os
from collections.abc import Collection, Iterable, Mapping
from math import inf
from pathlib import Path
from typing import Any

from kbtool.search import layout
from kbtool.search.codec import decode, script, unscript
from kbtool.search.output import (
    MAIN_FOLDERS,
    SearchStats,
    Writer,
    doc_digest,
    page_words,
    write_segment,
    write_tables,
)
from kbtool.search.page_terms import Terms, merge_records
from kbtool.search.pagefiles import PageReader, chunk_files, rest_file
from kbtool.search.priors import is_source, priors_file
from kbtool.search.text import SearchDoc

#: Most pages the update segment holds, as a share of the site (and at least 16).
MAX_SEGMENT = 0.01
#: Postings per segment shard, roughly, in characters: every query reads a segment shard for
#: each of its terms, so they are kept about as small as a main shard.
_SEGMENT_SHARD = 4_000


def _main_files(folder: Path) -> list[str]:
    """The main part's files of an index folder, by name (``s/1f.js``), read with
    ``scandir``: thousands of them, listed by an update that does not start from a former
    index holding them."""
    names = [layout.MAIN_TABLE]
    for top in MAIN_FOLDERS:
        with contextlib.suppress(FileNotFoundError):
            names += [f"{top}/{e.name}" for e in os.scandir(folder / top) if e.name.endswith(".js")]
    return names


def _page_files(previous: dict[str, Any]) -> list[str]:
    """The page files and their continuations of an index."""
    return [name for name in previous["files"] if name.startswith(("d/", "c/"))]


def _chunk_number(name: str) -> int:
    return int(name[2:].removesuffix(".js"))


def _chunk_of(starts: list[int], doc_id: int) -> int:
    return bisect.bisect_right(starts, doc_id) - 1


def _segment_shards(size: int) -> int:
    count = 1
    while count * _SEGMENT_SHARD < size and count < 256:
        count *= 2
    return count


def _write_page_files(
    out: Writer,
    old: Path,
    docs: Mapping[str, SearchDoc],
    table: dict[str, list[Any]],
    segment: dict[str, list[Any]],
    previous: dict[str, Any],
    main_starts: list[int],
) -> tuple[list[int], set[str]]:
    """Write the page files the update changes: the main part's files of the pages edited now
    or in the previous segment (to undo those), whole, from the pages; then files for the
    pages added since. Returns the first ids of all files, and the old files not to keep."""
    skip = {n for n in _page_files(previous) if _chunk_number(n) >= len(main_starts)}
    refresh = {row[0] for row in segment.values()}
    refresh |= {row[0] for row in previous.get("delta", {}).values()}
    paths_by_id = {row[0]: path for path, row in table.items()}
    first_new = max(paths_by_id, default=-1) + 1
    for chunk in sorted({_chunk_of(main_starts, i) for i in refresh if i < first_new}):
        stop = main_starts[chunk + 1] if chunk + 1 < len(main_starts) else first_new
        ids = range(main_starts[chunk], stop)
        _, files = chunk_files(((i, docs.get(paths_by_id.get(i, ""))) for i in ids), chunk, inf)
        skip.add(rest_file(chunk))  # a continuation it no longer has is not kept
        for name, content in files:
            out.write(name, content)
    added = sorted((row[0], docs[p]) for p, row in segment.items() if row[0] >= first_new)
    new_starts, files = chunk_files(added, len(main_starts))
    for name, content in files:
        out.write(name, content)
    return main_starts + new_starts, skip


def _order_keys(
    table: dict[str, list[Any]], segment: dict[str, list[Any]], first_new: int
) -> list[list[int]] | None:
    """``[id, key]`` of each page added since the main part: a key just after the main page
    that precedes it by path (see :data:`layout.ORDER`); None if too many fall in one gap."""
    main = sorted(table)
    added = sorted(p for p, row in segment.items() if row[0] >= first_new)
    keys: list[list[int]] = []
    slot: dict[int, int] = {}
    for path in added:
        at = bisect.bisect_left(main, path)
        before = table[main[at - 1]][0] if at else -1
        slot[before] = slot.get(before, 0) + 1
        if slot[before] >= layout.ORDER:
            return None
        keys.append([segment[path][0], (before + 1) * layout.ORDER + slot[before]])
    return keys


def _dead_words(
    old: Path, previous: dict[str, Any], dead: list[int], paths: dict[int, str]
) -> dict[str, list[str]] | None:
    """The words each dead page has in the main part (by id), which the prefix counts of the
    main word lists include and a clean build would not: the previous update's, and for the
    pages dead since, read from the old page files (still the main part's version of them).
    None if one cannot be read: the counts would be wrong, so the index is written afresh."""
    known: dict[str, list[str]] = previous.get("dead_words", {})
    out = {str(i): known[str(i)] for i in dead if str(i) in known}
    new = [i for i in dead if str(i) not in out]
    if new:
        try:
            reader = PageReader(old, unscript((old / layout.META).read_bytes()))
        except (OSError, ValueError):
            reader = None
        for doc_id in new:
            doc = reader.doc(doc_id) if reader else None
            if doc is None or doc.card.path != paths.get(doc_id):
                return None
            out[str(doc_id)] = page_words(doc)
    return out


def _segment_rows(
    docs: Mapping[str, SearchDoc],
    table: dict[str, list[Any]],
    previous: dict[str, Any],
    changed: Collection[str] | None,
) -> dict[str, tuple[str, int]]:
    """path -> (digest, body length) of the pages that differ from the main part. With
    ``changed`` (the pages that may differ from the old index), only those are read; the
    others of the old segment keep their rows."""
    delta: dict[str, list[Any]] = previous.get("delta", {})
    if changed is None:
        candidates: Iterable[str] = docs
    else:
        candidates = {p for p in [*changed, *delta] if p in docs}
    rows: dict[str, tuple[str, int]] = {}
    for path in candidates:
        if changed is not None and path not in changed:
            row = delta[path]
            digest, length = str(row[1]), int(row[2])
        else:
            doc = docs[path]
            digest, length = doc_digest(doc), len(doc.body)
        if path not in table or table[path][1] != digest:
            rows[path] = (digest, length)
    return rows


def _sources(
    docs: Mapping[str, SearchDoc],
    old: Path,
    old_ids: dict[str, int],
    changed: Collection[str] | None,
) -> tuple[set[str], bytes] | None:
    """The source pages, and the old ``priors.js``: with ``changed``, a page that is not
    says whether it is a source in its old standing. None if that cannot be read."""
    try:
        data = (old / layout.PRIORS).read_bytes()
        values = decode(unscript(data))
    except (OSError, ValueError, KeyError):
        return None
    sources = set()
    for path in docs:
        doc_id = old_ids.get(path)
        if changed is None or path in changed or doc_id is None or doc_id >= len(values):
            if docs[path].card.type == "source":
                sources.add(path)
        elif is_source(values[doc_id]):
            sources.add(path)
    return sources, data


def update(
    docs: Mapping[str, SearchDoc],
    folder: Path,
    old: Path,
    previous: dict[str, Any],
    stats: SearchStats,
    links: Mapping[str, int],
    terms: Terms,
    changed: Collection[str] | None = None,
    base: dict[str, Any] | None = None,
) -> bool:
    """Write into ``folder`` the index in ``old`` updated to ``docs`` and to their in-links
    ``links``; False if it had better be written afresh. ``terms``: where the changed
    pages' term records come from (the segment merges them). ``changed``: the pages whose
    SearchDoc may differ from the old index's (None: any). ``base``: the table of a former
    index ``folder`` holds, of the same main part: its main files stay, the rest is
    replaced."""
    table: dict[str, list[Any]] = previous["table"]  # the main part: path -> [id, digest, length]
    if not len(table) / 2 <= len(docs) <= len(table) * 2:  # the shards sized for another wiki
        return False
    if changed is not None and not isinstance(changed, set | frozenset):
        changed = set(changed)
    rows = _segment_rows(docs, table, previous, changed)
    removed = [p for p in table if p not in docs]
    if len(rows) + len(removed) > max(16, MAX_SEGMENT * len(docs)):
        return False
    old_ids = {p: int(row[0]) for p, row in table.items()}
    old_ids |= {p: int(row[0]) for p, row in previous.get("delta", {}).items()}
    found = _sources(docs, old, old_ids, changed)
    if found is None:
        return False
    out = Writer(folder, stats, replace=base is not None)
    stats.changed_pages = len(rows) + len(removed)
    next_id = first_new = max((row[0] for row in table.values()), default=-1) + 1
    segment: dict[str, list[Any]] = {}
    for path in sorted(rows):
        doc_id = table[path][0] if path in table else next_id
        next_id += path not in table
        segment[path] = [doc_id, *rows[path]]
    dead = sorted({table[p][0] for p in [*rows, *removed] if p in table})
    main_starts: list[int] = previous["main_chunks"]
    starts, skip = _write_page_files(out, old, docs, table, segment, previous, main_starts)
    keys = _order_keys(table, segment, first_new)
    dead_words = _dead_words(old, previous, dead, {row[0]: p for p, row in table.items()})
    if keys is None or dead_words is None:
        return False
    in_order = sorted((row[0], path) for path, row in segment.items())
    records = terms.records([path for _, path in in_order])
    lists = merge_records(zip((doc_id for doc_id, _ in in_order), records, strict=True))
    spelled = {term: entry.text() for term, entry in lists.items()}
    shards = _segment_shards(sum(len(heads) + len(places) for heads, places in spelled.values()))
    words = write_segment(out, spelled, {term: e.count for term, e in lists.items()}, shards)
    for word_list in dead_words.values():
        for word in word_list:
            words[word] = words.get(word, 0) - 1
    out.write("x/words.js", script("x/words", {w: n for w, n in words.items() if n}))
    ids = {path: (segment.get(path) or table[path])[0] for path in docs}
    sources, old_priors = found
    name, priors = priors_file(ids, sources, links)  # any page's in-links may have changed
    if priors != old_priors:
        out.write(name, priors)
    kept: dict[str, int] = previous["files"]
    # A file the old index kept from the one before is, in a former index, that very file.
    same: set[str] = set()
    if base is not None and base.get("id") == previous.get("id"):  # a copy of the old index
        same = set(base["files"])
    elif base is not None and previous.get("from") == base.get("id"):
        same = set(base["files"]).difference(previous["written"])
    for name, size in kept.items():  # meta.js and the segment are written below
        written = name in out.names or name == layout.META or name.startswith("x/")
        if written or name in skip:
            continue
        if name in same:
            out.take(name, size)
        else:
            out.keep(old, name, size)
    if base is None:
        for name in _main_files(old):
            out.keep(old, name)
    data = {k: previous[k] for k in ("shards", "vocab", "labels", "main", "main_files")}
    data["from"] = previous.get("id")
    data |= {"delta": segment, "dead": dead, "delta_shards": shards, "keys": keys}
    data["dead_words"] = dead_words
    data |= {"main_chunks": main_starts, "chunks": starts}
    write_tables(out, data, len(docs))
    for name in base["files"] if base is not None else ():
        if name not in out.names:
            out.remove(name)
    stats.incremental = True
    stats.ids = ids
    return True
