"""A page's terms with their weights and positions, and posting lists spelled as text.

A posting list is two strings (:mod:`kbtool.search.codec` spells the numbers): the **heads**,
for each page that has the term, in page-id order, ``id delta, weight, number of
positions``; then the **positions**, for each page in the same order, ``first position,
position deltas...``. A short list is kept in its shard as ``heads~positions``; a long one
has a file for each, so a query that needs no positions (a word, two CJK characters, a
filter) downloads only the heads.

The weight ranks fields before frequency: a term in the title scores 4 (and a share of
:data:`SHORT_TITLE`, larger in a shorter title), in the tags or summary 3, in a heading 1.5,
plus its BM25 frequency part from the body, which is below 1
(``tf / (tf + k1 (1 - b + b len/REFERENCE))``). So a page with the term in its title outranks
one that only repeats it in the body, and among body matches frequency and length decide.
Weights are stored times 32, rounded (so a body-only weight is one character); the query
multiplies them by the term's IDF.

Lengths are measured against a fixed :data:`REFERENCE` length, not the site's mean: a page's
weights then depend on that page alone, so a page indexed in an update segment gets the
weights a clean build gives it, and answers never drift with the order of builds.

The filter terms ``type:<type>`` and ``tag:<tag>`` (:func:`~kbtool.search.tokens.filter_term`)
and the title keys (whole and short title) mark the page with no weight and no positions.
"""

from __future__ import annotations

from dataclasses import dataclass

from kbtool.search.codec import decode
from kbtool.search.text import SearchDoc
from kbtool.search.tokens import SHORT_KEY, field_terms, filter_term, short_title, title_key

K1 = 1.2
B = 0.75
SCALE = 32
TITLE, TAGS, SUMMARY, HEADINGS = 4.0, 3.0, 3.0, 1.5
#: What the title's terms share on top of the title's tier: the fewer, the more each gets.
SHORT_TITLE = 0.8
#: Characters of body that BM25's length normalisation takes as usual.
REFERENCE = 3000.0


@dataclass(frozen=True)
class Entry:
    doc: int
    weight: int
    positions: tuple[int, ...]


def doc_terms(doc: SearchDoc) -> dict[str, tuple[int, list[int]]]:
    """``term -> (weight, positions)`` of ``doc``. Lengths are in characters of the body."""
    tiers: dict[str, float] = {}
    head: dict[str, list[int]] = {}
    pos = 0
    card = doc.card
    fields = [(card.title, TITLE, True)]
    fields += [(tag, TAGS, True) for tag in card.tags]
    fields.append((card.summary, SUMMARY, True))
    fields += [(heading, HEADINGS, False) for heading in doc.headings]
    for i, (text, tier, unigrams) in enumerate(fields):
        found = field_terms(text, pos, unigrams)
        if i == 0 and found.positions:  # a shorter title is more about each of its terms
            tier += SHORT_TITLE / len(found.positions)
        for term, at in found.positions.items():
            head.setdefault(term, []).extend(at)
            if tier > tiers.get(term, 0.0):
                tiers[term] = tier
        pos += found.length + 1
    body = field_terms(doc.body, pos, False)
    norm = K1 * (1 - B + B * len(doc.body) / REFERENCE)
    out: dict[str, tuple[int, list[int]]] = {}
    for term, at in body.positions.items():
        tf = len(at)
        weight = tiers.get(term, 0.0) + tf / (tf + norm)
        earlier = head.get(term)
        out[term] = (int(weight * SCALE + 0.5), earlier + at if earlier else at)
    for term, at in head.items():
        if term not in out:
            out[term] = (int(tiers[term] * SCALE + 0.5), at)
    if card.title:
        out[title_key(card.title)] = (0, [])
        if short_title(card.title) not in ("", card.title):
            out[title_key(short_title(card.title), SHORT_KEY)] = (0, [])
    marks = [filter_term("type", card.type)] if card.type else []
    marks += [filter_term("tag", tag) for tag in card.tags]
    for mark in marks:
        out.setdefault(mark, (0, []))
    return out


SEPARATOR = "~"  # between heads and positions: not a digit of the codec


@dataclass(frozen=True)
class Heads:
    """A posting list's heads: page ids, weights and how many positions each has."""

    docs: tuple[int, ...]
    weights: tuple[int, ...]
    counts: tuple[int, ...]

    def entries(self, places: str | None) -> list[Entry]:
        """The entries, with their positions from ``places`` (none if ``None``)."""
        numbers = decode(places) if places else []
        out: list[Entry] = []
        at = 0
        for doc, weight, count in zip(self.docs, self.weights, self.counts, strict=True):
            positions: list[int] = []
            if places is not None and count:
                pos = 0
                for delta in numbers[at : at + count]:
                    pos += delta
                    positions.append(pos)
                at += count
            out.append(Entry(doc, weight, tuple(positions)))
        return out


def decode_heads(text: str) -> Heads:
    numbers = decode(text)
    docs, doc = [], -1
    for delta in numbers[0::3]:
        doc += delta
        docs.append(doc)
    return Heads(tuple(docs), tuple(numbers[1::3]), tuple(numbers[2::3]))


def decode_entries(text: str) -> list[Entry]:
    """The entries of a list kept whole (``heads~positions``)."""
    heads, _, places = text.partition(SEPARATOR)
    return decode_heads(heads).entries(places)
