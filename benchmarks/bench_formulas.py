"""Benchmark the formula and ``www.`` rules: how much slower parsing is with them than without.

Parses the same pages with kbtool's parser configuration twice: once as it is, once as it was
before ``\\(…\\)``/``\\[…\\]`` formulas, Pandoc's dollar rule and ``www.`` links (those rules
disabled, dollarmath with ``allow_space``). Pages: the reference wiki (``--pages``, default
/work/shared/reference-wiki when present), the bundled wiki, a synthetic wiki
(benchmarks/synth.py), and synthetic pages dense with formulas and prices. The two small wikis
are parsed repeatedly (300 parses each). Prints seconds for each (best of ``--repeat`` runs of
CPU time, alternating which goes first) and the ratio. Target: ratio <= 1.03.

    python benchmarks/bench_formulas.py [-n 600] [--repeat 7] [--pages DIR]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import synth  # noqa: E402
from bench_cjk_emphasis import REFERENCE, REPO  # noqa: E402
from markdown_it import MarkdownIt  # noqa: E402
from markdown_it.rules_inline.escape import escape  # noqa: E402
from mdit_py_plugins.dollarmath.index import math_inline_dollar  # noqa: E402
from parse_timing import paired_seconds  # noqa: E402

from kbtool.parse.markdown import markdown_parser  # noqa: E402

TARGET = 1.03
SYMBOLS = (r"\alpha", r"\mathbf{x}_t", r"\hat\pi_k", r"\mathcal{L}", r"\sum_i w_i")


def _without_rules() -> MarkdownIt:
    """kbtool's configuration as it was before these rules (a fresh parser)."""
    markdown_parser.cache_clear()
    md = markdown_parser()
    markdown_parser.cache_clear()
    md.disable(["math_block_backslash", "www_links"])
    md.inline.ruler.at("escape", escape)
    md.inline.ruler.at("math_inline", math_inline_dollar(True, True, True))
    return md


def _dense_page(rng: random.Random) -> str:
    """A page where every sentence has formulas in all four notations, prices and URLs."""
    lines = ["# 密集公式", ""]
    for _ in range(40):
        a, b = rng.choice(SYMBOLS), rng.choice(SYMBOLS)
        lines.append(
            f"设 \\({a}\\) 与 ${b}$，**可实现的 \\({b}\\)** 约 $3.00/MTok，见 www.example.org。"
        )
        lines += [
            "\\[",
            f"{a} = {b}",
            "\\]",
            "",
            f"| 项 | \\({a}\\) |",
            "|---|---|",
            "| x | y |",
            "",
        ]
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
    sets["dense formulas"] = [_dense_page(rng) for _ in range(args.n // 4 or 1)]
    return sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=600, help="synthetic pages")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--pages", type=Path, default=REFERENCE)
    args = parser.parse_args()
    with_rules, without = markdown_parser(), _without_rules()
    with tempfile.TemporaryDirectory() as scratch:
        sets = _texts(args, Path(scratch))
    print(f"{'pages':<16}{'n':>6}{'without s':>12}{'with s':>10}{'ratio':>8}")
    total_with = total_without = 0.0
    for name, texts in sets.items():
        ours, plain = paired_seconds(with_rules, without, texts, args.repeat)
        if name != "dense formulas":  # the target is for wikis; the dense pages are a probe
            total_with, total_without = total_with + ours, total_without + plain
        print(f"{name:<16}{len(texts):>6}{plain:>12.3f}{ours:>10.3f}{ours / plain:>8.3f}")
    ratio = total_with / total_without
    verdict = "ok" if ratio <= TARGET else f"over the {TARGET - 1:.0%} target"
    print(f"{'wikis':<16}{'':>6}{total_without:>12.3f}{total_with:>10.3f}{ratio:>8.3f}  {verdict}")


if __name__ == "__main__":
    main()
