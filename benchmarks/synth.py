"""A deterministic synthetic wiki in kbtool's page format, for benchmarks.

``generate(root, n)`` writes ``n`` pages shaped like a real wiki of this kind: about 46% wiki
pages in six type folders and 54% source pages, two thirds of them in ``sources/papers`` (so
one folder holds about 2,500 pages at n = 7,000). Wiki pages are as dense as real ones: long
Chinese prose with English terms, a link, bold run (beside CJK punctuation too), inline code or
math in most sentences, abbreviation and comparison tables, numbered and bullet lists, display
math, bare URLs, a ``mermaid`` diagram on 40% of them and an illustrative ``python`` block on
some; ``related`` and ``sources`` lists in frontmatter. Source pages have no frontmatter, only
the archive's field list (``- **入库日期：** 2026-07-11``) and excerpts that link back to the
wiki. About 2% of links are broken. The same ``n`` and ``seed`` always give the same bytes.

Two vocabularies (``--vocabulary``, ``benchmarks/synth_vocab.py``): **real**, the default,
draws Chinese words from jieba's dictionary by topic and has the real wiki's vocabulary and
shape (``benchmarks/corpus_stats.py`` compares them: CJK bigrams, link density, a size tail
of long hub pages that many pages link to, sources titled as their wiki page); **small**
writes the same bytes as before it existed, 50 Chinese words in all.

``benchmarks/calibrate.py`` measures how fast markdown-it-py parses these pages per byte
against a folder of real pages; the mix below is tuned so the two agree within a few percent.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import synth_text as text
import synth_vocab
from synth_text import SECTIONS, TERMS, WORDS, PageRandom

__all__ = ["BROKEN_RATE", "FOLDERS", "SECTIONS", "SOURCE_FOLDERS", "TERMS", "TYPES", "WORDS"]
__all__ += ["VOCABULARIES", "generate"]

TYPES = ("concept", "method", "entity", "overview", "query", "task")
FOLDERS = {
    "concept": "concepts",
    "method": "methods",
    "entity": "entities",
    "overview": "overview",
    "query": "queries",
    "task": "tasks",
}
# How often each type or source folder comes up, as a repeating pattern (a real wiki's mix).
_TYPE_CYCLE = ["concept"] * 5 + ["method"] * 4 + ["entity"] * 7 + ["overview", "task"]
_TYPE_CYCLE += ["query"] * 2
SOURCE_FOLDERS = ("papers", "repos", "books", "courses", "blogs")
_SOURCE_CYCLE = ["papers"] * 17 + ["repos"] * 3 + ["courses"] * 2 + ["blogs"] * 2 + ["books"]
SOURCE_SHARE = 0.54
MERMAID_SHARE = 0.4
BROKEN_RATE = 0.02
VOCABULARIES = ("real", "small")
# Real-vocabulary wikis only (the small one keeps its old bytes): the real wiki's link
# density (12 links a page, not 21), a hub page every HUB_EVERY wiki pages that many pages
# link to and that is long (the largest about 160 KB), and sources that share their wiki
# page's title, as an archived paper and the page written from it often do.
PLAIN_LINK_SHARE = 0.9
HUB_EVERY = 150
HUB_LINK_SHARE = 0.05
HUB_SECTIONS = 170
SAME_TITLE_EVERY = 10
LONG_SHARE = 0.15


class _Plan:
    """Names, titles and headings of every page, decided before any page is written."""

    def __init__(self, n: int, seed: int, vocabulary: str) -> None:
        self.seed, self.real = seed, vocabulary == "real"
        rng = PageRandom(seed)
        n_sources = max(1, min(n - 5, round(n * SOURCE_SHARE))) if n > 6 else 1
        self.wiki: list[tuple[str, str]] = []  # (path, type)
        self.titles: dict[str, str] = {}
        for i in range(max(1, n - n_sources)):
            kind = _TYPE_CYCLE[i % len(_TYPE_CYCLE)]
            term = TERMS[i % len(TERMS)]
            slug = term.lower().replace(" ", "-")
            path = f"wiki/{FOLDERS[kind]}/{slug}-{i:05d}.md"
            self.wiki.append((path, kind))
            said = self.random(f"title:{path}", i) if self.real else rng
            self.titles[path] = f"{_title_case(term)}（{said.word()}）"
        self.sources: list[str] = []
        for i in range(n_sources):
            folder = _SOURCE_CYCLE[i % len(_SOURCE_CYCLE)]
            slug = TERMS[(i * 7) % len(TERMS)].lower().replace(" ", "_").replace("-", "_")
            path = f"sources/{folder}/{slug}_{i:05d}.md"
            self.sources.append(path)
            self.titles[path] = f"{TERMS[(i * 7) % len(TERMS)]} 来源归档 {i}"
            if self.real and i % SAME_TITLE_EVERY == 0:
                self.titles[path] = self.titles[self.wiki[i % len(self.wiki)][0]]
        self.headings = {path: rng.sample(SECTIONS, self._sections(rng)) for path, _ in self.wiki}
        hubs = range(0, len(self.wiki), HUB_EVERY) if self.real else range(0)
        self.hubs = [self.wiki[i][0] for i in hubs]
        for rank, (i, hub) in enumerate(zip(hubs, self.hubs, strict=True)):
            said = self.random(f"hub:{hub}", i)
            extra = max(0, round(HUB_SECTIONS * 0.8**rank) - len(self.headings[hub]))
            self.headings[hub] += [f"{said.word()}（{said.term()}） {k}" for k in range(extra)]
        # Every source is cited by one "owner" wiki page, so few sources are uncited.
        self.owned: dict[int, list[str]] = {}
        for i, source in enumerate(self.sources):
            self.owned.setdefault(i % len(self.wiki), []).append(source)

    def _sections(self, rng: PageRandom) -> int:
        if not self.real:
            return rng.randint(2, 4)
        # Real pages are a little longer, and one in eight is a long article.
        return rng.randint(5, 10) if rng.random() < LONG_SHARE else rng.randint(2, 4)

    def random(self, key: str, wiki_index: int) -> PageRandom:
        """The random source of one page (or part of the plan), speaking its topic's words."""
        seed = f"{self.seed}:{key}"
        if not self.real:
            return PageRandom(seed)
        return synth_vocab.RealRandom(
            seed, synth_vocab.topic(wiki_index // synth_vocab.TOPIC_PAGES)
        )


def _title_case(term: str) -> str:
    return term if any(c.isupper() for c in term) else term.title()


def _relative(frm: str, to: str) -> str:
    a, b = frm.split("/")[:-1], to.split("/")
    common = 0
    while common < len(a) and common < len(b) - 1 and a[common] == b[common]:
        common += 1
    up = [".."] * (len(a) - common)
    return "/".join(up + b[common:]) or "."


def _maybe_broken(rng: PageRandom, target: str) -> str:
    return target.replace(".md", "-missing.md") if rng.random() < BROKEN_RATE else target


def _linker(path: str, plan: _Plan, near: list[str], rng: PageRandom) -> Callable[[], str]:
    """``[title](target)`` links from ``path``: to its neighbours, any wiki page (sometimes
    with an anchor) or a source, as real pages mix them."""

    def link() -> str:
        roll = rng.random()
        anchor = ""
        if plan.hubs and roll < HUB_LINK_SHARE:
            target = rng.choice(plan.hubs) if path not in plan.hubs else plan.wiki[1][0]
        elif roll < 0.4 and near:
            target = rng.choice(near)
        elif roll < 0.85:
            target = plan.wiki[rng.randrange(len(plan.wiki))][0]
            if target == path:  # a page that links to itself is a finding of its own
                target = rng.choice(near) if near else plan.sources[0]
            if target in plan.headings and rng.random() < 0.15:
                anchor = "#" + rng.choice(plan.headings[target])
        else:
            target = rng.choice(plan.sources)
        rel = _maybe_broken(rng, _relative(path, target))
        if plan.real and target not in plan.hubs and rng.random() < PLAIN_LINK_SHARE:
            return plan.titles[target]  # named, not linked, as most mentions are
        return f"[{plan.titles[target]}]({rel}{anchor})"

    return link


def _frontmatter(index: int, plan: _Plan, related: list[str], sources: list[str], rng) -> list:
    path, kind = plan.wiki[index]
    tags = rng.sample(["transformer", "robotics", "rl", "vla", "math", "humanoid", "il"], 3)
    fields = {
        "type": f"type: {kind}",
        "tags": f"tags: [{', '.join(tags)}]",
        "status": "status: complete",
        "updated": f"updated: 2026-{rng.randint(1, 10):02d}-{rng.randint(1, 28):02d}",
        "summary": f'summary: "{text.summary(rng)}"',
        "description": f"description: {rng.word()}与{rng.word()}的{kind}综述",
        "related": "\n".join(
            ["related:", *[f"  - {_maybe_broken(rng, _relative(path, r))}" for r in related]]
        ),
        "sources": "\n".join(
            ["sources:", *[f"  - {_maybe_broken(rng, _relative(path, s))}" for s in sources]]
        ),
    }
    order = rng.choice(
        (
            ("type", "tags", "status", "updated", "summary", "sources", "related"),
            ("type", "summary", "description", "updated", "tags", "related", "sources"),
        )
    )
    return ["---", *(fields[key] for key in order), "---", ""]


def _wiki_page(index: int, plan: _Plan, rng: PageRandom) -> str:
    path, _ = plan.wiki[index]
    count = len(plan.wiki)
    # Ring neighbours are mutual `related` pairs; a few far pages make some one-way ones.
    related = [plan.wiki[(index + k) % count][0] for k in (1, -1, 2, -2) if count > 4]
    related += [plan.wiki[rng.randrange(count)][0] for _ in range(rng.randint(0, 8))]
    related = [r for r in dict.fromkeys(related) if r != path]
    sources = plan.owned.get(index, []) + rng.sample(
        plan.sources, min(len(plan.sources), rng.randint(0, 6))
    )
    sources = list(dict.fromkeys(sources))
    link = _linker(path, plan, related, rng)
    lines = _frontmatter(index, plan, related, sources, rng)
    lines += [f"# {plan.titles[path]}", "", f"> **一句话定义**：{text.sentence(rng, link)}", ""]
    lines += ["## 英文缩写速查", "", *text.abbreviation_table(rng), ""]
    lines += ["## 为什么重要", "", *text.bullets(rng, link, rng.randint(2, 3), rng.random() < 0.3)]
    headings = plan.headings[path]
    diagram_at = rng.randrange(len(headings)) if rng.random() < MERMAID_SHARE else -1
    for at, heading in enumerate(headings):
        lines += ["", f"## {heading}", "", text.paragraph(rng, link, (1, 3)), ""]
        for sub in range(rng.randint(0, 1)):
            lines += [f"### {sub + 1}. {rng.word()}（{rng.term()}）", ""]
            lines += [text.paragraph(rng, link, (1, 2)), ""]
        if rng.random() < 0.5:
            lines += [*text.bullets(rng, link, rng.randint(2, 6)), ""]
        if rng.random() < 0.3:
            lines += [*text.comparison_table(rng, link), ""]
        if rng.random() < 0.15:
            lines += [*text.display_math(rng), "", text.paragraph(rng, link, (1, 2)), ""]
        if at == diagram_at:
            lines += [*text.mermaid(rng), ""]
        if rng.random() < 0.06:
            lines += [*text.python_block(rng), ""]
    lines += ["## 常见误区", ""]
    lines += [f"- **误区 {i}：{rng.word()}等于{rng.word()}。**  " for i in (1, 2)]
    lines += ["", "## 关联页面", ""]
    for r in related:
        note = text.sentence(rng, link, (1, 1)) if rng.random() < 0.4 else rng.word()
        lines.append(f"- [{plan.titles[r]}]({_relative(path, r)}) — {note}")
    lines += ["", "## 参考来源", ""]
    lines += [
        f"- [{plan.titles[s]}]({_relative(path, s)}) — {rng.word()}的原始出处" for s in sources
    ]
    lines.append(f"- Author, A., et al. (2026). *{_title_case(rng.term())}*. <{text.url(rng)}>")
    lines += ["", "## 推荐继续阅读（外部）", ""]
    lines += [f"- [{rng.term()}]({text.url(rng)}) — {rng.word()}" for _ in (1, 2)]
    return "\n".join(lines) + "\n"


def _source_page(index: int, plan: _Plan, rng: PageRandom) -> str:
    path = plan.sources[index]
    owner = plan.wiki[index % len(plan.wiki)][0]
    near = [owner, *(plan.wiki[rng.randrange(len(plan.wiki))][0] for _ in range(3))]
    link = _linker(path, plan, near, rng)
    owner_link = f"[`{owner}`]({_relative(path, owner)})"
    lines = [
        f"# {plan.titles[path]}",
        "",
        "> 来源归档",
        "",
        f"- **标题：** {_title_case(rng.term())} for {_title_case(rng.term())}",
        f"- **类型：** {path.split('/')[1].rstrip('s')}",
        f"- **作者：** Author, A.（GitHub: [author](https://github.com/author-{index})）",
        f"- **链接：** <{text.url(rng)}>",
        f"- **入库日期：** 2026-{rng.randint(1, 10):02d}-{rng.randint(1, 28):02d}",
        f"- **一句话说明：** {text.sentence(rng, link)}",
        f"- **沉淀到 wiki：** 是 → {owner_link}",
        "",
        "## 为什么值得保留",
        "",
        *text.bullets(rng, link, rng.randint(2, 3)),
        "",
    ]
    if rng.random() < 0.4:
        lines += ["## 结构一览", "", *text.comparison_table(rng, link), ""]
    lines += ["## 核心摘录", ""]
    for i in range(1, (rng.randint(3, 7) if plan.real else rng.randint(2, 4)) + 1):
        lines += [f"### {i}) {rng.word()}与{rng.term()}", ""]
        lines += [
            f"- **要点：** {text.sentence(rng, link)}",
            f"- **对 wiki 的映射：** {owner_link}",
        ]
        lines.append("")
    lines += ["## 推荐继续阅读（外部）", ""]
    lines += [f"- [{rng.term()}]({text.url(rng)}) — {rng.word()}", ""]
    return "\n".join(lines)


def generate(root: Path, n: int, seed: int = 0, vocabulary: str = "real") -> list[Path]:
    """Write ``n`` pages under ``root`` and return their paths; ``vocabulary`` is one of
    :data:`VOCABULARIES` (``synth_vocab`` tells them apart)."""
    if vocabulary not in VOCABULARIES:
        raise ValueError(f"vocabulary {vocabulary!r}: expected one of {', '.join(VOCABULARIES)}")
    plan = _Plan(n, seed, vocabulary)
    written = []
    for index, (path, _) in enumerate(plan.wiki):
        page = _wiki_page(index, plan, plan.random(path, index))
        written.append(_write(root / path, page))
    for index, path in enumerate(plan.sources):
        page = _source_page(index, plan, plan.random(path, index % len(plan.wiki)))
        written.append(_write(root / path, page))
    return written


def _write(path: Path, page: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", type=Path)
    parser.add_argument("-n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--vocabulary",
        choices=VOCABULARIES,
        default="real",
        help="real: jieba's dictionary by topic (the bench extra); small: 50 fixed words",
    )
    args = parser.parse_args()
    pages = generate(args.root, args.n, args.seed, args.vocabulary)
    print(f"wrote {len(pages)} pages under {args.root}")
