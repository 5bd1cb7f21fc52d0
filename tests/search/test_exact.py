"""Exactness as a property: the index finds exactly the pages a brute-force scan finds.

A one-word query finds exactly the pages that contain it; a query of several words, every
page that contains one of them, and no other page unless it holds half of a long CJK run's
bigrams (a loose match) or a word one edit from a query word no page has (a misspelling). A
one-word query that no page contains exactly may match loosely.

Pages are drawn from a small alphabet of CJK characters, English words and punctuation, so
that queries often match; queries are drawn from what the pages contain (and from what they
do not). The scan below knows nothing of bigrams, positions or shards.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtool.search.index import one_edit
from kbtool.search.matching import FUZZY_LENGTH
from kbtool.search.text import SearchDoc
from tests.search.support import build, doc, found

CHARS = "注意力学习"  # few characters: pages share bigrams but not always the longer runs
WORDS = ("vla", "VLA", "rt", "2", "sim2real", "policy", "pol", "diffusion", "Attention", "π0")
SEPARATORS = (" ", "，", "。", "-", "\n", "")
piece = st.one_of(
    st.text(alphabet=CHARS, min_size=1, max_size=6), st.sampled_from(WORDS + SEPARATORS)
)
text = st.lists(piece, max_size=30).map("".join)
page = st.tuples(text.map(lambda t: t[:20]), text, text)  # title, summary, body


def _fields(d: SearchDoc) -> list[str]:
    return [d.card.title, *d.card.tags, d.card.summary, *d.headings, d.body]


def _words(field: str) -> list[str]:
    return re.findall(f"[^\\W_{CHARS}]+", field.lower())


def _scan_part(d: SearchDoc, part: str, prefix: bool) -> bool:
    """Does ``d`` contain ``part``: a CJK run (as a substring; one character: in the title,
    tags or summary), or a word (the last one of the query also as a prefix)?"""
    part = part.lower()
    if re.fullmatch(f"[{CHARS}]", part):
        return any(part in f.lower() for f in (d.card.title, *d.card.tags, d.card.summary))
    if re.fullmatch(f"[{CHARS}]+", part):
        return any(part in f.lower() for f in _fields(d))
    assert re.fullmatch(f"[^\\W_{CHARS}]+", part), part  # the queries drawn are no other kind
    words = {w for f in _fields(d) for w in _words(f)}
    if prefix and len(part) >= 2:
        return any(w.startswith(part) for w in words)
    return part in words


def scan(docs: list[SearchDoc], query: str) -> list[set[str]]:
    """For each word of ``query``, the pages that contain it."""
    words = query.split()
    typing = not query[-1:].isspace()  # a last word still being typed is a prefix
    return [
        {d.card.path for d in docs if _scan_part(d, w, typing and i == len(words) - 1)}
        for i, w in enumerate(words)
    ]


def _bigrams_in(d: SearchDoc, run: str) -> bool:
    """Whether ``d`` has what a loose match of a CJK ``run`` needs, at least: half of its
    bigrams."""
    grams = {run[i : i + 2] for i in range(len(run) - 1)}
    held = [g for g in grams if any(g in f.lower() for f in _fields(d))]
    return len(run) >= 3 and 2 * len(held) >= len(grams)


def check(docs: list[SearchDoc], query: str, got: set[str]) -> None:
    having = scan(docs, query)
    exact = set().union(*having)
    if len(having) == 1 and exact:
        assert got == exact, query
        return
    assert exact <= got, query
    words = query.split()
    for d in docs:
        if d.card.path in got - exact:  # a loose match, or a misspelling's
            assert any(
                re.fullmatch(f"[{CHARS}]+", w) and _bigrams_in(d, w) or _misspelt(docs, d, w)
                for w in words
            )


def _misspelt(docs: list[SearchDoc], d: SearchDoc, word: str) -> bool:
    """Whether ``word``, which no page has, is one edit from a word of ``d`` (a query word
    that no page has stands for the words one edit from it)."""
    word = word.lower()
    if len(word) < FUZZY_LENGTH or not re.fullmatch(f"[^\\W_{CHARS}]+", word):
        return False
    if any(word in _words(f) for other in docs for f in _fields(other)):
        return False
    return any(one_edit(word, w) for f in _fields(d) for w in _words(f))


def _query(data: st.DataObject, docs: list[SearchDoc]) -> str:
    source = data.draw(st.sampled_from([f for d in docs for f in _fields(d)] or [""]))
    runs = re.findall(f"[{CHARS}]+", source)
    choices = [
        data.draw(st.sampled_from(WORDS)),
        data.draw(st.text(alphabet=CHARS, min_size=2, max_size=4)),
    ]
    if runs:
        run = data.draw(st.sampled_from(runs))
        start = data.draw(st.integers(0, len(run) - 1))
        choices.append(run[start : start + data.draw(st.integers(1, 5))])
    if len(runs) > 1:  # the end of one run and the start of the next: never one run
        i = data.draw(st.integers(0, len(runs) - 2))
        choices.append(runs[i][-2:] + runs[i + 1][:2])
    count = data.draw(st.integers(1, 2))
    return " ".join(data.draw(st.sampled_from(choices)) for _ in range(count))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pages=st.lists(page, min_size=1, max_size=6), data=st.data())
def test_every_query_finds_exactly_the_pages_that_contain_it(
    pages: list[tuple[str, str, str]], data: st.DataObject
) -> None:
    docs = [doc(f"wiki/p{i}.md", t, b, s) for i, (t, s, b) in enumerate(pages)]
    with tempfile.TemporaryDirectory() as tmp:
        folder = build(Path(tmp) / "search", docs)
        for _ in range(4):
            query = _query(data, docs)
            check(docs, query, set(found(folder, query)))


def test_known_substrings() -> None:
    docs = [
        doc("wiki/a.md", "注意力", "缩放点积注意力是核心。人形机器人"),
        doc("wiki/b.md", "别的", "注意。力不相连，化学与习也不在这里"),
        doc("wiki/c.md", "强化", "深度强化学习"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        folder = build(Path(tmp) / "search", docs)
        assert found(folder, "意力") == ["wiki/a.md"]
        assert found(folder, "化学习") == ["wiki/c.md"]
        assert set(found(folder, "化学")) == {"wiki/b.md", "wiki/c.md"}
        assert found(folder, "人形机器") == ["wiki/a.md"]
        assert found(folder, "缩放点积") == ["wiki/a.md"]
        assert found(folder, "注意力") == ["wiki/a.md"]


def test_runs_apart_are_not_one_run() -> None:
    docs = [
        doc("wiki/a.md", "a", "强化。学习，机器人"),
        doc("wiki/b.md", "b", "深度强化学习机器人"),
        doc("wiki/c.md", "c", "强化 学习 VLA模型 sim2real 机器"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        folder = build(Path(tmp) / "search", docs)
        assert found(folder, "强化学习") == ["wiki/b.md"]  # 强化 and 学习, two apart, in a
        assert found(folder, "化学习机") == ["wiki/b.md"]
        assert found(folder, "强化学习机器人") == ["wiki/b.md"]
        assert set(found(folder, "强化 学习")) == {"wiki/a.md", "wiki/b.md", "wiki/c.md"}
        assert found(folder, "vla模型") == ["wiki/c.md"]
        assert found(folder, "模型sim2real") == ["wiki/c.md"]  # space and no space alike


def test_long_lists_keep_positions_apart_and_still_match_exactly() -> None:
    from kbtool.search.engine import IndexFiles, rank

    docs = [
        doc(f"wiki/p{i:03}.md", f"p{i}", "强化 学习 " * 5 + "强化学习" * (i % 2))
        for i in range(300)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        folder = build(Path(tmp) / "search", docs)
        assert list((folder / "p").glob("*.js")) and list((folder / "t").glob("*.js"))
        index = IndexFiles(folder)
        assert len(rank(index, "强化").docs) == 300
        assert not any(name.startswith("p/") for name in index._files)  # no positions read
        assert set(found(folder, "强化学习")) == {d.card.path for d in docs[1::2]}
