"""A deterministic synthetic wiki in kbtool's page format, for benchmarks.

``generate(root, n)`` writes ``n`` pages (about 70% wiki pages in four type folders, 30%
source pages) of Chinese prose with English terms, tables, inline and display math, code,
cross links with anchors, ``related`` and ``sources`` lists. About 2% of links are broken.
The same ``n`` and ``seed`` always give the same bytes.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

TYPES = ("concept", "method", "entity", "overview")
FOLDERS = {"concept": "concepts", "method": "methods", "entity": "entities", "overview": "overview"}
SOURCE_FOLDERS = ("papers", "repos", "books", "courses", "blogs")
TERMS = (
    "Transformer",
    "attention",
    "policy",
    "diffusion",
    "VLA",
    "LayerNorm",
    "RL",
    "SSM",
    "humanoid",
    "imitation learning",
    "tokenizer",
    "action chunking",
    "MPC",
    "ViT",
)
WORDS = (
    "注意力",
    "位置编码",
    "多头",
    "缩放点积",
    "人形机器人",
    "策略网络",
    "模仿学习",
    "残差连接",
    "序列建模",
    "长程依赖",
    "动作分块",
    "扩散模型",
    "强化学习",
    "状态空间",
    "视觉编码器",
    "语言指令",
    "关节力矩",
    "控制频率",
    "泛化能力",
    "数据效率",
)
SECTIONS = (
    "核心思想",
    "方法细节",
    "与机器人技术的联系",
    "实验结果",
    "局限与讨论",
    "工程实践",
    "数学形式",
    "常见误区",
)
BROKEN_RATE = 0.02


def _sentence(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(3, 6)):
        word = rng.choice(WORDS)
        term = rng.choice(TERMS)
        parts.append(rng.choice((f"{word}（{term}）", f"**{word}**", f"{word}与 {term}", word)))
    return "，".join(parts) + "。"


class _Plan:
    """Names and headings of every page, decided before any page is written."""

    def __init__(self, n: int, rng: random.Random) -> None:
        self.wiki: list[tuple[str, str]] = []  # (path, type)
        self.sources: list[str] = []
        n_sources = max(1, int(n * 0.3))
        for i in range(n - n_sources):
            kind = TYPES[i % len(TYPES)]
            self.wiki.append((f"wiki/{FOLDERS[kind]}/page-{i:05d}.md", kind))
        for i in range(n_sources):
            self.sources.append(f"sources/{SOURCE_FOLDERS[i % 5]}/source_{i:05d}.md")
        self.headings = {path: rng.sample(SECTIONS, 4) for path, _ in self.wiki}


def _relative(frm: str, to: str) -> str:
    a, b = frm.split("/")[:-1], to.split("/")
    common = 0
    while common < len(a) and common < len(b) - 1 and a[common] == b[common]:
        common += 1
    up = [".."] * (len(a) - common)
    return "/".join(up + b[common:]) or "."


def _maybe_broken(rng: random.Random, target: str) -> str:
    return target.replace(".md", "-missing.md") if rng.random() < BROKEN_RATE else target


def _wiki_page(index: int, plan: _Plan, rng: random.Random) -> str:
    path, kind = plan.wiki[index]
    count = len(plan.wiki)
    # Related pages are neighbours in a ring so most `related` pairs are mutual.
    related = [plan.wiki[(index + k) % count][0] for k in (1, -1, 2, -2) if count > 4]
    sources = rng.sample(plan.sources, min(len(plan.sources), rng.randint(1, 3)))
    lines = [
        "---",
        f"type: {kind}",
        f'summary: "{_sentence(rng)}"',
        f"description: {rng.choice(WORDS)}的{rng.choice(WORDS)}综述",
        f"updated: 2026-{rng.randint(1, 10):02d}-{rng.randint(1, 28):02d}",
        f"tags: [{', '.join(rng.sample(['transformer', 'robotics', 'rl', 'vla', 'math'], 2))}]",
        "related:",
        *[f"  - {_maybe_broken(rng, _relative(path, r))}" for r in related],
        "sources:",
        *[f"  - {_maybe_broken(rng, _relative(path, s))}" for s in sources],
        "---",
        "",
        f"# {rng.choice(TERMS)} {index}",
        "",
        f"> **一句话定义**：{_sentence(rng)}",
        "",
    ]
    for heading in plan.headings[path]:
        lines += [f"## {heading}", "", _sentence(rng) + _sentence(rng), ""]
        other, _ = plan.wiki[rng.randrange(count)]
        anchor = rng.choice(plan.headings[other])
        link = _maybe_broken(rng, _relative(path, other))
        lines += [
            f"- 参见 [{rng.choice(WORDS)}]({link}#{anchor})：{_sentence(rng)}",
            f"- 公式 $d_k = {rng.randint(16, 128)}$ 时 $\\sqrt{{d_k}}$ 缩放；{_sentence(rng)}",
            "",
        ]
        if rng.random() < 0.4:
            lines += ["| 模块 | 作用 | 复杂度 |", "|---|---|---|"]
            lines += [
                f"| {rng.choice(TERMS)} | {rng.choice(WORDS)} | $O(n^{rng.randint(1, 2)})$ |"
                for _ in range(4)
            ]
            lines.append("")
        if rng.random() < 0.3:
            lines += [
                "$$",
                "\\mathrm{Attention}(Q,K,V)=\\mathrm{softmax}\\left(\\frac{QK^\\top}"
                "{\\sqrt{d_k}}\\right)V",
                "$$",
                "",
            ]
        if rng.random() < 0.2:
            lines += [
                "```python",
                "import math",
                f"print(math.sqrt({rng.randint(2, 512)}))",
                "```",
                "",
            ]
    lines += ["## 参考来源", ""]
    lines += [f"- [{Path(s).stem}]({_relative(path, s)})" for s in sources]
    return "\n".join(lines) + "\n"


def _source_page(index: int, plan: _Plan, rng: random.Random) -> str:
    path = plan.sources[index]
    citing = plan.wiki[index % len(plan.wiki)][0]
    return "\n".join(
        [
            f"# Source {index}: {rng.choice(TERMS)}",
            "",
            "> 论文来源归档（ingest）",
            "",
            f"- **标题：** {rng.choice(TERMS)} and {rng.choice(TERMS)}",
            f"- **链接：** <https://arxiv.org/abs/2{rng.randint(100, 999)}.{rng.randint(10000, 99999)}>",
            f"- **一句话说明：** {_sentence(rng)}",
            "",
            "## 对 wiki 的映射",
            "",
            f"- [{Path(citing).stem}]({_relative(path, citing)})：{_sentence(rng)}",
            "",
        ]
    )


def generate(root: Path, n: int, seed: int = 0) -> list[Path]:
    """Write ``n`` pages under ``root`` and return their paths."""
    rng = random.Random(seed)
    plan = _Plan(n, rng)
    written = []
    for index, (path, _) in enumerate(plan.wiki):
        written.append(_write(root / path, _wiki_page(index, plan, rng)))
    for index, path in enumerate(plan.sources):
        written.append(_write(root / path, _source_page(index, plan, rng)))
    return written


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", type=Path)
    parser.add_argument("-n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"wrote {len(generate(args.root, args.n, args.seed))} pages under {args.root}")
