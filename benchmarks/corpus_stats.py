"""The statistics that tell a wiki's vocabulary and shape, for any folder of Markdown pages.

Counted over every ``*.md`` file under DIR, the way the search index sees text: runs of Han
characters split into overlapping bigrams, Latin words (a letter, then letters, digits, ``_``
or ``-``) lower-cased, file sizes in KB (1,000 bytes), and Markdown links (``](``) per page.
Beside each figure it prints the real wiki's (7,091 files of a Chinese robotics and deep
learning wiki, measured the same way) and whether DIR's is within a quarter of it; a
synthetic wiki (``benchmarks/synth.py``) is compared at about the real wiki's page count.

    python benchmarks/corpus_stats.py DIR [--json]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_HAN_RUN = re.compile(f"[{HAN}]{{2,}}")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_LINK = re.compile(r"\]\(")
# The real wiki's figures (7,091 files), and how far a comparable corpus may be from them.
REAL = {
    "pages": 7091,
    "distinct CJK bigrams": 195_940,
    "distinct Latin words": 46_710,
    "median page KB": 3.8,
    "p95 page KB": 11.5,
    "largest page KB": 164.0,
    "links per page": 12.1,
}
WITHIN = 0.25


def corpus_stats(root: Path) -> dict[str, float]:
    """The figures of :data:`REAL` for the pages under ``root``."""
    bigrams: set[str] = set()
    words: set[str] = set()
    sizes: list[int] = []
    links = 0
    for path in sorted(root.rglob("*.md")):
        data = path.read_bytes()
        sizes.append(len(data))
        text = data.decode("utf-8", errors="replace")
        for run in _HAN_RUN.findall(text):
            bigrams.update(run[i : i + 2] for i in range(len(run) - 1))
        words.update(word.lower() for word in _LATIN_WORD.findall(text))
        links += len(_LINK.findall(text))
    sizes.sort()
    n = len(sizes)
    return {
        "pages": n,
        "distinct CJK bigrams": len(bigrams),
        "distinct Latin words": len(words),
        "median page KB": sizes[n // 2] / 1000 if n else 0.0,
        "p95 page KB": sizes[min(n - 1, int(n * 0.95))] / 1000 if n else 0.0,
        "largest page KB": sizes[-1] / 1000 if n else 0.0,
        "links per page": links / n if n else 0.0,
    }


def within(value: float, real: float, share: float = WITHIN) -> bool:
    return abs(value - real) <= share * real


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("root", type=Path, metavar="DIR")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    if not args.root.is_dir():
        parser.error(f"{args.root}: not a folder")
    stats = corpus_stats(args.root)
    if args.json:
        print(json.dumps(stats, indent=2))
        return
    print(f"{'':<22}{str(args.root)[-20:]:>20}{'real wiki':>12}  within {WITHIN:.0%}")
    for key, value in stats.items():
        real = REAL[key]
        mark = "" if key == "pages" else ("yes" if within(value, real) else "NO")
        shown = f"{value:,.0f}" if value >= 100 else f"{value:.2f}"
        print(f"{key:<22}{shown:>20}{real:>12,}  {mark}")


if __name__ == "__main__":
    main()
