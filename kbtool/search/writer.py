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
from kbtool.search.postings import Entry, append_entry, decode_entries, doc_terms, encode_entries
from kbtool.search.text import SearchDoc
from kbtool.search.tokens import CJK_SET, TITLE_KEY

#: Beyond this share of changed pages, an update costs more than writing everything.
_UPDATE_SHARE = 0.2


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
    data = json.dumps(doc.to_json(), sort_keys=True).encode()  # ASCII: any string encodes
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def _is_word(term: str) -> bool:
    """A word (not CJK, not a title key): what a prefix may expand to."""
    return not term.startswith(TITLE_KEY) and term[0] not in CJK_SET


class _Writer:
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


def _put_posting(out: _Writer, shard: dict[str, str], term: str, posting: str) -> None:
    if len(posting) > layout.LONG_LIST:
        name = layout.long_name(term)
        out.write(layout.long_file(name), script("t/" + name, posting))
        shard[term] = "@" + name
    else:
        shard[term] = posting


def _write_tables(
    out: _Writer, table: dict[str, list[Any]], average: float, shards: int, vocab: int
) -> None:
    meta = {"version": layout.VERSION, "pages": len(table), "shards": shards, "vocab": vocab}
    out.write(layout.TABLE, json.dumps({**meta, "average": average, "table": table}).encode())
    out.write(layout.META, script("meta", meta))


def _full(docs: dict[str, SearchDoc], folder: Path, stats: SearchStats) -> None:
    out = _Writer(folder, stats)
    paths = sorted(docs)
    shards = layout.shard_count(len(paths))
    vocab = layout.vocab_count(shards)
    average = _average(docs.values())
    lists: dict[str, list[Any]] = {}  # term -> [posting bytes, last id, pages]
    table: dict[str, list[Any]] = {}
    for doc_id, path in enumerate(paths):
        doc = docs[path]
        for term, (weight, positions) in doc_terms(doc, average).items():
            entry = lists.get(term)
            if entry is None:
                entry = lists[term] = [bytearray(), -1, 0]
            append_entry(entry[0], doc_id - entry[1], weight, positions)
            entry[1] = doc_id
            entry[2] += 1
        out.write(layout.doc_file(doc_id), script(f"d/{doc_id}", doc.to_json()))
        table[path] = [doc_id, doc_digest(doc), len(doc.body)]
    by_shard: dict[str, dict[str, str]] = {}
    words: dict[str, dict[str, int]] = {}
    for term, (posting, _, count) in lists.items():
        shard = by_shard.setdefault(shard_of(term, shards), {})
        _put_posting(out, shard, term, posting.decode("ascii"))
        if _is_word(term):
            words.setdefault(shard_of(layout.vocab_key(term), vocab), {})[term] = count
    del lists
    for name, shard in by_shard.items():
        out.write(layout.shard_file(name), script("s/" + name, shard))
    for name, counts in words.items():
        out.write(layout.vocab_file(name), script("w/" + name, counts))
    _write_tables(out, table, average, shards, vocab)


