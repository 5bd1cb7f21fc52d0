"""Benchmark the CJK-friendly emphasis rule: how much slower parsing is with it than without.

Parses the same pages with kbtool's parser configuration twice: once as it is, once with
markdown-it's own ``emphasis`` and ``strikethrough`` tokenizers put back. Pages: the reference
wiki (``--pages``, default /work/shared/reference-wiki when present), the bundled wiki, a
synthetic wiki (benchmarks/synth.py), and synthetic pages dense with Chinese bold.
The two small wikis are parsed repeatedly (300 parses each). Prints seconds for each (best
of ``--repeat`` runs of CPU time, alternating which goes first) and the ratio. Target: ratio
<= 1.05.

    python benchmarks/bench_cjk_emphasis.py [-n 600] [--repeat 5] [--pages DIR]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import synth  # noqa: E402
from markdown_it import MarkdownIt  # noqa: E402
from markdown_it.rules_inline import emphasis, strikethrough  # noqa: E402
from parse_timing import paired_seconds  # noqa: E402

from kbtool.parse.markdown import markdown_parser  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
REFERENCE = Path("/work/shared/reference-wiki")
WORDS = ("策略", "观测", "动作块", "注意力", "扩散模型", "低层跟踪器", "Transformer", "MLP")


def _without_rule() -> MarkdownIt:
    """kbtool's configuration with markdown-it's own emphasis tokenizers (a fresh parser)."""
    markdown_parser.cache_clear()
    md = markdown_parser()
    markdown_parser.cache_clear()
    md.inline.ruler.at("emphasis", emphasis.tokenize)
    md.inline.ruler.at("strikethrough", strikethrough.tokenize)
    return md


def _dense_page(rng: random.Random) -> str:
    """A page where nearly every sentence has bold next to Chinese punctuation."""
    lines = ["# 密集强调", ""]
    for _ in range(60):
        word, other = rng.choice(WORDS), rng.choice(WORDS)
        lines.append(
            f"由**「{word}」**决定，**{other}（{word}）**的*输出*与~~「旧值」~~不同；"
            f"**注意：**{word}与 **{other}** 之间。"
        )
    return "\n".join(lines) + "\n"


def _texts(args: argparse.Namespace, scratch: Path) -> dict[str, list[str]]:
    sets: dict[str, list[str]] = {}
    if args.pages.is_dir():
        sets["reference wiki"] = [p.read_text("utf-8") for p in sorted(args.pages.rglob("*.md"))]
    sets["bundled wiki"] = [p.read_text("utf-8") for p in sorted((REPO / "wiki").rglob("*.md"))]
    sets["synthetic wiki"] = [p.read_text("utf-8") for p in synth.generate(scratch, args.n)]
    for name in ("reference wiki", "bundled wiki"):  # small sets: parsed repeatedly, for a
        if name in sets:  # measurement above the noise of a shared machine
            sets[name] = sets[name] * -(-300 // len(sets[name]))
    rng = random.Random(0)
    sets["dense bold"] = [_dense_page(rng) for _ in range(args.n // 4 or 1)]
    return sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=600, help="synthetic pages")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--pages", type=Path, default=REFERENCE)
    args = parser.parse_args()
    with_rule, without = markdown_parser(), _without_rule()
    with tempfile.TemporaryDirectory() as scratch:
        sets = _texts(args, Path(scratch))
    print(f"{'pages':<16}{'n':>6}{'without s':>12}{'with s':>10}{'ratio':>8}")
    total_with = total_without = 0.0
    for name, texts in sets.items():
        ours, plain = paired_seconds(with_rule, without, texts, args.repeat)
        total_with, total_without = total_with + ours, total_without + plain
        print(f"{name:<16}{len(texts):>6}{plain:>12.3f}{ours:>10.3f}{ours / plain:>8.3f}")
    ratio = total_with / total_without
    verdict = "ok" if ratio <= 1.05 else "over the 5% target"
    print(f"{'all':<16}{'':>6}{total_without:>12.3f}{total_with:>10.3f}{ratio:>8.3f}  {verdict}")


if __name__ == "__main__":
    main()
