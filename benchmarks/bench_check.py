"""Benchmark `kbtool check` against the floor markdown-it-py sets, on synthetic wikis.

For each N (default 1,000 and 10,000) it generates a deterministic wiki (benchmarks/synth.py),
then prints, from one run:
  floor    markdown-it-py parsing every page in this process (same parser configuration
           as kbtool: CommonMark + tables + strikethrough + dollarmath), files already read
  cold -j1 `kbtool check -j 1` as a whole process with no cache
  cold     `kbtool check` with the default jobs (the machine's cores), no cache
  repeat   `kbtool check` again with nothing changed (median of 3)
  edit     `kbtool check` after one page was edited (median of 3)
and each as a ratio to the floor (repeat and edit also to cold), with peak memory.
Targets: cold -j1 <= 1.3x floor; cold <= 0.8x floor on 2 cores; repeat <= 10% of cold;
peak memory under 1.5 GB at N = 10,000.

    python benchmarks/bench_check.py [-n 1000 -n 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import synth  # noqa: E402

from kbtool.parse.markdown import markdown_parser  # noqa: E402

# Runs kbtool in-process and reports its own peak RSS and that of its largest worker (KiB).
_RUNNER = """
import resource, sys
from kbtool.cli import main
code = main(sys.argv[1:])
me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("RSS", me, kids, file=sys.stderr)
sys.exit(code)
"""


def parse_floor(root: Path) -> float:
    texts = [p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.md"))]
    md = markdown_parser()
    started = time.perf_counter()
    for text in texts:
        md.parse(text)
    return time.perf_counter() - started


def run_check(root: Path, *args: str) -> tuple[float, int, int]:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _RUNNER, "-C", str(root), "check", "--format", "json", *args],
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"kbtool check failed:\n{proc.stderr}")
    rss = next(line for line in proc.stderr.splitlines() if line.startswith("RSS")).split()
    return elapsed, int(rss[1]), int(rss[2])


def bench(n: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix=f"kbtool-bench-{n}-") as tmp:
        root = Path(tmp)
        synth.generate(root, n)
        (root / "pyproject.toml").write_text("[tool.kbtool]\n", encoding="utf-8")
        floor = parse_floor(root)
        cold_1, _, _ = run_check(root, "--no-cache", "-j", "1")
        shutil.rmtree(root / ".kbtool")
        cold, rss_main, rss_worker = run_check(root)
        repeat = statistics.median(run_check(root)[0] for _ in range(3))
        edited = sorted((root / "wiki").rglob("*.md"))[n // 3]
        edits = []
        for i in range(3):
            with edited.open("a", encoding="utf-8") as f:
                f.write(f"\n补充说明 {i}。\n")
            edits.append(run_check(root)[0])
        edit = statistics.median(edits)
    return {
        "pages": n,
        "floor_s": floor,
        "cold_j1_s": cold_1,
        "cold_s": cold,
        "repeat_s": repeat,
        "edit_s": edit,
        "cold_j1_vs_floor": cold_1 / floor,
        "cold_vs_floor": cold / floor,
        "repeat_vs_cold": repeat / cold,
        "edit_vs_cold": edit / cold,
        "peak_rss_main_mb": rss_main / 1024,
        "peak_rss_worker_mb": rss_worker / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", type=int, action="append", help="pages (repeatable)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    results = [bench(n) for n in args.n or [1000, 10000]]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"cores: {len(os.sched_getaffinity(0))}")
    for r in results:
        print(f"\nN = {r['pages']:,} pages")
        print(f"  markdown-it-py parse floor   {r['floor_s']:8.2f} s")
        print(
            f"  cold check, -j 1             {r['cold_j1_s']:8.2f} s   {r['cold_j1_vs_floor']:.2f}x floor (target <= 1.3)"
        )
        print(
            f"  cold check, default jobs     {r['cold_s']:8.2f} s   {r['cold_vs_floor']:.2f}x floor (target <= 0.8)"
        )
        print(
            f"  repeat check, no change      {r['repeat_s']:8.2f} s   {r['repeat_vs_cold']:.1%} of cold (target <= 10%)"
        )
        print(
            f"  check after one-page edit    {r['edit_s']:8.2f} s   {r['edit_vs_cold']:.1%} of cold"
        )
        print(
            f"  peak RSS: main {r['peak_rss_main_mb']:.0f} MB, largest worker {r['peak_rss_worker_mb']:.0f} MB"
        )


if __name__ == "__main__":
    main()