def _read_table(old: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((old / layout.TABLE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != layout.VERSION:
        return None
    return data


def _read(old: Path, name: str) -> Any:
    try:
        return unscript((old / name).read_bytes())
    except (OSError, ValueError):
        return None


class _Stale(Exception):
    """The previous index cannot be updated (incomplete, or too much changed)."""


def _update(
    docs: dict[str, SearchDoc],
    folder: Path,
    old: Path,
    previous: dict[str, Any],
    stats: SearchStats,
) -> bool:
    """Update the index in ``old`` into ``folder``; False if it must be written afresh."""
    table: dict[str, list[Any]] = previous["table"]
    shards, vocab = previous["shards"], previous["vocab"]
    if shards != layout.shard_count(len(docs)):
        return False
    digests = {path: doc_digest(doc) for path, doc in docs.items()}
    changed = [p for p in docs if p not in table or table[p][1] != digests[p]]
    removed = [p for p in table if p not in docs]
    if len(changed) + len(removed) > max(8, _UPDATE_SHARE * len(docs)):
        return False
    out = _Writer(folder, stats)
    stats.changed_pages = len(changed) + len(removed)
    new_table = {p: row for p, row in table.items() if p in docs}
    total = previous["average"] * len(table)
    total -= sum(table[p][2] for p in removed + changed if p in table)
    average = max((total + sum(len(docs[p].body) for p in changed)) / max(len(docs), 1), 1.0)
    try:
        touched, stale_ids = _old_terms(old, [table[p][0] for p in changed + removed if p in table])
    except _Stale:
        return False
    used = {row[0] for row in new_table.values()}
    free = (i for i in range(len(docs) + len(table) + 1) if i not in used)
    fresh: dict[int, dict[str, tuple[int, list[int]]]] = {}
    for path in changed:
        doc_id = table[path][0] if path in table else next(free)
        fresh[doc_id] = doc_terms(docs[path], average)
        touched.update(fresh[doc_id])
        new_table[path] = [doc_id, digests[path], len(docs[path].body)]
        out.write(layout.doc_file(doc_id), script(f"d/{doc_id}", docs[path].to_json()))
    skip = {layout.doc_file(table[path][0]) for path in removed}  # old files not carried over
    try:
        counts = _rewrite_shards(out, old, shards, touched, stale_ids | set(fresh), fresh, skip)
    except _Stale:
        return False
    _rewrite_vocab(out, old, vocab, counts, skip)
    _write_tables(out, new_table, average, shards, vocab)
    for file in old.rglob("*.js"):
        name = file.relative_to(old).as_posix()
        if name not in out.names and name not in skip:
            out.keep(old, name)
    stats.incremental = True
    return True


def _old_terms(old: Path, ids: list[int]) -> tuple[set[str], set[int]]:
    """The terms that the previous versions of pages ``ids`` had."""
    touched: set[str] = set()
    for doc_id in ids:
        data = _read(old, layout.doc_file(doc_id))
        if data is None:
            raise _Stale
        touched.update(doc_terms(SearchDoc.from_json(data), 1.0))
    return touched, set(ids)


def _rewrite_shards(
    out: _Writer,
    old: Path,
    shards: int,
    touched: set[str],
    stale: set[int],
    fresh: dict[int, dict[str, tuple[int, list[int]]]],
    skip: set[str],
) -> dict[str, int]:
    """Rewrite the shards of ``touched`` terms: entries of ``stale`` pages out, ``fresh``
    ones in. Returns each touched term's new page count."""
    by_shard: dict[str, list[str]] = {}
    for term in touched:
        by_shard.setdefault(shard_of(term, shards), []).append(term)
    counts: dict[str, int] = {}
    for name, names in by_shard.items():
        shard = _read(old, layout.shard_file(name)) or {}
        for term in names:
            posting = shard.pop(term, None)
            if isinstance(posting, str) and posting.startswith("@"):
                skip.add(layout.long_file(posting[1:]))
                posting = _read(old, layout.long_file(posting[1:]))
                if posting is None:
                    raise _Stale
            entries = [e for e in decode_entries(posting) if e.doc not in stale] if posting else []
            for doc_id, terms in fresh.items():
                if term in terms:
                    weight, positions = terms[term]
                    entries.append(Entry(doc_id, weight, tuple(positions)))
            entries.sort(key=lambda e: e.doc)
            counts[term] = len(entries)
            if entries:
                _put_posting(out, shard, term, encode_entries(entries))
        out.write(layout.shard_file(name), script("s/" + name, shard))
    return counts


def _rewrite_vocab(
    out: _Writer, old: Path, vocab: int, counts: dict[str, int], skip: set[str]
) -> None:
    by_vocab: dict[str, list[str]] = {}
    for term in counts:
        if _is_word(term):
            by_vocab.setdefault(shard_of(layout.vocab_key(term), vocab), []).append(term)
    for name, names in by_vocab.items():
        words = _read(old, layout.vocab_file(name)) or {}
        for term in names:
            words.pop(term, None)
            if counts[term]:
                words[term] = counts[term]
        if words:
            out.write(layout.vocab_file(name), script("w/" + name, words))
        else:
            skip.add(layout.vocab_file(name))


def write_search_index(
    docs: dict[str, SearchDoc], new_dir: Path, old_dir: Path | None = None
) -> SearchStats:
    """Write the index of ``docs`` (by path) into ``new_dir`` (created; must not hold an
    index), updating the one in ``old_dir`` when there is one that can be updated."""
    started = time.perf_counter()
    stats = SearchStats(pages=len(docs))
    new_dir.mkdir(parents=True, exist_ok=True)
    previous = _read_table(old_dir) if old_dir is not None and old_dir.is_dir() else None
    done = False
    if previous is not None and old_dir is not None:
        done = _update(docs, new_dir, old_dir, previous, stats)
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
