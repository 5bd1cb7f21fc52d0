"""Benchmark `kbtool check` against the floor markdown-it-py sets, on a synthetic wiki.

For each N (default 7,000) it generates a deterministic wiki (benchmarks/synth.py), shows that
its pages parse at the rate of real ones (benchmarks/calibrate.py, given --reference DIR or
$KBTOOL_REFERENCE_PAGES), then prints, from one run, with kbtool run as whole processes:

  parse floor  markdown-it-py alone parsing every page in this process, with kbtool's parser
               configuration, files already read
  cold         `kbtool check` with the default jobs and nothing remembered (.kbtool/ removed)
  repeat       `kbtool check` again with nothing changed
  one edit     `kbtool check` after a sentence was added to one page (median of 3)

Targets (2 cores): cold <= 0.6x the parse floor; one edit <= 5% of cold and <= 1 s at 7,000
pages. Also the peak memory of the largest process, the diagnostics compared with the cold
check's, and kbtool's own `--timings` when `check` has that option. Every step is stopped at
--step-timeout seconds.

    python benchmarks/bench_check.py [-n 7000 -n 20000] [--quick] [--reference DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from calibrate import Pages, markdown_files, parse_seconds, print_calibration  # noqa: E402
from harness import (  # noqa: E402
    Row,
    Run,
    Workspace,
    header,
    load_average,
    median,
    run_kbtool,
    share,
    supports,
    table,
    timings_text,
    within,
)

PYPROJECT = '[tool.kbtool]\nexecute = "opt-in"\n'
SCALE = 7000  # the scale of the one-second targets


def _diagnostics(run: Run) -> list[object] | None:
    try:
        return list(json.loads(run.stdout)["diagnostics"])
    except (ValueError, KeyError, TypeError):
        return None


def bench(n: int, args: argparse.Namespace) -> None:
    limit = args.step_timeout
    repeats = 1 if args.quick else 3
    timings = ["--timings"] if supports("check", "--timings") else []
    with tempfile.TemporaryDirectory(prefix=f"kbtool-bench-check-{n}-") as tmp:
        ws = Workspace.create(Path(tmp), n, PYPROJECT)
        print("\n".join(header("kbtool check benchmark", n, ws)), flush=True)
        print_calibration(markdown_files(ws.root), args.reference, args.quick)
        floor = parse_seconds(Pages.read(markdown_files(ws.root)))
        print(f"parse floor measured: {floor:.2f} s", flush=True)

        check = ("check", "--format", "json", *timings)
        ws.forget()
        cold = run_kbtool(ws.root, *check, timeout=limit)
        print(f"cold check: {cold.seconds:.2f} s", flush=True)
        repeat = run_kbtool(ws.root, *check, timeout=limit)
        edits: list[Run] = []
        for _ in range(repeats):
            ws.edit()
            edits.append(run_kbtool(ws.root, *check, timeout=limit))
        edit = median([r.seconds for r in edits])
        found = (_diagnostics(cold), _diagnostics(edits[-1]))

    rows = [
        Row("markdown-it-py parse floor", floor),
        Row(
            "cold check (default jobs)",
            cold.seconds,
            share(cold.seconds, floor, "{:.2f}x floor"),
            "<= 0.6x floor",
            within(cold.seconds, floor, 0.6),
        ),
        Row(
            "repeat check, nothing changed",
            repeat.seconds,
            share(repeat.seconds, cold.seconds, "{:.1%} of cold"),
        ),
        Row(
            f"check after a one-page edit (median of {repeats})",
            edit,
            share(edit, cold.seconds, "{:.1%} of cold"),
            "<= 5% of cold" + (", <= 1 s" if n >= SCALE else ""),
            within(edit, cold.seconds, 0.05) and (n < SCALE or edit <= 1.0),
        ),
        Row(
            "peak RSS, largest process (cold)",
            None,
            f"{cold.peak_rss_mb:.0f} MB",
        ),
    ]
    print(f"\nN = {n:,}: figures from this one run")
    print(table(rows, limit))
    if None in found:
        print("  diagnostics after the edits not compared with the cold check's (a run stopped)")
    else:
        verdict = "identical to" if found[0] == found[1] else "DIFFER from"
        print(f"  diagnostics after the edits {verdict} the cold check's")
    print(f"  load average at the end: {load_average()}")
    if timings:
        print("  kbtool check --timings, cold:\n" + timings_text(cold))
        print("  kbtool check --timings, after the last edit:\n" + timings_text(edits[-1]))
    else:
        print("  (kbtool check has no --timings option: stages not shown)")
    print(flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", type=int, action="append", help="pages (repeatable; default 7000)")
    parser.add_argument("--quick", action="store_true", help="300 pages, one run of each step")
    parser.add_argument("--reference", type=Path, help="folder of real pages to calibrate against")
    parser.add_argument(
        "--step-timeout", type=float, default=600.0, help="seconds a step may take (default 600)"
    )
    args = parser.parse_args()
    for n in args.n or [300 if args.quick else SCALE]:
        bench(n, args)


if __name__ == "__main__":
    main()
