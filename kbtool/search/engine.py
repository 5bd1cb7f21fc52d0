"""Answer a query from the index files: the matching pages, ranked, and their excerpts.

This is the reference implementation of the query algorithm; ``assets/search.js`` is a line
by line port, so ``kbtool search`` and the browser agree. For each part of the query (see
:func:`kbtool.search.tokens.parse_query`) the pages that have all its elements, at their
offsets from one common position, match it; a page matches the query when it matches every
part. Its score is the sum, over the elements, of the best ``idf × weight`` among the
element's terms. The page whose whole title is the query comes first, then score, then id.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbtool.search import layout
from kbtool.search.codec import shard_of, unscript
from kbtool.search.excerpt import Piece, excerpt
from kbtool.search.pagefiles import decode_starts
from kbtool.search.postings import SCALE, Entry, decode_entries
from kbtool.search.text import SearchDoc
from kbtool.search.tokens import Element, Part, Query, parse_query


class IndexMissing(Exception):
    """There is no readable index in the folder."""


class IndexFiles:
    """The files of one index folder, each read and decoded at most once."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._files: dict[str, Any] = {}
        self._lists: dict[str, dict[int, Entry]] = {}
        self._dead_ids: set[int] | None = None
        self._starts: list[int] | None = None
        try:
            self.meta: dict[str, Any] = unscript((folder / layout.META).read_bytes())
        except (OSError, ValueError) as error:
            raise IndexMissing(str(error)) from error
        if self.meta.get("version") != layout.VERSION:
            raise IndexMissing(f"index format {self.meta.get('version')} is not {layout.VERSION}")

    def load(self, name: str) -> Any:
        if name not in self._files:
            try:
                self._files[name] = unscript((self.folder / f"{name}.js").read_bytes())
            except FileNotFoundError:
                self._files[name] = None
        return self._files[name]

    def postings(self, term: str) -> dict[int, Entry]:
        """The pages that have ``term``: id -> entry (main shards, less the dead pages, and
        the update segment)."""
        if term not in self._lists:
            shard = self.load("s/" + shard_of(term, self.meta["shards"])) or {}
            posting = shard.get(term)
            if isinstance(posting, str) and posting.startswith("@"):
                posting = self.load("t/" + posting[1:])
            entries = decode_entries(posting) if isinstance(posting, str) else []
            delta = self.meta.get("delta")
            if delta:
                dead = self._dead()
                entries = [e for e in entries if e.doc not in dead]
                segment = self.load("x/" + shard_of(term, delta["shards"])) or {}
                if isinstance(segment.get(term), str):
                    entries += decode_entries(segment[term])
            self._lists[term] = {e.doc: e for e in entries}
        return self._lists[term]

    def _dead(self) -> set[int]:
        if self._dead_ids is None:
            self._dead_ids = set(self.meta["delta"]["dead"])
        return self._dead_ids

    def expand(self, prefix: str) -> list[str]:
        """The indexed words that start with ``prefix``, commonest first."""
        words = dict(self.load("w/" + shard_of(prefix[:2], self.meta["vocab"])) or {})
        if self.meta.get("delta"):
            for word, count in (self.load("x/words") or {}).items():
                words[word] = words.get(word, 0) + count
        found = sorted((w for w in words if w.startswith(prefix)), key=lambda w: (-words[w], w))
        return found[: layout.MAX_EXPANSIONS]

    def doc(self, doc_id: int) -> SearchDoc | None:
        if self._starts is None:
            self._starts = decode_starts(self.meta.get("chunks", ""))
        chunk = bisect.bisect_right(self._starts, doc_id) - 1
        data = self.load(f"d/{chunk}")
        try:
            return SearchDoc.from_json(data["docs"][doc_id - data["first"]])
        except (TypeError, KeyError, IndexError, ValueError):  # a damaged index: skip the page
            return None


