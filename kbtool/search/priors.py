"""What the link graph says of each page before any query: its **standing**.

A page's standing is one small number, ``2 × steps + source``: ``steps`` is
``round(LINK_STEPS × ln(1 + in-links))`` (the pages that link to it, as the site's backlinks
count them), ``source`` is 1 for a source page. The ranker multiplies a page's score by
``1 + PRIOR × steps / LINK_STEPS`` (:func:`prior`), so that a hub, linked from hundreds of
pages, can overtake shorter pages on a broad query while a much better match still wins; and
on an equal score it puts a wiki page before a source page.

The standings live in ``priors.js``, one number per page id (:mod:`kbtool.search.codec`),
written again by every build, full or update: a page's standing depends on the other pages'
links, so an edit can change the standing of pages it does not touch. Since a standing is a
function of the page's path and the link graph alone, an updated index ranks as a clean
build of the same pages does. Integers, not the logarithm itself, are stored, so that Python
and ``assets/search.js`` compute the same factor from them.
"""

from __future__ import annotations

import math
from collections.abc import Container, Mapping
from functools import cache

from kbtool.search import layout
from kbtool.search.codec import encode, script

#: Steps of standing per unit of ln(1 + in-links): about 26 for a hub of 700 in-links.
LINK_STEPS = 4
#: What one unit of ln(1 + in-links) adds to a page's score, as a share of it: a page with
#: 250 in-links scores about 1.55 times, one with 6 about 1.2 times, one with none as it is.
PRIOR = 0.1


@cache  # a few hundred distinct answers for every page of every save: a third of the time
def standing(links: int, source: bool) -> int:
    """
    >>> standing(0, False), standing(6, False), standing(250, False), standing(6, True)
    (0, 16, 44, 17)
    """
    return 2 * round(LINK_STEPS * math.log1p(max(0, links))) + int(source)


def prior(value: int) -> float:
    """The factor a page of standing ``value`` multiplies its score by (the same arithmetic,
    in the same order, as in ``assets/search.js``)."""
    return 1.0 + PRIOR * (value >> 1) / LINK_STEPS


def is_source(value: int) -> bool:
    return bool(value & 1)


def priors_file(
    ids: Mapping[str, int], sources: Container[str], links: Mapping[str, int]
) -> tuple[str, bytes]:
    """``priors.js`` for the pages with page ids ``ids``, in-links ``links`` (a page missing
    there has none), ``sources`` the source pages among them; an id with no page gets 0."""
    values = [0] * (max(ids.values(), default=-1) + 1)
    for path, doc_id in ids.items():
        values[doc_id] = standing(links.get(path, 0), path in sources)
    return layout.PRIORS, script("priors", encode(values))
