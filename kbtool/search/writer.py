"""Write the search index of a site's pages into a folder, from scratch or as an update.

:func:`write_search_index` is the build's entry point. Given the previous index, it keeps
every file whose content cannot have changed (hard-linked, or copied across file systems)
and rewrites only the shards that hold a term of a page that was added, edited or removed,
those pages' own files, and the small page table and ``meta.js``. When many pages changed
(or the shard count must grow), it writes everything from scratch.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kbtool.search import layout
from kbtool.search.codec import script, shard_of, unscript
from kbtool.search.pagefiles import chunk_files, encode_starts
from kbtool.search.postings import append_entry, doc_terms
from kbtool.search.text import SearchDoc
from kbtool.search.tokens import CJK_SET, TITLE_KEY


@dataclass
class SearchStats:
    pages: int = 0
    files: int = 0
    bytes: int = 0
    written: int = 0
    kept: int = 0
    changed_pages: int = 0
    incremental: bool = False
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def doc_digest(doc: SearchDoc) -> str:
    fields = [doc.path, doc.url, doc.title, doc.type, doc.summary, *doc.tags, "\0", *doc.headings]
    data = "\0".join([*fields, "\0", doc.body]).encode("utf-8", errors="surrogatepass")
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def _is_word(term: str) -> bool:
    """A word (not CJK, not a title key): what a prefix may expand to."""
    return not term.startswith(TITLE_KEY) and term[0] not in CJK_SET


class Writer:
    """Writes files under the new index folder, counting them."""

    def __init__(self, folder: Path, stats: SearchStats) -> None:
        self.folder = folder
        self.stats = stats
        self.names: set[str] = set()

    def write(self, name: str, data: bytes) -> None:
        path = self.folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.names.add(name)
        self.stats.written += 1

    def keep(self, old: Path, name: str) -> None:
        target = self.folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(old / name, target)
        except OSError:
            shutil.copy2(old / name, target)
        self.names.add(name)
        self.stats.kept += 1


def _average(docs: Iterable[SearchDoc]) -> float:
    lengths = [len(doc.body) for doc in docs]
    return sum(lengths) / len(lengths) if lengths else 1.0


def _put_posting(out: Writer, shard: dict[str, str], term: str, posting: str) -> None:
    if len(posting) > layout.LONG_LIST:
        name = layout.long_name(term)
        out.write(layout.long_file(name), script("t/" + name, posting))
        shard[term] = "@" + name
    else:
        shard[term] = posting


def write_tables(out: Writer, data: dict[str, Any], pages: int) -> None:
    """The page table (``pages.json``) and ``meta.js``, what the client needs of it: page
    count, shard counts, and the state of the update segment if there is one."""
    meta: dict[str, Any] = {"version": layout.VERSION, "pages": pages}
    meta |= {"shards": data["shards"], "vocab": data["vocab"]}
    meta["chunks"] = encode_starts(data["chunks"])
    if "delta" in data:
        meta["delta"] = {"shards": data["delta_shards"], "dead": sorted(data["dead"])}
    out.write(layout.TABLE, json.dumps({"version": layout.VERSION, **data}).encode())
    out.write(layout.META, script("meta", meta))


def collect(docs: Iterable[tuple[int, SearchDoc]], average: float) -> dict[str, list[Any]]:
    """``term -> [posting list (ASCII bytes), last page id, pages]`` of ``docs``, given in
    increasing id order."""
    lists: dict[str, list[Any]] = {}
    for doc_id, doc in docs:
        for term, (weight, positions) in doc_terms(doc, average).items():
            entry = lists.get(term)
            if entry is None:
                entry = lists[term] = [bytearray(), -1, 0]
            append_entry(entry[0], doc_id - entry[1], weight, positions)
            entry[1] = doc_id
            entry[2] += 1
    return lists


def write_lists(
    out: Writer, lists: dict[str, list[Any]], folder: str, shards: int, long_lists: bool
) -> dict[str, int]:
    """Write ``lists`` as shards ``<folder>/<hex>.js``; return the words' page counts."""
    by_shard: dict[str, dict[str, str]] = {}
    words: dict[str, int] = {}
    for term, (posting, _, count) in lists.items():
        shard = by_shard.setdefault(shard_of(term, shards), {})
        if long_lists:
            _put_posting(out, shard, term, posting.decode("ascii"))
        else:
            shard[term] = posting.decode("ascii")
        if _is_word(term):
            words[term] = count
    for number in range(shards):  # every shard, empty or not: a missing file is a 404
        name = f"{number:x}"
        out.write(f"{folder}/{name}.js", script(f"{folder}/{name}", by_shard.get(name, {})))
    return words


def _full(docs: dict[str, SearchDoc], folder: Path, stats: SearchStats) -> None:
    out = Writer(folder, stats)
    paths = sorted(docs)
    shards = layout.shard_count(len(paths))
    vocab = layout.vocab_count(shards)
    average = _average(docs.values())
    table = {
        path: [i, doc_digest(docs[path]), len(docs[path].body)] for i, path in enumerate(paths)
    }
    starts, files = chunk_files((i, docs[p]) for i, p in enumerate(paths))
    for name, content in files:
        out.write(name, content)
    lists = collect(((i, docs[p]) for i, p in enumerate(paths)), average)
    counts = write_lists(out, lists, "s", shards, long_lists=True)
    del lists
    words: dict[str, dict[str, int]] = {}
    for word, count in counts.items():
        words.setdefault(shard_of(layout.vocab_key(word), vocab), {})[word] = count
    for number in range(vocab):
        name = f"{number:x}"
        out.write(layout.vocab_file(name), script("w/" + name, words.get(name, {})))
    data = {"table": table, "average": average, "shards": shards, "vocab": vocab}
    write_tables(out, data | {"chunks": starts, "main_chunks": starts}, len(docs))


def read_table(old: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((old / layout.TABLE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != layout.VERSION:
        return None
    return data


def read(old: Path, name: str) -> Any:
    try:
        return unscript((old / name).read_bytes())
    except (OSError, ValueError):
        return None


def write_search_index(
    docs: dict[str, SearchDoc], new_dir: Path, old_dir: Path | None = None
) -> SearchStats:
    """Write the index of ``docs`` (by path) into ``new_dir`` (created; must not hold an
    index), updating the one in ``old_dir`` when there is one that can be updated."""
    started = time.perf_counter()
    stats = SearchStats(pages=len(docs))
    new_dir.mkdir(parents=True, exist_ok=True)
    previous = read_table(old_dir) if old_dir is not None and old_dir.is_dir() else None
    done = False
    if previous is not None and old_dir is not None:
        from kbtool.search.update import update

        done = update(docs, new_dir, old_dir, previous, stats)
        if not done:
            shutil.rmtree(new_dir)
            new_dir.mkdir(parents=True)
            stats = SearchStats(pages=len(docs))
    if not done:
        stats.changed_pages = len(docs)
        _full(docs, new_dir, stats)
    files = [p for p in new_dir.rglob("*") if p.is_file()]
    stats.files = len(files)
    stats.bytes = sum(p.stat().st_size for p in files)
    stats.seconds = round(time.perf_counter() - started, 3)
    return stats
