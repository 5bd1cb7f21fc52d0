"""Stable answers: after any sequence of updates, a query gives the same pages in the same
order as an index written from scratch from the same pages.

Random edit sequences add, edit and remove pages and change how many pages link to them;
pages are drawn from a small vocabulary, with many ties (copies of one text under different
paths, wiki pages and sources) and words that share prefixes, so that order keys, corpus
counts, prefix expansion and the pages' in-links all decide some answers. Each sequence runs
long enough for the update segment to fill and the index to be written afresh.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kbtool.search.engine import IndexFiles, rank
from kbtool.search.text import SearchDoc
from kbtool.search.writer import write_search_index
from tests.search.support import doc

CJK = ("强化学习", "注意力", "机器人", "全身控制", "接触力", "策略", "学习率")
WORDS = ("sim2real", "sim", "simulator", "simple", "policy", "police", "polar", "mpc", "wbc")
#: More words of one prefix than a prefix expands to: which are taken depends on page counts.
FAMILY = tuple(f"sim{a}{b}" for a in "abcdefg" for b in "xyz")
TAGS = ("rl", "control", "vision")
TYPES = ("concept", "method", "source")
QUERIES = (
    "强化学习",
    "sim2real",
    "sim",
    "sim ",
    "simax",
    "simaz simx",
    "po",
    "pol",
    "polcy ",
    "全身控制 接触力 MPC",
    "机器人全身控制",
    "学习 -强化学习",
    "policy type:method",
    "tag:rl 策略",
    '"policy mpc"',
    "注意力",
    "同名页面",
    "policy",
)


def _doc(rng: random.Random, path: str) -> SearchDoc:
    words = [rng.choice(CJK + WORDS) for _ in range(rng.randint(1, 12))]
    words += rng.sample(FAMILY, rng.randint(0, 6))
    title = rng.choice((*CJK, *WORDS, "同名页面"))
    tags = tuple(rng.sample(TAGS, rng.randint(0, 2)))
    return doc(path, title, " ".join(words), tags=tags, type=rng.choice(TYPES))


def _relink(rng: random.Random, docs: dict[str, SearchDoc], links: dict[str, int]) -> None:
    """New in-link counts for a few pages (any page's may change with an edit elsewhere)."""
    for path in rng.sample(sorted(docs), min(len(docs), rng.randint(0, 5))):
        links[path] = rng.choice((0, 1, 3, 8, 40, 300))


def _answers(folder: Path) -> dict[str, list[str]]:
    index = IndexFiles(folder)
    out = {}
    for query in QUERIES:
        ranked = rank(index, query)
        out[query] = [index.doc(d).card.path for d in ranked.docs]  # type: ignore[union-attr]
    return out


@pytest.mark.parametrize("told", [False, True], ids=["any-changed", "told-changed"])
@pytest.mark.parametrize("seed", range(6))
def test_answers_after_random_updates_equal_a_clean_build(
    tmp_path: Path, seed: int, told: bool
) -> None:
    rng = random.Random(seed)
    docs = {f"wiki/p{i:03}.md": _doc(rng, f"wiki/p{i:03}.md") for i in range(40)}
    twin = docs["wiki/p000.md"]
    for i in range(3):  # copies of one page: equal scores, ordered by path alone
        docs[f"wiki/twin{i}.md"] = doc(
            f"wiki/twin{i}.md", twin.card.title, twin.body, type="method"
        )
    docs["sources/twin.md"] = doc("sources/twin.md", twin.card.title, twin.body, type="source")
    graph = random.Random(f"links {seed}")  # apart: the pages drawn stay those of the seed
    links: dict[str, int] = {}
    _relink(graph, docs, links)
    write_search_index(docs, tmp_path / "0", links=links)
    incremental = 0
    for step in range(1, 13):
        touched = set()  # what the build would tell the update: the pages added or edited
        for _ in range(rng.randint(1, 6)):
            roll = rng.random()
            if roll < 0.35 or not docs:  # a new page, often between existing ones by path
                path = f"wiki/p{rng.randrange(60):03}{rng.choice(('', 'a', 'b'))}.md"
                docs[path] = _doc(rng, path)
                touched.add(path)
            elif roll < 0.7:
                path = rng.choice(sorted(docs))
                docs[path] = _doc(rng, path)
                touched.add(path)
            else:
                docs.pop(rng.choice(sorted(docs)))
        _relink(graph, docs, links)
        old = tmp_path / str(step - 1)
        changed = {p for p in touched if p in docs} if told else None
        stats = write_search_index(docs, tmp_path / str(step), old, links=links, changed=changed)
        incremental += stats.incremental
        write_search_index(docs, tmp_path / f"clean{step}", links=links)
        assert _answers(tmp_path / str(step)) == _answers(tmp_path / f"clean{step}"), step
    assert 0 < incremental < 12  # updates, and at least one write afresh, were both tested
