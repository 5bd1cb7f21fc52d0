"""Answer a query from the index files: the matching pages, ranked, and their excerpts.

This is the reference implementation of the query algorithm; ``assets/search.js`` is a line
by line port, so ``kbtool search`` and the browser agree. A query (see
:func:`kbtool.search.tokens.parse_query`) has optional words, required phrases, excluded
parts and filters. A part **matches** a page when the page has all its elements at their
offsets from one common position. A word that no page has, of four letters or more, stands
for the indexed words one edit from it (:func:`one_edit`). Loosely (in a query of several
words, or when no page has a one-word query exactly), a lone CJK run of three or more
characters also matches **near** (:func:`_near`: its bigrams in order, each at most
:data:`GAP` positions later than exact), for :data:`NEAR` of its score, or **partly** (at
least half of all its bigrams, anywhere), for :data:`PARTIAL` of theirs.

A page is in the answer when it matches every phrase and filter, no excluded part, and, if
the query has words, at least one of them, so a one-word query keeps its exact-substring
semantics whenever a page holds it. Its score is ``coord × Σ words + Σ phrases``: a part
scores the sum over its elements of the best ``idf × weight`` among the element's terms, and
``coord`` is the share of the query's words the page matches (a partial match counts
:data:`PARTIAL_SHARE`), so pages with more of them rank higher. The page whose whole title is
the query comes first, then score (rounded to 6 places, so float noise cannot reorder), then
the page's order key (:func:`kbtool.search.layout.order_key`: path order, in a clean build
and after updates alike).
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
from kbtool.search.postings import SCALE, Entry, decode_entries, decode_heads
from kbtool.search.text import SearchDoc
from kbtool.search.tokens import (
    CJK_SET,
    SHORT_KEY,
    TITLE_KEY,
    Element,
    Part,
    Query,
    filter_term,
    parse_query,
)

#: Share of a part's score that a near match earns.
NEAR = 0.5
#: Most extra positions between consecutive bigrams of a near match.
GAP = 6
#: Share of the score of the bigrams it holds that a partial match earns, and how much it
#: counts as a matched word.
PARTIAL = 0.25
PARTIAL_SHARE = 0.5
#: What a word held in the title adds to a page's score (in the summary or tags 3/4 of it,
#: in a heading less): whatever the word's IDF, so that on a wiki where every page mentions
#: its topic words, the page about them still comes first.
FIELD = 4.0
#: Shortest word looked up as a misspelling when no page has it, and most words it becomes.
FUZZY_LENGTH = 4
FUZZY_WORDS = 5

Lists = list[list[tuple[dict[int, Entry], float]]]  # per element: (postings, idf) alternatives


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
        labels = self.meta.get("labels")
        self.labels: dict[str, str] = labels if isinstance(labels, dict) else {}

    def load(self, name: str) -> Any:
        if name not in self._files:
            try:
                self._files[name] = unscript((self.folder / f"{name}.js").read_bytes())
            except FileNotFoundError:
                self._files[name] = None
        return self._files[name]

    def postings(self, term: str, positions: bool = False) -> dict[int, Entry]:
        """The pages that have ``term``: id -> entry (main shards, less the dead pages, and
        the update segment). A long list's entries have their positions only if asked for:
        they are a file of their own."""
        key = ("+" if positions else "") + term
        if key not in self._lists:
            if not positions and "+" + term in self._lists:
                return self._lists["+" + term]
            shard = self.load("s/" + shard_of(term, self.meta["shards"])) or {}
            posting = shard.get(term)
            entries: list[Entry] = []
            if isinstance(posting, str) and posting.startswith("@"):
                heads = self.load("t/" + posting[1:])
                places = self.load("p/" + posting[1:]) if positions else None
                if isinstance(heads, str):
                    entries = decode_heads(heads).entries(places if positions else None)
            elif isinstance(posting, str):
                entries = decode_entries(posting)
            delta = self.meta.get("delta")
            if delta:
                dead = self._dead()
                entries = [e for e in entries if e.doc not in dead]
                segment = self.load("x/" + shard_of(term, delta["shards"])) or {}
                if isinstance(segment.get(term), str):
                    entries += decode_entries(segment[term])
            self._lists[key] = {e.doc: e for e in entries}
        return self._lists[key]

    def order_keys(self) -> dict[int, int]:
        """The order keys of the pages an update added (see :data:`layout.ORDER`)."""
        delta = self.meta.get("delta") or {}
        return {int(doc): int(key) for doc, key in delta.get("keys", [])}

    def label(self, page_type: str) -> str:
        """What the site calls ``page_type``."""
        return str(self.labels.get(page_type, page_type))

    def _dead(self) -> set[int]:
        if self._dead_ids is None:
            self._dead_ids = set(self.meta["delta"]["dead"])
        return self._dead_ids

    def _words(self, prefix: str) -> dict[str, int]:
        """The indexed words that share ``prefix``'s first two characters, with page counts."""
        words = dict(self.load("w/" + shard_of(prefix[:2], self.meta["vocab"])) or {})
        if self.meta.get("delta"):
            for word, count in (self.load("x/words") or {}).items():
                words[word] = words.get(word, 0) + count
        return words

    def expand(self, prefix: str) -> list[str]:
        """The indexed words that start with ``prefix``, commonest first."""
        words = self._words(prefix)
        # An update's counts may take a word's pages down to none: it is then not indexed.
        found = [w for w in words if w.startswith(prefix) and words[w] > 0]
        found.sort(key=lambda w: (-words[w], w))
        return found[: layout.MAX_EXPANSIONS]

    def similar(self, word: str) -> list[str]:
        """The indexed words one edit (or one swap of neighbours) from ``word`` that share
        its first two characters, commonest first: what a misspelt word stands for."""
        words = self._words(word)
        found = [w for w in words if words[w] > 0 and one_edit(word, w)]
        found.sort(key=lambda w: (-words[w], w))
        return found[:FUZZY_WORDS]

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


