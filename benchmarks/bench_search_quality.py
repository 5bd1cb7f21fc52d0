"""How well search answers: hit@1, hit@5 and MRR@10 over query sets with expected pages.

Two corpora, each indexed as a build indexes it (the pages' tokens -> SearchDocs -> files):

- **the bundled wiki** (``wiki/`` + ``sources/``), with a query set written for it: every
  page's title typed as a query, titles as people type them (the part before a bracket or
  colon), many-word queries mixing English and Chinese of the shapes maintainers type
  (``Mamba 选择性扫描 硬件感知``), Chinese runs typed without spaces, misspelt English, and a
  term plus ``type:`` / ``tag:`` filters;
- **synthetic real-density pages** (``benchmarks/synth.py``), with queries made from the plan
  of the pages: known-item titles (page titles repeat there, so any page with the same title
  counts), a title's English term and Chinese word with a third word from the page's summary
  or headings, the two alone, the term misspelt, and the term with a type filter.

Two more classes are made from the pages and their link graph (the in-links a build gives
the index), with figures of their own:

- **same title**: a title (or short title) that a source page shares with a wiki page (an
  archived paper and the page written from it), typed as the query; only the wiki page
  counts;
- **broad**: a hub's concept name (its short title) and two words its body keeps coming
  back to that other pages say too; only the hub counts. Hubs are the wiki pages with
  :data:`HUB_FACTOR` times the median page's in-links: long pages, which length
  normalisation ranks below short ones unless something knows they are hubs. Written by hand
  for the bundled wiki (its three most linked wiki pages), made from the pages for
  synthetic ones.

A query's answer counts as a hit at k when one of its expected pages is among the first k
results; MRR@10 is the mean of 1/rank of the first expected page (0 past rank 10). There is
no held-out query set here: these sets were written with the engine in view, so read the
figures as a regression check and a floor, not as what real users will see.

    python benchmarks/bench_search_quality.py [-n 2000] [--json] [--misses]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import synth  # noqa: E402

from kbtool.config import Config  # noqa: E402
from kbtool.model import Page  # noqa: E402
from kbtool.parse.page import parse_page_tokens  # noqa: E402
from kbtool.search.engine import IndexFiles, rank  # noqa: E402
from kbtool.search.text import SearchDoc, search_doc  # noqa: E402
from kbtool.search.writer import write_search_index  # noqa: E402
from kbtool.wiki import Wiki  # noqa: E402

REPO = Path(__file__).resolve().parent.parent

#: (kind, query, expected pages): written for the bundled wiki.
BUNDLED: list[tuple[str, str, tuple[str, ...]]] = [
    # many words, English and Chinese mixed, in the order people think of them
    ("many-word", "Mamba 选择性扫描 硬件感知", ("wiki/concepts/mamba.md",)),
    ("many-word", "ACT CVAE 时间集成 ALOHA", ("wiki/methods/action-chunking.md",)),
    ("many-word", "RT-2 VLA 动作 token", ("wiki/methods/robotics-transformer-rt-series.md",)),
    ("many-word", "因果掩码 行为克隆 复合误差", ("wiki/methods/bc-with-transformer.md",)),
    (
        "many-word",
        "人形机器人 控制频率 MLP LSTM",
        ("wiki/concepts/humanoid-policy-network-architecture.md",),
    ),
    (
        "many-word",
        "反向传播 LayerNorm 残差连接 初始化",
        ("wiki/concepts/deep-learning-foundations.md",),
    ),
    ("many-word", "ViT DeiT Swin DETR 学习路径", ("wiki/entities/transformer-cv-curriculum.md",)),
    ("many-word", "Karpathy micrograd nanoGPT 课程", ("wiki/entities/andrej-karpathy.md",)),
    ("many-word", "BPE 分词 GPT 预训练 Raschka", ("wiki/entities/llms-from-scratch-raschka.md",)),
    ("many-word", "Chebyshev 多项式 简洁性 正则", ("wiki/entities/paper-effective-degree.md",)),
    (
        "many-word",
        "BLEU WMT14 encoder-decoder 论文",
        (
            "wiki/entities/paper-attention-is-all-you-need.md",
            "sources/papers/attention_is_all_you_need.md",
        ),
    ),
    ("many-word", "复杂度对比 顺序操作数 最长路径", ("wiki/overview/ai-architecture-map.md",)),
    ("many-word", "联想记忆 参数记忆 上下文记忆 Transformer", ("wiki/concepts/transformer.md",)),
    ("many-word", "Isaac Gym 腿式机器人 强化学习", ("sources/repos/legged_gym_cvfound.md",)),
    (
        "many-word",
        "state space duality Mamba-2",
        (
            "sources/papers/mamba2_ssd_cvfound.md",
            "wiki/concepts/mamba.md",
        ),
    ),
    # Chinese typed as one run, with no space between the terms
    ("cjk-run", "选择性状态空间模型", ("wiki/concepts/mamba.md",)),
    ("cjk-run", "动作分块时间集成", ("wiki/methods/action-chunking.md",)),
    (
        "cjk-run",
        "人形机器人策略网络选型",
        ("wiki/concepts/humanoid-policy-network-architecture.md",),
    ),
    ("cjk-run", "行为克隆因果掩码", ("wiki/methods/bc-with-transformer.md",)),
    ("cjk-run", "联想记忆教程", ("sources/repos/keawang_associative_memory_blog.md",)),
    # misspelt English
    ("misspelt", "Transfomer", ("wiki/concepts/transformer.md",)),
    (
        "misspelt",
        "atention is all you need",
        (
            "wiki/entities/paper-attention-is-all-you-need.md",
            "sources/papers/attention_is_all_you_need.md",
        ),
    ),
    ("misspelt", "Karpaty", ("wiki/entities/andrej-karpathy.md",)),
    ("misspelt", "difusion policy", ("sources/papers/diffusion_policy_cvfound.md",)),
    ("misspelt", "acton chunking", ("wiki/methods/action-chunking.md",)),
    ("misspelt", "bimanaul manipulation", ("sources/papers/act_aloha_bimanual.md",)),
    # a term and filters
    (
        "filter",
        "Transformer type:method",
        (
            "wiki/methods/robotics-transformer-rt-series.md",
            "wiki/methods/bc-with-transformer.md",
        ),
    ),
    ("filter", "Mamba type:source", ("sources/papers/mamba_selective_state_spaces.md",)),
    ("filter", "attention type:entity", ("wiki/entities/paper-attention-is-all-you-need.md",)),
    ("filter", "注意力 tag:curriculum", ("wiki/entities/transformer-cv-curriculum.md",)),
    ("filter", "Karpathy -type:source", ("wiki/entities/andrej-karpathy.md",)),
    ("filter", "RT-2 type:方法", ("wiki/methods/robotics-transformer-rt-series.md",)),
    # a hub's concept name and two words of what it covers (its most linked pages)
    ("broad", "Transformer 注意力 位置编码", ("wiki/concepts/transformer.md",)),
    ("broad", "Transformer 多头注意力 残差", ("wiki/concepts/transformer.md",)),
    ("broad", "Transformer 因果掩码 机器人", ("wiki/concepts/transformer.md",)),
    ("broad", "深度学习 反向传播 初始化", ("wiki/concepts/deep-learning-foundations.md",)),
    ("broad", "深度学习 归一化 残差连接", ("wiki/concepts/deep-learning-foundations.md",)),
    ("broad", "深度学习 优化 正则化", ("wiki/concepts/deep-learning-foundations.md",)),
    (
        "broad",
        "Attention Is All You Need 自注意力 翻译",
        ("wiki/entities/paper-attention-is-all-you-need.md",),
    ),
]
LABELS = {"concept": "概念", "method": "方法", "entity": "实体", "overview": "综述"}
#: Hubs: the wiki pages with this many times the median page's in-links.
HUB_FACTOR = 10
#: Broad queries per hub; the pages a broad query's words are each on: at least BROAD_PAGES,
#: at most a share BROAD_SHARE of all (not the section names most pages have).
BROAD_PER_HUB = 5
BROAD_PAGES = 10
BROAD_SHARE = 0.05
#: How often a hub says a word for it to be one of what it covers.
SAID_TIMES = 3
_CJK_WORD = re.compile(r"(?<![\u4e00-\u9fff])[\u4e00-\u9fff]{2,6}(?![\u4e00-\u9fff])")


@dataclass(frozen=True)
class Case:
    kind: str
    query: str
    expected: frozenset[str]


@dataclass(frozen=True)
class Corpus:
    docs: dict[str, SearchDoc]
    #: in-links by path: how many other pages link to each page
    links: dict[str, int]


def read_corpus(root: Path, paths: Iterable[Path]) -> Corpus:
    """The SearchDocs a build makes of ``paths`` (files under ``root``), and their in-links."""
    docs, pages = {}, {}
    for file in sorted(paths):
        rel = file.relative_to(root).as_posix()
        page, tokens = parse_page_tokens(
            rel, file.read_bytes(), "source" if rel.startswith("sources/") else "wiki"
        )
        docs[rel], pages[rel] = search_doc(page, tokens), page
    return Corpus(docs, in_links(root, pages))


def in_links(root: Path, pages: dict[str, Page]) -> dict[str, int]:
    """How many other pages link to each page, as the build counts them (backlinks)."""
    counts = dict.fromkeys(pages, 0)
    for _, to in {(frm, to) for frm, to, _ in Wiki(Config(root=root), pages).edges}:
        counts[to] += 1
    return counts


def _short(title: str) -> str:
    """A title as typed: the part before a bracket or colon."""
    return re.split(r"[（(：:]", title)[0].strip()


def same_title_cases(docs: dict[str, SearchDoc], count: int, rng: random.Random) -> list[Case]:
    """Titles (or short titles) a source shares with a wiki page, typed: the wiki page is the
    answer."""
    wiki: dict[str, set[str]] = {}
    for path, doc in docs.items():
        if doc.card.type != "source":
            for title in {doc.card.title, _short(doc.card.title)} - {""}:
                wiki.setdefault(title, set()).add(path)
    said = {
        t
        for d in docs.values()
        if d.card.type == "source"
        for t in (d.card.title, _short(d.card.title))
    }
    shared = sorted(said & wiki.keys())
    chosen = rng.sample(shared, min(count, len(shared)))
    return [Case("same title", title, frozenset(wiki[title])) for title in chosen]


def hubs(corpus: Corpus) -> list[str]:
    """The wiki pages with :data:`HUB_FACTOR` times the median in-links."""
    counts = sorted(corpus.links.values())
    least = HUB_FACTOR * max(1, counts[len(counts) // 2])
    return sorted(
        p for p, d in corpus.docs.items() if d.card.type != "source" and corpus.links[p] >= least
    )


def broad_cases(corpus: Corpus, count: int, rng: random.Random) -> list[Case]:
    """A hub's concept name and two words its body says :data:`SAID_TIMES` times or more
    that other pages say too (see :data:`BROAD_PAGES`): only the hub counts."""
    texts = [
        " ".join([d.card.title, d.card.summary, *d.headings, d.body]) for d in corpus.docs.values()
    ]
    pages: dict[str, int] = {}

    def common(word: str) -> bool:
        if word not in pages:
            pages[word] = sum(word in text for text in texts)
        return BROAD_PAGES <= pages[word] <= BROAD_SHARE * len(texts)

    cases = []
    for hub in hubs(corpus):
        doc = corpus.docs[hub]
        name = _short(doc.card.title)
        counts = Counter(_CJK_WORD.findall(doc.body))
        said = sorted(w for w, n in counts.items() if n >= SAID_TIMES and w not in doc.card.title)
        rng.shuffle(said)
        words = [w for w in said[:120] if common(w)]
        for i in range(0, min(2 * BROAD_PER_HUB, len(words) - 1), 2):
            cases.append(Case("broad", f"{name} {words[i]} {words[i + 1]}", frozenset([hub])))
    return cases[:count]


def graph_cases(corpus: Corpus, broad: bool, count: int = 150, seed: int = 11) -> list[Case]:
    rng = random.Random(seed)
    cases = same_title_cases(corpus.docs, count, rng)
    return cases + (broad_cases(corpus, count, rng) if broad else [])


def bundled_cases(docs: dict[str, SearchDoc]) -> list[Case]:
    cases = [Case(kind, q, frozenset(e)) for kind, q, e in BUNDLED]
    for _, doc in sorted(docs.items()):
        same = frozenset(p for p, d in docs.items() if d.card.title == doc.card.title)
        cases.append(Case("title", doc.card.title, same))
        short = _short(doc.card.title)
        if short and short != doc.card.title:
            alike = frozenset(p for p, d in docs.items() if _short(d.card.title) == short)
            cases.append(Case("short title", short, alike))
    return cases


def _misspell(word: str, rng: random.Random) -> str:
    """``word`` with one letter dropped or two neighbours swapped (past its second)."""
    i = rng.randrange(2, len(word) - 1)
    if rng.random() < 0.5:
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def synthetic_cases(docs: dict[str, SearchDoc], count: int = 150, seed: int = 7) -> list[Case]:
    rng = random.Random(seed)
    by_title: dict[str, set[str]] = {}
    for path, doc in docs.items():
        by_title.setdefault(doc.card.title, set()).add(path)
    wiki = sorted(p for p in docs if p.startswith("wiki/"))
    titled = re.compile(r"(.+)（(.+)）")
    cases = [
        Case("title", docs[p].card.title, frozenset(by_title[docs[p].card.title]))
        for p in rng.sample(sorted(docs), min(count, len(docs)))
    ]
    for path in rng.sample(wiki, min(count // 2, len(wiki))):
        doc = docs[path]
        match = titled.fullmatch(doc.card.title)
        if not match:
            continue
        term, word = match.groups()
        same = frozenset(by_title[doc.card.title])
        # A third word the page itself says something about, as a person describing it would
        said = [
            w for w in synth.WORDS if w != word and w in doc.card.summary + " ".join(doc.headings)
        ]
        other = rng.choice(said or [w for w in synth.WORDS if w in doc.body] or [word])
        cases.append(Case("many-word", f"{term} {word} {other}", same))
        cases.append(Case("many-word", f"{word} {term}", same))
        long = [w for w in term.split() if len(w) >= 5 and w.isalpha()]
        if long:
            typo = " ".join(_misspell(w, rng) if w in long else w for w in term.split())
            cases.append(Case("misspelt", f"{typo} {word}", same))
        kind = doc.card.type
        of_type = frozenset(p for p in same if docs[p].card.type == kind)
        cases.append(Case("filter", f"{term} {word} type:{kind}", of_type))
    return cases


def rank_of(index: IndexFiles, case: Case, docs: list[SearchDoc | None]) -> int | None:
    """The 1-based rank of the first expected page in the first 10 results, or None."""
    ranked = rank(index, case.query)
    for at, doc_id in enumerate(ranked.docs[:10], 1):
        doc = docs[doc_id] if doc_id < len(docs) else index.doc(doc_id)
        if doc is not None and doc.card.path in case.expected:
            return at
    return None


def evaluate(corpus: Corpus, cases: list[Case], labels: dict[str, str]) -> dict:
    docs = corpus.docs
    with tempfile.TemporaryDirectory(prefix="kbtool-search-quality-") as tmp:
        folder = Path(tmp) / "search"
        write_search_index(docs, folder, labels=labels, links=corpus.links)
        index = IndexFiles(folder)
        by_id = [index.doc(i) for i in range(len(docs))]
        ranks = [(case, rank_of(index, case, by_id)) for case in cases]
    report: dict = {"pages": len(docs), "kinds": {}, "misses": []}
    kinds = sorted({c.kind for c in cases}, key=lambda k: [c.kind for c in cases].index(k))
    for kind in [*kinds, "all"]:
        chosen = [(c, r) for c, r in ranks if kind in ("all", c.kind)]
        report["kinds"][kind] = _scores([r for _, r in chosen])
    report["misses"] = [[c.kind, c.query, r] for c, r in ranks if r != 1]
    return report


def _scores(ranks: list[int | None]) -> dict[str, float]:
    n = len(ranks) or 1
    return {
        "queries": len(ranks),
        "hit@1": sum(r == 1 for r in ranks) / n,
        "hit@5": sum(r is not None and r <= 5 for r in ranks) / n,
        "mrr@10": sum(1 / r for r in ranks if r) / n,
    }


def bundled() -> dict:
    files = sorted([*(REPO / "wiki").rglob("*.md"), *(REPO / "sources").rglob("*.md")])
    corpus = read_corpus(REPO, files)
    return evaluate(corpus, bundled_cases(corpus.docs) + graph_cases(corpus, broad=False), LABELS)


def synthetic(n: int, vocabulary: str = "real") -> dict:
    with tempfile.TemporaryDirectory(prefix=f"kbtool-search-quality-{n}-") as tmp:
        root = Path(tmp)
        corpus = read_corpus(root, synth.generate(root, n, vocabulary=vocabulary))
    return evaluate(corpus, synthetic_cases(corpus.docs) + graph_cases(corpus, broad=True), {})


def _print(name: str, report: dict, misses: bool) -> None:
    print(f"{name}: {report['pages']} pages")
    print(f"  {'queries':<14}{'n':>5}{'hit@1':>8}{'hit@5':>8}{'MRR@10':>8}")
    for kind, s in report["kinds"].items():
        print(
            f"  {kind:<14}{s['queries']:>5}{s['hit@1']:>8.3f}{s['hit@5']:>8.3f}{s['mrr@10']:>8.3f}"
        )
    if misses:
        for kind, query, at in report["misses"]:
            print(f"    not first: [{kind}] {query!r} -> {at or 'not in the top 10'}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", type=int, default=2000, help="synthetic pages (default 2,000)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("--misses", action="store_true", help="list the queries not answered first")
    parser.add_argument(
        "--vocabulary", choices=synth.VOCABULARIES, default="real", help="synth.py's words"
    )
    args = parser.parse_args()
    reports = {"bundled": bundled(), "synthetic": synthetic(args.n, args.vocabulary)}
    if args.json:
        print(json.dumps(reports, ensure_ascii=False, indent=2))
        return
    _print("bundled wiki", reports["bundled"], args.misses)
    _print("synthetic pages", reports["synthetic"], args.misses)


if __name__ == "__main__":
    main()
