"""Answer a query from the index files: the matching pages, ranked, and their excerpts.

This is the reference implementation of the query algorithm; ``assets/search.js`` is a line
by line port, so ``kbtool search`` and the browser agree. A query (see
:func:`kbtool.search.tokens.parse_query`) has optional words, required phrases, excluded
parts and filters; :mod:`kbtool.search.matching` says which pages match a part and what it
scores. Words match loosely when the query has several, or when no page holds a one-word
query exactly.

A page is in the answer when it matches every phrase and filter, no excluded part, and, if
the query has words, at least one of them, so a one-word query keeps its exact-substring
semantics whenever a page holds it. Its score is ``prior × (coord × Σ words + Σ phrases)``,
where a word scores its part's score plus :data:`FIELD` times where the page holds it (title
1, summary or tags 3/4, heading less), ``coord`` is the share of the query's words the page
matches (a partial match counts half), so pages with more of them rank higher, and
``prior`` grows with the page's in-links (:mod:`kbtool.search.priors`), so a hub can win a
broad query. The pages whose whole title is the query come first, wiki pages before sources,
then those whose short title is (the part before a bracket or colon), likewise; then score
(rounded to 6 places, so float noise cannot reorder), a wiki page before a source on an
equal score, then the page's order key (:func:`kbtool.search.layout.order_key`: path
order, in a clean build and after updates alike).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from kbtool.search import layout
from kbtool.search.excerpt import Piece, excerpt, within
from kbtool.search.index import IndexFiles, IndexMissing
from kbtool.search.matching import match_part
from kbtool.search.priors import is_source, prior
from kbtool.search.text import SearchDoc
from kbtool.search.tokens import SHORT_KEY, TITLE_KEY, Query, filter_term, parse_query

__all__ = ["Hit", "IndexFiles", "IndexMissing", "Ranked", "hits", "rank", "search"]

#: What a word held in the title adds to a page's score (in the summary or tags 3/4 of it,
#: in a heading less): whatever the word's IDF, so that on a wiki where every page mentions
#: its topic words, the page about them still comes first.
FIELD = 4.0


def _round(value: float) -> float:
    return math.floor(value * 1e6 + 0.5) / 1e6


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

    def key(d: int) -> tuple[int, bool, float, bool, int]:
        title = 0 if d in titled else 1 if d in short else 2
        standing = index.standing(d)
        source = is_source(standing)
        score = _round(scores[d] * prior(standing))
        return (title, title < 2 and source, -score, source, layout.order_key(d, keys))

    return Ranked(query, tuple(sorted(scores, key=key)))


@dataclass(frozen=True)
class Hit:
    #: as its page file holds it: a long page's text may be cut (``pagefiles.CUT``)
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
        part = index.doc_part(doc_id)
        if part is None:
            continue
        doc, cut = part
        pieces = excerpt(doc, wanted)
        if cut and not within(pieces):  # the rest of its text is read, as the browser does
            doc = index.doc(doc_id) or doc
            pieces = excerpt(doc, wanted)
        out.append(Hit(doc, tuple(pieces), index.label(doc.card.type)))
    return out


def search(folder: Path, text: str, count: int | None = 10) -> tuple[int, list[Hit]]:
    """``(total, first hits)`` for ``text`` over the index in ``folder``."""
    index = IndexFiles(folder)
    ranked = rank(index, text)
    return ranked.total, hits(index, ranked, 0, count)