def idf(pages: int, having: int) -> float:
    """BM25's inverse document frequency, rounded so that Python and JS agree exactly."""
    value = math.log(1 + (pages - having + 0.5) / (having + 0.5))
    return math.floor(value * 1e6 + 0.5) / 1e6


def _terms(index: IndexFiles, element: Element) -> list[str]:
    if element.prefix:
        expanded = index.expand(element.prefix)
        return expanded if element.prefix in expanded else [element.prefix, *expanded]
    return list(element.terms)


def _match_part(index: IndexFiles, part: Part) -> dict[int, float]:
    """Pages matching ``part``, with their score for it."""
    pages = index.meta["pages"]
    lists: list[list[tuple[dict[int, Entry], float]]] = []
    for element in part.elements:
        found = [p for p in (index.postings(t) for t in _terms(index, element)) if p]
        if not found:
            return {}
        if element.prefix:  # the words a prefix stands for count as one term
            weight = idf(pages, len(set().union(*(p.keys() for p in found))))
            lists.append([(p, weight) for p in found])
        else:
            lists.append([(p, idf(pages, len(p))) for p in found])
    candidates = set().union(*(p.keys() for p, _ in lists[0]))
    for alternatives in lists[1:]:
        candidates &= set().union(*(p.keys() for p, _ in alternatives))
    scores: dict[int, float] = {}
    for doc in candidates:
        if len(part.elements) > 1 and not _adjacent(doc, part.elements, lists):
            continue
        score = 0.0
        for alternatives in lists:
            score += max(
                (w * p[doc].weight / SCALE for p, w in alternatives if doc in p), default=0.0
            )
        scores[doc] = score
    return scores


def _adjacent(
    doc: int, elements: tuple[Element, ...], lists: list[list[tuple[dict[int, Entry], float]]]
) -> bool:
    """Whether ``doc`` has every element at its offset from one common start."""
    starts: set[int] | None = None
    for element, alternatives in zip(elements, lists, strict=True):
        here = {
            pos - element.offset for p, _ in alternatives if doc in p for pos in p[doc].positions
        }
        starts = here if starts is None else starts & here
        if not starts:
            return False
    return True


@dataclass(frozen=True)
class Ranked:
    query: Query
    docs: tuple[int, ...]  # best first

    @property
    def total(self) -> int:
        return len(self.docs)


def rank(index: IndexFiles, text: str) -> Ranked:
    """Every page that matches ``text``, best first."""
    query = parse_query(text)
    if not query.parts:
        return Ranked(query, ())
    scores: dict[int, float] | None = None
    for part in query.parts:
        found = _match_part(index, part)
        if scores is None:
            scores = found
        else:
            scores = {doc: s + found[doc] for doc, s in scores.items() if doc in found}
        if not scores:
            return Ranked(query, ())
    assert scores is not None
    titled = index.postings(query.title)
    order = sorted(scores, key=lambda d: (d not in titled, -math.floor(scores[d] * 1e6 + 0.5), d))
    return Ranked(query, tuple(order))


@dataclass(frozen=True)
class Hit:
    doc: SearchDoc
    excerpt: tuple[Piece, ...]


def needles(query: Query) -> list[str]:
    return [n for part in query.parts for n in part.needles]


def hits(index: IndexFiles, ranked: Ranked, start: int = 0, count: int | None = None) -> list[Hit]:
    """The results ``start..start+count`` of ``ranked``, with their excerpts."""
    chosen = ranked.docs[start : None if count is None else start + count]
    wanted = needles(ranked.query)
    out = []
    for doc_id in chosen:
        doc = index.doc(doc_id)
        if doc is not None:
            out.append(Hit(doc, tuple(excerpt(doc, wanted))))
    return out


def search(folder: Path, text: str, count: int | None = 10) -> tuple[int, list[Hit]]:
    """``(total, first hits)`` for ``text`` over the index in ``folder``."""
    index = IndexFiles(folder)
    ranked = rank(index, text)
    return ranked.total, hits(index, ranked, 0, count)
