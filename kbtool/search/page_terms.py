"""A page's index terms as the page worker makes them, and the index's term files merged from
them.

The worker that parses a page also takes its terms (:func:`~kbtool.search.postings.doc_terms`)
and spells each term's entry as the index will: its weight and position count, and its
positions as deltas. The record is split into :data:`GROUPS` groups by the term's hash, the
same hash that picks a term's shard, so that one group's terms fill whole shards. A write
from scratch then merges each group in a worker of its own (:func:`write_group`): it reads
that group of every page, in page-id order, puts the page id deltas in front, and writes the
group's shards and long lists. Nothing is tokenised at index time, and no entry passes
through the main process.

A record is text: its groups one to a line, each group ``term<TAB>head<TAB>places`` repeated.
Terms hold no tab or line break (they are words, CJK characters, and title and filter keys
with their whitespace collapsed to single spaces).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from kbtool.search import layout
from kbtool.search.codec import codes, encode, fnv1a, script, shard_of
from kbtool.search.output import SearchStats, Writer
from kbtool.search.postings import SEPARATOR, doc_terms
from kbtool.search.text import SearchDoc
from kbtool.search.tokens import is_word

#: Groups a record is split into: the most workers a write from scratch keeps busy, and the
#: fewest shards an index has (a power of two, so that every shard lies in one group).
GROUPS = 16
assert layout.shard_count(0) >= GROUPS


@cache
def group_of(term: str) -> int:
    """The group of ``term``: the low bits of the hash that picks its shard (remembered, as
    a worker meets the same few hundred thousand terms on every page)."""
    return fnv1a(term) & (GROUPS - 1)


def _number(n: int, spelled: tuple[str, ...]) -> str:
    return spelled[n] if n < len(spelled) else encode([n])


def spell(weight: int, positions: list[int]) -> tuple[str, str]:
    """One page's entry of a term as the index spells it, but for the page id delta in front:
    its head (weight, number of positions) and its places (first position, deltas)."""
    spelled = codes()
    head = _number(weight, spelled) + _number(len(positions), spelled)
    if not positions:
        return head, ""
    deltas = map(operator.sub, positions[1:], positions)
    return head, _number(positions[0], spelled) + "".join(_number(d, spelled) for d in deltas)


def term_record(doc: SearchDoc) -> bytes:
    """The record of ``doc``'s terms, by group."""
    groups: list[list[str]] = [[] for _ in range(GROUPS)]
    for term, (weight, positions) in doc_terms(doc).items():
        groups[group_of(term)] += (term, *spell(weight, positions))
    return "\n".join("\t".join(group) for group in groups).encode("utf-8", "surrogatepass")


def split_record(data: bytes) -> list[str]:
    """The groups of a record (empty ones for a record that is not one: its page is then
    left out of the term files, never fails the write)."""
    groups = data.decode("utf-8", "surrogatepass").split("\n")
    return groups if len(groups) == GROUPS else [""] * GROUPS


#: One group's files as written: (name, bytes) of each, and the page count of each word.
Written = tuple[list[tuple[str, int]], dict[str, int]]


class Postings:
    """One term's posting list while it is merged: its heads and places as pieces."""

    __slots__ = ("count", "heads", "last", "places")

    def __init__(self, first: str, head: str, places: str, doc_id: int) -> None:
        self.heads = [first, head]
        self.places = [places]
        self.last = doc_id
        self.count = 1

    def text(self) -> tuple[str, str]:
        """The list as the index spells it: its heads and its places."""
        return "".join(self.heads), "".join(self.places)


def merge(pages: Iterable[tuple[int, str]]) -> dict[str, Postings]:
    """The posting lists of ``pages``: (id, the text of one group of its record, or of all
    its groups joined by a tab), in increasing id order. (The hot loop of a write from
    scratch: one step per term of each page.)"""
    spelled = codes()
    lists: dict[str, Postings] = {}
    for doc_id, text in pages:
        if not text:
            continue
        fields = iter(text.split("\t"))
        for term, head, places in zip(fields, fields, fields, strict=False):
            entry = lists.get(term)
            if entry is None:
                lists[term] = Postings(_number(doc_id + 1, spelled), head, places, doc_id)
                continue
            entry.heads += (_number(doc_id - entry.last, spelled), head)
            entry.places.append(places)
            entry.last = doc_id
            entry.count += 1
    return lists


