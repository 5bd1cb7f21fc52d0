"""Pages like this one: Adamic–Adar scores as networkx computes them, the pages left out, and
an edit recomputing only the lists it can change, to the same result as recomputing all."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import networkx as nx
import pytest

from kbtool.config import load_config
from kbtool.render import similar
from kbtool.render.similar import (
    TAG_PREFIX,
    affected,
    node_digests,
    page_graph,
    similar_all,
    similar_to,
)
from kbtool.stages import similar as build_similar
from kbtool.stages.site import build_site


def random_wiki(
    rng: random.Random, n: int = 40, tags: int = 5
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(backlinks, tags) of ``n`` pages: a few links each, some tags on most pages."""
    pages = [f"p{i:02d}" for i in range(n)]
    back: dict[str, list[str]] = {p: [] for p in pages}
    for page in pages:
        for other in rng.sample(pages, rng.randint(0, 4)):
            back[other].append(page)
    names = [f"t{i}" for i in range(tags)]
    return back, {p: rng.sample(names, rng.randint(0, 2)) for p in pages}


def as_networkx(graph: similar.Graph) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(graph)
    g.add_edges_from((a, b) for a, around in graph.items() for b in around)
    return g


def expected(graph: similar.Graph, page: str, limit: int = 5) -> list[tuple[str, float]]:
    """The list by networkx: every other page it does not link, by Adamic–Adar index."""
    g = as_networkx(graph)
    pairs = [
        (page, other)
        for other in graph
        if other != page and not other.startswith(TAG_PREFIX) and other not in graph[page]
    ]
    scored = [(v, s) for _, v, s in nx.adamic_adar_index(g, pairs) if s > 0]
    return sorted(scored, key=lambda item: (-round(item[1], 9), item[0]))[:limit]


