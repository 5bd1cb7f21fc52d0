"""Update an index for edited, added and removed pages without touching its main shards.

The pages that changed since the index was written from scratch go to a small **update
segment**, as in log-structured indexes (Lucene's segments): their postings in ``x/<hex>.js``
shards of their own, their words in ``x/words.js``, and in ``meta.js`` the ids of the pages
whose postings in the main shards are no longer valid (``dead``: edited or removed). A query
reads a term from both and drops the dead pages' main entries, which gives the same pages as
a fresh build. The main shards, long lists and word lists are kept as they are (hard links),
so an edit costs the tokenising of the changed pages and a few small files, whatever the
size of the site. The segment is written again at each update; past :data:`MAX_SEGMENT`
pages the index is written from scratch, which empties it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kbtool.search import layout
from kbtool.search.codec import script
from kbtool.search.text import SearchDoc
from kbtool.search.writer import SearchStats, Writer, collect, doc_digest, write_lists, write_tables

#: Most pages the update segment holds, as a share of the site (and at least 16).
MAX_SEGMENT = 0.01
#: Postings per segment shard, roughly, in characters.
_SEGMENT_SHARD = 16_000


def _segment_shards(size: int) -> int:
    count = 1
    while count * _SEGMENT_SHARD < size and count < 256:
        count *= 2
    return count


def update(
    docs: dict[str, SearchDoc],
    folder: Path,
    old: Path,
    previous: dict[str, Any],
    stats: SearchStats,
) -> bool:
    """Write into ``folder`` the index in ``old`` updated to ``docs``; False if it had better
    be written afresh."""
    table: dict[str, list[Any]] = previous["table"]  # the main part: path -> [id, digest, length]
    if previous["shards"] != layout.shard_count(len(docs)):
        return False
    changed = sorted(p for p in docs if p not in table or table[p][1] != doc_digest(docs[p]))
    removed = [p for p in table if p not in docs]
    if len(changed) + len(removed) > max(16, MAX_SEGMENT * len(docs)):
        return False
    out = Writer(folder, stats)
    stats.changed_pages = len(changed) + len(removed)
    next_id = max((row[0] for row in table.values()), default=-1) + 1
    segment: dict[str, list[Any]] = {}
    for path in changed:
        doc_id = table[path][0] if path in table else next_id
        next_id += path not in table
        segment[path] = [doc_id, doc_digest(docs[path]), len(docs[path].body)]
    dead = sorted({table[p][0] for p in changed + removed if p in table})
    skip = {layout.doc_file(table[p][0]) for p in removed}
    # Pages of the previous segment: their files are rewritten (or dropped) from the pages.
    for path, row in previous.get("delta", {}).items():
        skip.add(layout.doc_file(row[0]))
        if path in docs and path not in segment:
            out.write(layout.doc_file(row[0]), script(f"d/{row[0]}", docs[path].to_json()))
    for path, row in segment.items():
        out.write(layout.doc_file(row[0]), script(f"d/{row[0]}", docs[path].to_json()))
    by_id = sorted((row[0], docs[path]) for path, row in segment.items())
    lists = collect(by_id, previous["average"])
    shards = _segment_shards(sum(len(entry[0]) for entry in lists.values()))
    words = write_lists(out, lists, "x", shards, long_lists=False)
    out.write("x/words.js", script("x/words", words))
    data = {k: previous[k] for k in ("table", "average", "shards", "vocab")}
    data |= {"delta": segment, "dead": dead, "delta_shards": shards}
    write_tables(out, data, len(docs))
    for file in old.rglob("*.js"):
        name = file.relative_to(old).as_posix()
        if name not in out.names and name not in skip and not name.startswith("x/"):
            out.keep(old, name)
    stats.incremental = True
    return True