def merge_records(pages: Iterable[tuple[int, bytes]]) -> dict[str, Postings]:
    """:func:`merge` of whole records (an update segment's few pages)."""
    joined = ((i, "\t".join(g for g in split_record(data) if g)) for i, data in pages)
    return merge(joined)


def write_group(folder: Path, shards: int, group: int, pages: Sequence[str]) -> Written:
    """Merge one group of every page's record (``pages[i]``: page ``i``'s, in id order) into
    posting lists, and write the group's shards ``s/<hex>.js`` (every one, empty or not: a
    missing file is a 404) and long lists under ``folder``."""
    return _write_shards(folder, shards, group, merge(enumerate(pages)))


def _write_shards(folder: Path, shards: int, group: int, lists: dict[str, Postings]) -> Written:
    out = Writer(folder, SearchStats())  # its sizes go back to the main process's writer
    write = out.write
    by_shard: dict[str, dict[str, str]] = {}
    words: dict[str, int] = {}
    for term, entry in lists.items():
        shard = by_shard.setdefault(shard_of(term, shards), {})
        heads, places = entry.text()
        if len(heads) + len(places) > layout.LONG_LIST:
            name = layout.long_name(term)
            write(layout.long_file(name), script("t/" + name, heads))
            write(layout.places_file(name), script("p/" + name, places))
            shard[term] = "@" + name
        else:
            shard[term] = heads + SEPARATOR + places
        if is_word(term):
            words[term] = entry.count
    for number in range(group, shards, GROUPS):
        name = f"{number:x}"
        write(layout.shard_file(name), script(f"s/{name}", by_shard.get(name, {})))
    return list(out.sizes.items()), words


#: Runs ``function(shared, chunk)`` for each chunk, maybe in other processes (the build's
#: workers, forked with ``shared``), and gives the results in order.
Spread = Callable[[Callable[[Any, int], Written], Any, Sequence[int]], Iterable[Written]]


def in_process(
    function: Callable[[Any, int], Written], shared: Any, chunks: Sequence[int]
) -> Iterator[Written]:
    return (function(shared, chunk) for chunk in chunks)


@dataclass(frozen=True)
class Terms:
    """What a write from scratch merges: each page's term record (``records(paths)``, in
    the order asked), and where the groups are merged (``spread``)."""

    records: Callable[[list[str]], Iterable[bytes]]
    spread: Spread = in_process

    @classmethod
    def made_from(cls, docs: Mapping[str, SearchDoc]) -> Terms:
        """Records made now from the pages' SearchDocs, merged in this process."""
        return cls(lambda paths: (term_record(docs[path]) for path in paths))


def merge_groups(
    folder: Path, records: Iterable[bytes], spread: Spread
) -> tuple[int, Iterable[Written]]:
    """Write every group's shards and long lists under ``folder`` from ``records`` (page
    ``i``'s ``i``-th), each group a chunk of ``spread``: the shard count, and what each
    group wrote. The shards are as many as the vocabulary needs, counted in one group."""
    groups: list[list[str]] = [[] for _ in range(GROUPS)]
    for data in records:
        for group, text in zip(groups, split_record(data), strict=True):
            group.append(text)
    vocabulary = {term for text in groups[0] if text for term in text.split("\t")[0::3]}
    shards = layout.shard_count(len(vocabulary) * GROUPS)
    return shards, spread(_merge, (folder, shards, groups), range(GROUPS))


def _merge(shared: tuple[Path, int, list[list[str]]], group: int) -> Written:
    folder, shards, groups = shared
    return write_group(folder, shards, group, groups[group])
