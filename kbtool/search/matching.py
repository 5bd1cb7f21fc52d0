"""Which pages match one part of a query, and what the part scores in each.

A part **matches** a page when the page has all its elements at their offsets from one
common position. A word that no page has, of :data:`FUZZY_LENGTH` letters or more, stands for
the indexed words one edit from it (:func:`~kbtool.search.index.one_edit`). Loosely, a lone
CJK run of three or more characters also matches **near** (:func:`_near`: its bigrams in
order, each at most :data:`GAP` positions later than exact), for :data:`NEAR` of its score,
or **partly** (at least half of all its bigrams, anywhere), for :data:`PARTIAL` of theirs.
A part scores the sum over its elements of the best ``idf × weight`` among the element's
terms. ``assets/search.js`` ports this function by function.
"""

from __future__ import annotations

import bisect
import math

from kbtool.search.index import IndexFiles
from kbtool.search.postings import SCALE, Entry
from kbtool.search.tokens import Element, Part, is_cjk

NEAR = 0.5
#: Most extra positions between consecutive bigrams of a near match.
GAP = 6
#: Share of the score of the bigrams it holds that a partial match earns, and how much it
#: counts as a matched word.
PARTIAL = 0.25
PARTIAL_SHARE = 0.5
#: Shortest word looked up as a misspelling when no page has it.
FUZZY_LENGTH = 4

Lists = list[list[tuple[dict[int, Entry], float]]]  # per element: (postings, idf) alternatives


def idf(pages: int, having: int) -> float:
    """BM25's inverse document frequency, rounded so that Python and JS agree exactly."""
    value = math.log(1 + (pages - having + 0.5) / (having + 0.5))
    return math.floor(value * 1e6 + 0.5) / 1e6


def _terms(index: IndexFiles, element: Element) -> tuple[list[str], bool]:
    """The terms that stand for ``element``, and whether they count as one (a prefix's
    words, or a misspelt word's)."""
    word = element.terms[0]
    if element.prefix:
        expanded = index.expand(element.prefix)
        terms = expanded if element.prefix in expanded else [element.prefix, *expanded]
    else:
        terms = list(element.terms)
    fuzzy = len(word) >= FUZZY_LENGTH and not is_cjk(word[0]) and ":" not in word
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
