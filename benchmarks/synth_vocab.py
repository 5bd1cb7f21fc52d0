"""The words of synthetic pages: a small fixed list, or a real frequency list drawn by topic.

A page's text asks its random source for words (``rng.word()``, ``rng.term()``), so the
vocabulary is chosen once per wiki and every page function stays the same:

- **small**: the 50 Chinese words and 30 English terms of ``synth_text`` (about 1,600
  distinct CJK bigrams at 7,000 pages, where a real wiki of that size has about 196,000);
- **real**: Chinese words from jieba's dictionary (about 350,000 words with counts; the
  ``bench`` extra), drawn by frequency, and English terms from a Zipf-ranked list that starts
  with the field's own terms. Pages of one topic (a run of neighbouring wiki pages, and the
  sources those cite) reuse that topic's words, as real pages do: words drawn independently
  for every sentence would give far more bigrams than any real wiki (about 1.5 million).
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from synth_text import TERMS, WORDS, PageRandom

# Wiki pages per topic, the words a topic keeps, and how often a page says one of them
# rather than any word of the language: tuned so that 7,000 pages have the real wiki's
# count of distinct CJK bigrams (benchmarks/corpus_stats.py).
TOPIC_PAGES = 8
TOPIC_WORDS = 300
TOPIC_SHARE = 0.7
# The field's own words stay common: a page says one of synth_text's words this often.
FIELD_SHARE = 0.15
# A topic's words are drawn with their counts raised to this power: rarer than the
# language's running text, as the words a field names are.
TOPIC_FLATTEN = 0.3
LATIN_WORDS = 30_000
_SYLLABLES = [a + b for a in "bcdfghklmnprstvz" for b in ("a", "e", "i", "o", "u", "ar", "en")]


@dataclass(frozen=True)
class Ranked:
    """Words in frequency order with their cumulative weights, for drawing by frequency."""

    words: Sequence[str]
    cumulative: Sequence[float]

    def draw(self, rng: random.Random) -> str:
        at = bisect.bisect(self.cumulative, rng.random() * self.cumulative[-1])
        return self.words[min(at, len(self.words) - 1)]


@lru_cache(maxsize=2)
def chinese(flatten: float = 1.0) -> Ranked:
    """jieba's dictionary: its words of two or more Han characters, by count (raised to
    ``flatten``: below 1, rare words come up more often)."""
    try:
        listing = resources.files("jieba").joinpath("dict.txt").read_text(encoding="utf-8")
    except ModuleNotFoundError:
        raise SystemExit(
            "the real vocabulary needs jieba's dictionary: pip install -e '.[bench]' "
            "(or pass --vocabulary small)"
        ) from None
    counted = []
    for line in listing.splitlines():
        word, count, *_ = line.split()
        if len(word) >= 2 and all("\u4e00" <= c <= "\u9fff" for c in word):
            counted.append((-int(count), word))
    counted.sort()
    return Ranked(
        [w for _, w in counted], list(itertools.accumulate((-c) ** flatten for c, _ in counted))
    )


@lru_cache(maxsize=1)
def latin() -> Ranked:
    """English terms by Zipf rank: the field's terms first, then made-up words (names of
    models, methods and code, which a real wiki has by the thousand)."""
    rng = random.Random("latin")
    made: dict[str, None] = dict.fromkeys(TERMS)
    while len(made) < LATIN_WORDS:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))
        made[word.title() if rng.random() < 0.2 else word] = None
    weights = [1 / (rank + 3) for rank in range(len(made))]
    return Ranked(list(made), list(itertools.accumulate(weights)))


@cache
def topic(number: int) -> Topic:
    return Topic(str(number))


class Topic:
    """The words one topic's pages share, drawn once from the whole language."""

    def __init__(self, key: str) -> None:
        rng = random.Random(f"topic:{key}")
        language = chinese(TOPIC_FLATTEN)
        self.words = [language.draw(rng) for _ in range(TOPIC_WORDS)]
        self.terms = [latin().draw(rng) for _ in range(TOPIC_WORDS // 4)]


class RealRandom(PageRandom):
    """A page's random source that says its topic's words most of the time."""

    def __init__(self, seed: str, topic: Topic) -> None:
        super().__init__(seed)
        self.topic = topic

    def word(self) -> str:
        roll = self.random()
        if roll < FIELD_SHARE:
            return self.choice(WORDS)
        if roll < FIELD_SHARE + TOPIC_SHARE:
            # Within a topic, too, some words come up far more often than others.
            return self.topic.words[int(len(self.topic.words) * self.random() ** 2)]
        return chinese().draw(self)

    def term(self) -> str:
        roll = self.random()
        if roll < 0.5:
            return self.choice(TERMS)
        if roll < 0.85:
            return self.topic.terms[int(len(self.topic.terms) * self.random() ** 2)]
        return latin().draw(self)

    def words(self, count: int) -> list[str]:
        chosen: dict[str, None] = {}
        while len(chosen) < count:
            chosen[self.word()] = None
        return list(chosen)
