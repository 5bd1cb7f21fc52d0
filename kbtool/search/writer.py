"""Write the search index of a site's pages into a folder, from scratch or as an update.

:func:`write_search_index` is the build's entry point. Given the previous index, it keeps
every file whose content cannot have changed (hard-linked, or copied across file systems)
and rewrites only the shards that hold a term of a page that was added, edited or removed,
those pages' own files, and the small page table and ``meta.js``. When many pages changed
(or the shard count must grow), it writes everything from scratch.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from kbtool.search import layout, tables
from kbtool.search.codec import script, shard_of, unscript
from kbtool.search.output import (
    SearchStats,
    Writer,
    doc_digest,
    is_main,
    main_digest,
    write_tables,
)
from kbtool.search.page_terms import Terms, merge_groups
from kbtool.search.pagefiles import chunk_files
from kbtool.search.priors import priors_file
from kbtool.search.text import SearchDoc
from kbtool.search.update import update


@runtime_checkable
class InOrder(Protocol):
    """Docs that hand out many in order without holding them all (the site's)."""

    def in_order(self, paths: list[str]) -> Iterator[tuple[str, SearchDoc]]: ...


def _pairs(docs: Mapping[str, SearchDoc], paths: list[str]) -> Iterator[tuple[str, SearchDoc]]:
    return ((path, docs[path]) for path in paths)


def _full(
    docs: Mapping[str, SearchDoc],
    folder: Path,
    stats: SearchStats,
    labels: dict[str, str],
    links: Mapping[str, int],
    terms: Terms,
) -> None:
    out = Writer(folder, stats)
    paths = sorted(docs)
    sources: set[str] = set()
    table: dict[str, list[Any]] = {}

    def numbered() -> Iterator[tuple[int, SearchDoc]]:
        # One pass, in order: each doc is asked for once and let go (a whole wiki's docs
        # are never held, nor the page files made of them).
        pairs = docs.in_order(paths) if isinstance(docs, InOrder) else _pairs(docs, paths)
        for i, (path, doc) in enumerate(pairs):
            if doc.card.type == "source":
                sources.add(path)
            table[path] = [i, doc_digest(doc), len(doc.body)]
            yield i, doc

    starts, _ = chunk_files(numbered(), write=out.write)
    out.write(*priors_file({path: i for i, path in enumerate(paths)}, sources, links))
    counts: dict[str, int] = {}
    shards, merged = merge_groups(folder, terms.records(paths), terms.spread)
    for written, words in merged:
        for name, size in written:
            out.wrote_elsewhere(name, size)
        counts.update(words)
    vocab = layout.vocab_count(shards)
    words_by_file: dict[str, dict[str, int]] = {}
    for word, count in counts.items():
        words_by_file.setdefault(shard_of(layout.vocab_key(word), vocab), {})[word] = count
    for number in range(vocab):
        name = f"{number:x}"
        out.write(layout.vocab_file(name), script("w/" + name, words_by_file.get(name, {})))
    digest = main_digest(table, shards, vocab)
    main_table = {"version": layout.VERSION, "main": digest, "table": table}
    out.write(layout.MAIN_TABLE, json.dumps(main_table).encode())
    main = [size for name, size in out.sizes.items() if is_main(name)]
    data = {"shards": shards, "vocab": vocab, "labels": labels}
    data |= {"main": digest, "main_files": [len(main), sum(main)]}
    write_tables(out, data | {"chunks": starts, "main_chunks": starts}, len(docs))
    stats.ids = {path: i for i, path in enumerate(paths)}


def _read_json(path: Path) -> dict[str, Any] | None:
    """The table in ``path`` (a copy of its top level: the value under it is held, see
    :mod:`kbtool.search.tables`), or None if it is not one of this layout."""
    try:
        data = tables.load(path)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != layout.VERSION:
        return None
    return dict(data)


def read_table(old: Path, main: bool = True) -> dict[str, Any] | None:
    """The tables of the index in ``old`` (``main``: with the main part's page table, as
    ``table``), or None if it is not one an update can start from."""
    data = _read_json(old / layout.TABLE)
    if data is None or not all(k in data for k in ("main", "main_files", "files", "written")):
        return None  # not an index, or one written before the table listed its files
    if main:
        main_table = _read_json(old / layout.MAIN_TABLE)
        if main_table is None or main_table.get("main") != data["main"]:
            return None
        data["table"] = main_table["table"]
    return data


def read(old: Path, name: str) -> Any:
    try:
        return unscript((old / name).read_bytes())
    except (OSError, ValueError):
        return None


def write_search_index(
    docs: Mapping[str, SearchDoc],
    new_dir: Path,
    old_dir: Path | None = None,
    labels: dict[str, str] | None = None,
    links: Mapping[str, int] | None = None,
    changed: Collection[str] | None = None,
    terms: Terms | None = None,
) -> SearchStats:
    """Write the index of ``docs`` (by path) into ``new_dir``, updating the one in
    ``old_dir`` when there is one that can be updated. ``new_dir`` is created; a former index
    in it (a spare site's, older than ``old_dir``'s) is brought up to date when its main part
    is ``old_dir``'s, else removed.
    ``labels`` (type -> what the site calls it) go to ``meta.js`` for the results; ``links``
    (path -> how many pages link to it) to ``priors.js`` for the ranking. ``changed``, when
    given, holds every page whose SearchDoc may differ from the one in ``old_dir``: an update
    then asks ``docs`` for those and for the few others it rewrites, not for every page.
    ``terms`` gives the pages' term records, which a write from scratch and an update's
    segment merge, and the workers that merge them (by default: made from ``docs``, merged
    in this process)."""
    labels = dict(sorted((labels or {}).items()))
    links = links or {}
    terms = terms or Terms.made_from(docs)
    started = time.perf_counter()
    stats = SearchStats(pages=len(docs))
    previous = read_table(old_dir) if old_dir is not None and old_dir.is_dir() else None
    base = _base(new_dir, previous)
    done = False
    if previous is not None and old_dir is not None:
        previous |= {"labels": labels}
        done = update(docs, new_dir, old_dir, previous, stats, links, terms, changed, base)
        if not done:
            shutil.rmtree(new_dir)
            new_dir.mkdir(parents=True)
            stats = SearchStats(pages=len(docs))
    if not done:
        stats.changed_pages = len(docs)
        _full(docs, new_dir, stats, labels, links, terms)
    stats.seconds = round(time.perf_counter() - started, 3)
    return stats


def _base(new_dir: Path, previous: dict[str, Any] | None) -> dict[str, Any] | None:
    """The table of the former index ``new_dir`` holds (a spare site's) if an update of the
    index ``previous`` describes can start from it: its main part the same. Else the folder
    is emptied (made if missing), and None."""
    base = read_table(new_dir, main=False) if (new_dir / layout.TABLE).is_file() else None
    if base is not None and previous is not None and base["main"] == previous["main"]:
        return base
    if new_dir.exists():
        shutil.rmtree(new_dir)
    new_dir.mkdir(parents=True)
    return None