@pytest.mark.parametrize("heavy", [64, 2])
@pytest.mark.parametrize("seed", range(6))
def test_scores_are_networkx_adamic_adar(
    seed: int, heavy: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # heavy=2: nearly every shared node is one the others' candidates are checked against.
    monkeypatch.setattr(similar, "_HEAVY", heavy)
    graph = page_graph(*random_wiki(random.Random(seed)))
    for page in sorted(p for p in graph if not p.startswith(TAG_PREFIX)):
        got = similar_to(graph, page)
        want = expected(graph, page)
        assert [p for p, _ in got] == [p for p, _ in want], page
        assert [s for _, s in got] == pytest.approx([s for _, s in want])


def test_linked_pages_itself_tags_and_other_groups_are_never_listed() -> None:
    back = {"a": ["b"], "b": [], "c": ["b"], "d": ["c"], "s": ["c"]}
    graph = page_graph(back, {"a": ["x"], "d": ["x"], "s": ["x"]})
    assert [p for p, _ in similar_to(graph, "a")] == ["c", "d", "s"]  # not b: b links a
    assert [p for p, _ in similar_to(graph, "a", among={"c", "d"})] == ["c", "d"]
    listed = similar_all(graph, graph, lambda p: "source" if p == "s" else "wiki")
    assert "s" not in listed["a"] and listed["s"] == ()
    assert all(not p.startswith(TAG_PREFIX) for pages in listed.values() for p in pages)


def test_a_page_sharing_only_common_tags_is_found() -> None:
    # "lonely" shares nothing but a tag that 80 pages have: enumerated, as few share more.
    back: dict[str, list[str]] = {f"p{i}": [] for i in range(80)}
    back["lonely"] = []
    tags = {p: ["common"] for p in back}
    graph = page_graph(back, tags)
    assert len(similar_to(graph, "lonely")) == 5
    assert similar_to(graph, "lonely") == expected(graph, "lonely")


def edit(rng: random.Random, back: dict[str, list[str]], tags: dict[str, list[str]]) -> None:
    """One random edit: a link added or removed, a tag changed, a page added or removed."""
    pages = sorted(back)
    roll = rng.random()
    if roll < 0.3:
        back[rng.choice(pages)].append(rng.choice(pages))
    elif roll < 0.5:
        target = rng.choice([p for p in pages if back[p]] or pages)
        if back[target]:
            back[target].remove(rng.choice(back[target]))
    elif roll < 0.75:
        tags[rng.choice(pages)] = [f"t{rng.randrange(5)}"]
    elif roll < 0.9:
        new = f"n{len(pages)}{rng.randrange(1000)}"
        back[new] = [rng.choice(pages)]
        back[rng.choice(pages)].append(new)
    else:
        gone = rng.choice(pages)
        del back[gone]
        tags.pop(gone, None)
        for sources in back.values():
            while gone in sources:
                sources.remove(gone)


@pytest.mark.parametrize("seed", range(8))
def test_an_edit_recomputes_only_the_lists_it_can_change(seed: int) -> None:
    rng = random.Random(seed)
    back, tags = random_wiki(rng)
    graph = page_graph(back, tags)
    lists = similar_all(graph, graph, lambda _: "")
    redone = 0
    for _ in range(10):
        before = node_digests(graph)
        edit(rng, back, tags)
        graph = page_graph(back, tags)
        redo = affected(graph, before, node_digests(graph)) | (set(back) - set(lists))
        redone += len(redo)
        lists = {p: lists[p] for p in back if p in lists}
        lists.update(similar_all(graph, redo, lambda _: ""))
        assert lists == {p: v for p, v in similar_all(graph, back, lambda _: "").items()}
    assert redone < 10 * len(back) / 2  # most lists were kept, not made again


SIMILAR_SECTION = re.compile(r'<section class="similar".*?</section>', re.S)


def test_the_site_shows_each_page_its_similar_pages(
    make_wiki: Callable[[dict[str, str | bytes]], Path], page: Callable[..., str]
) -> None:
    files: dict[str, str | bytes] = {
        "pyproject.toml": '[tool.kbtool]\nlanguage = "en"\nsearch = false\n',
        "wiki/hub.md": page("# Hub\n\n[a](a.md) [b](b.md) [c](c.md)\n"),
        "wiki/a.md": page("# A\n\n[hub](hub.md)\n", tags="[rare]"),
        "wiki/b.md": page("[hub](hub.md)\n", tags="[rare]", title='"B <i>"'),
        "wiki/c.md": page("# C\n\n[a](a.md) [hub](hub.md)\n"),
    }
    root = make_wiki(files)
    assert build_site(load_config(root)).ok
    html = (root / "site/wiki/a.html").read_text()
    section = SIMILAR_SECTION.search(html)
    assert section is not None
    assert 'href="b.html"' in section.group(0) and "B &lt;i&gt;" in section.group(0)
    assert 'href="c.html"' not in section.group(0)  # c links a
    assert 'href="hub.html"' not in section.group(0)
    # b loses its tag and its title changes: a still lists it, under its new title.
    (root / "wiki/b.md").write_text(page("# B\n\n[hub](hub.md)\n"), encoding="utf-8")
    report = build_site(load_config(root))
    assert report.ok
    assert "page:wiki/a.md" in report.rendered_outputs
    section = SIMILAR_SECTION.search((root / "site/wiki/a.html").read_text())
    assert section is not None and "B &lt;i&gt;" not in section.group(0)


def test_a_build_makes_again_only_the_lists_an_edit_can_change(
    make_wiki: Callable[[dict[str, str | bytes]], Path],
    page: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    files: dict[str, str | bytes] = {"pyproject.toml": "[tool.kbtool]\nsearch = false\n"}
    for i in range(12):  # a chain: page i links i + 1
        files[f"wiki/p{i}.md"] = page(f"# P{i}\n\n[next](p{i + 1}.md)\n" if i < 11 else "# P11\n")
    root = make_wiki(files)
    made: list[list[str]] = []
    real = build_similar.similar_all

    def counted(graph: similar.Graph, pages: list[str], group: Callable[[str], str]) -> object:
        made.append(list(pages))
        return real(graph, pages, group)

    monkeypatch.setattr(build_similar, "similar_all", counted)
    assert build_site(load_config(root)).ok
    assert len(made[-1]) == 12
    (root / "wiki/p5.md").write_text(page("# P5\n\nOther words. [next](p6.md)\n"))
    assert build_site(load_config(root)).ok
    assert len(made) == 1  # no listing changed: the record's lists
    (root / "wiki/p0.md").write_text(page("# P0\n\n[next](p1.md) [far](p9.md)\n"))
    assert build_site(load_config(root)).ok
    # p0 and p9 have new neighbours; their neighbours p1, p8 and p10 read them.
    assert sorted(made[-1]) == [f"wiki/p{i}.md" for i in (0, 1, 10, 8, 9)]