def _round(value: float) -> float:
    return math.floor(value * 1e6 + 0.5) / 1e6


def one_edit(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with one character changed, added or removed, or two
    neighbours swapped.

    >>> one_edit("transfomer", "transformer"), one_edit("polciy", "policy")
    (True, True)
    >>> one_edit("policy", "policy"), one_edit("policy", "police"), one_edit("pol", "policy")
    (False, True, False)
    """
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        swapped = i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i]
        return a[i + 1 :] == b[i + 1 :] or (swapped and a[i + 2 :] == b[i + 2 :])
    return a[i:] == b[i + 1 :] if len(a) < len(b) else a[i + 1 :] == b[i:]


def _terms(index: IndexFiles, element: Element) -> tuple[list[str], bool]:
    """The terms that stand for ``element``, and whether they count as one (a prefix's
    words, or a misspelt word's)."""
    word = element.terms[0]
    if element.prefix:
        expanded = index.expand(element.prefix)
        terms = expanded if element.prefix in expanded else [element.prefix, *expanded]
    else:
        terms = list(element.terms)
    fuzzy = len(word) >= FUZZY_LENGTH and word[0] not in CJK_SET and ":" not in word
    if fuzzy and not any(index.postings(t) for t in terms):
        return index.similar(word), True
    return terms, bool(element.prefix)


def _lists(index: IndexFiles, part: Part) -> Lists | None:
    """Each element's posting lists with their IDF; None when an element is in no page."""
    pages = index.meta["pages"]
    lists: Lists = []
    adjacent = len(part.elements) > 1  # then positions are needed
    for element in part.elements:
        terms, as_one = _terms(index, element)
        found = [p for p in (index.postings(t, adjacent) for t in terms) if p]
        if not found:
            return None
        if as_one:  # the words a prefix (or a misspelling) stands for count as one term
            weight = idf(pages, len(set().union(*(p.keys() for p in found))))
            lists.append([(p, weight) for p in found])
        else:
            lists.append([(p, idf(pages, len(p))) for p in found])
    return lists


def _having(alternatives: list[tuple[dict[int, Entry], float]]) -> set[int]:
    return set().union(*(p.keys() for p, _ in alternatives))


def _positions(doc: int, alternatives: list[tuple[dict[int, Entry], float]]) -> list[int]:
    return sorted({pos for p, _ in alternatives if doc in p for pos in p[doc].positions})


def _adjacent(doc: int, elements: tuple[Element, ...], lists: Lists) -> bool:
    """Whether ``doc`` has every element at its offset from one common start."""
    starts: set[int] | None = None
    for element, alternatives in zip(elements, lists, strict=True):
        here = {pos - element.offset for pos in _positions(doc, alternatives)}
        starts = here if starts is None else starts & here
        if not starts:
            return False
    return True


def _near(doc: int, elements: tuple[Element, ...], lists: Lists) -> bool:
    """Whether ``doc`` has the elements in order, each ``d`` to ``d + GAP`` positions after
    the one before (``d`` the distance in the query): from each position of the first, the
    earliest fitting position of each next one."""
    chains = [_positions(doc, alternatives) for alternatives in lists]
    for start in chains[0]:
        at = start
        for i in range(1, len(elements)):
            step = elements[i].offset - elements[i - 1].offset
            k = bisect.bisect_left(chains[i], at + step)
            if k == len(chains[i]) or chains[i][k] > at + step + GAP:
                break
            at = chains[i][k]
        else:
            return True
    return False


def _score(doc: int, lists: Lists) -> float:
    score = 0.0
    for alternatives in lists:
        score += max((w * p[doc].weight / SCALE for p, w in alternatives if doc in p), default=0.0)
    return score


def _field(doc: int, lists: Lists) -> float:
    """Where ``doc`` holds the part: 1 for the title, 3/4 for the summary or tags, 1/4 or
    1/2 for a heading, 0 for the body alone (its least element's field tier, read off the
    weight's whole part: see :mod:`kbtool.search.postings`)."""
    tiers = [
        max((p[doc].weight // SCALE for p, _ in alternatives if doc in p), default=0)
        for alternatives in lists
    ]
    return min(min(tiers, default=0), 4) / 4


def _partial(doc: int, grams: Lists, having: list[set[int]]) -> float:
    """The score of a partial match: the bigrams of the run ``doc`` holds (``having``: the
    pages that hold each), if at least half."""
    held = [alternatives for alternatives, docs in zip(grams, having, strict=True) if doc in docs]
    return PARTIAL * _score(doc, held) if 2 * len(held) >= len(grams) else 0.0


Match = tuple[float, float, float]  # score, share of a word, field (see _field)


def match_part(index: IndexFiles, part: Part, loose: bool) -> dict[int, Match]:
    """Pages matching ``part`` exactly: ``(score, 1, field)``; with ``loose``, a lone CJK run
    also matches near (``(NEAR × score, 1, field)``) and partly (:func:`_partial`, with
    ``PARTIAL_SHARE`` and no field)."""
    wide = loose and part.near
    lists = _lists(index, part)
    grams = _gram_lists(index, part) if wide else None
    if lists is None and grams is None:
        return {}
    complete: set[int] = set()  # the pages that hold every element
    if lists is not None:
        complete = _having(lists[0]).intersection(*map(_having, lists[1:]))
    gram_docs = [_having(alternatives) for alternatives in grams or ()]
    scores: dict[int, Match] = {}
    for doc in sorted(complete.union(*gram_docs)):
        if doc in complete and lists and (len(lists) == 1 or _adjacent(doc, part.elements, lists)):
            scores[doc] = (_score(doc, lists), 1.0, _field(doc, lists))
        elif wide and doc in complete and lists and _near(doc, part.elements, lists):
            scores[doc] = (NEAR * _score(doc, lists), 1.0, _field(doc, lists))
        elif grams:
            score = _partial(doc, grams, gram_docs)
            if score:
                scores[doc] = (score, PARTIAL_SHARE, 0.0)
    return scores


def _gram_lists(index: IndexFiles, part: Part) -> Lists | None:
    """Each bigram's posting list of a near part, empty for one in no page; None if none is
    in any page."""
    pages = index.meta["pages"]
    lists: Lists = []
    for gram in part.grams:
        found = index.postings(gram)
        lists.append([(found, idf(pages, len(found)))] if found else [])
    return lists if any(lists) else None


@dataclass(frozen=True)
class Ranked:
    query: Query
    docs: tuple[int, ...]  # best first

    @property
    def total(self) -> int:
        return len(self.docs)


def _filter_docs(index: IndexFiles, terms: tuple[str, ...]) -> set[int]:
    """The pages with any of the filter ``terms``; a term naming a type's label names the
    type."""
    by_label = {filter_term("type", v): filter_term("type", k) for k, v in index.labels.items()}
    having: set[int] = set()
    for term in terms:
        having |= index.postings(by_label.get(term, term)).keys()
    return having


def _word_scores(index: IndexFiles, query: Query) -> dict[int, float] | None:
    """``coord × Σ`` word scores of the pages matching a word; None if the query has none."""
    if not query.words:
        return None
    found = [match_part(index, part, len(query.words) > 1) for part in query.words]
    if len(found) == 1 and not found[0]:  # one word, held exactly by no page: loosely
        found = [match_part(index, query.words[0], True)]
    totals: dict[int, float] = {}
    shares: dict[int, float] = {}
    for scores in found:
        for doc, (score, share, field) in scores.items():
            totals[doc] = totals.get(doc, 0.0) + score + FIELD * field
            shares[doc] = shares.get(doc, 0.0) + share
    return {doc: totals[doc] * shares[doc] / len(found) for doc in totals}


def rank(index: IndexFiles, text: str) -> Ranked:
    """Every page that matches ``text``, best first."""
    query = parse_query(text)
    if query.empty:
        return Ranked(query, ())
    scores = _word_scores(index, query)
    for part in query.phrases:
        found = {doc: score for doc, (score, _, _) in match_part(index, part, False).items()}
        if scores is None:
            scores = found
        else:
            scores = {doc: s + found[doc] for doc, s in scores.items() if doc in found}
    for terms in query.filters:
        allowed = _filter_docs(index, terms)
        if scores is None:
            scores = dict.fromkeys(sorted(allowed), 0.0)
        else:
            scores = {doc: s for doc, s in scores.items() if doc in allowed}
    assert scores is not None  # the query is not empty
    for doc in _filter_docs(index, query.unwanted):
        scores.pop(doc, None)
    for part in query.excluded:
        for doc in match_part(index, part, False):
            scores.pop(doc, None)
    titled = index.postings(query.title)
    short = index.postings(SHORT_KEY + query.title.removeprefix(TITLE_KEY))
    keys = index.order_keys()

    def key(d: int) -> tuple[int, float, int]:
        title = 0 if d in titled else 1 if d in short else 2
        return (title, -_round(scores[d]), layout.order_key(d, keys))

    return Ranked(query, tuple(sorted(scores, key=key)))


@dataclass(frozen=True)
class Hit:
    doc: SearchDoc
    excerpt: tuple[Piece, ...]
    label: str  # what the site calls the page's type


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
            out.append(Hit(doc, tuple(excerpt(doc, wanted)), index.label(doc.type)))
    return out


def search(folder: Path, text: str, count: int | None = 10) -> tuple[int, list[Hit]]:
    """``(total, first hits)`` for ``text`` over the index in ``folder``."""
    index = IndexFiles(folder)
    ranked = rank(index, text)
    return ranked.total, hits(index, ranked, 0, count)
