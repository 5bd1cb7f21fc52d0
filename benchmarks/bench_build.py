"""Benchmark `kbtool build` and `kbtool serve` against markdown-it-py's floor, on a synthetic wiki.

For each N (default 7,000) it generates a deterministic wiki (benchmarks/synth.py), shows that
its pages parse and render at the rate of real ones (benchmarks/calibrate.py, given
--reference DIR or $KBTOOL_REFERENCE_PAGES), then prints, from one run, with kbtool run as
whole processes (cells are opt-in and no page opts in, as in a wiki whose python blocks are
illustrations; --no-search leaves the search index out with `search = false`):

  floor      markdown-it-py alone parsing and rendering every page in this process (kbtool's
             parser configuration, markdown-it-py's HTML renderer), files already read
  cold       `kbtool build` with nothing remembered (.kbtool/ and site/ removed)
  no change  `kbtool build` again with nothing changed
  one edit   `kbtool build` after a sentence was added to one page (median of 3)
  serve      `kbtool serve`: from saving a page to the served page showing the edit (median
             of 3), polling the server every 20 ms
  mkdocs     with --mkdocs, `mkdocs build` of the same pages as a peer figure

Targets (2 cores): with --no-search, cold <= 1.0x the floor and one edit <= 5% of cold;
serve <= 1 s at 7,000 pages; peak memory of the cold build's largest process <= 1 GB at
7,000 pages, growing no faster than the pages. kbtool's own `--timings` is printed when `build` has that option.
Every step is stopped at --step-timeout seconds.

    python benchmarks/bench_build.py --no-search [-n 7000 -n 20000] [--quick] [--reference DIR]
                                     [--mkdocs]
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from calibrate import Pages, markdown_files, print_calibration, render_seconds  # noqa: E402
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
from serve_probe import STORM, SWITCHED, measure_serve  # noqa: E402
from synth import VOCABULARIES  # noqa: E402

# The synthetic wiki has broken links on purpose (for the check benchmark); here they must not
# stop the build, so links are warnings and graph findings are off.
PYPROJECT = """[tool.kbtool]
site-title = "Synthetic"
execute = "opt-in"
severity = { KB2 = "warning", KB3 = "off" }
"""
_SUMMARY = re.compile(r"^(published |not published|\S+/ is up to date)")
SCALE = 7000  # the scale of the one-second and one-gigabyte targets
#: --growth: the sizes the wiki is measured at, and the bound on each figure per doubling
GROWTH_SIZES = (2000, 7000, 20000, 50000)
GROWTH_BOUNDS = {"cold build": 2.1, "edit build": 1.2, "save to served": 1.2}


@dataclass(frozen=True)
class Figures:
    """One size's figures: seconds (median where repeated) and the cold build's peak MB."""

    cold: float
    edit: float
    served: float
    peak_mb: float

    def by_name(self) -> dict[str, float]:
        return {"cold build": self.cold, "edit build": self.edit, "save to served": self.served}


def per_doubling(n0: int, x0: float, n1: int, x1: float) -> float:
    """How much ``x`` grows each time the wiki doubles, from two sizes' figures."""
    return float((x1 / x0) ** (1 / math.log2(n1 / n0)))


def print_growth(sizes: list[tuple[int, Figures]]) -> None:
    print("growth per doubling of the wiki (from consecutive sizes of this run):")
    for (n0, f0), (n1, f1) in zip(sizes, sizes[1:], strict=False):
        parts = []
        for name, x1 in f1.by_name().items():
            x0, bound = f0.by_name()[name], GROWTH_BOUNDS[name]
            if x0 > 0 and math.isfinite(x0) and math.isfinite(x1):
                ratio = per_doubling(n0, x0, n1, x1)
                parts.append(
                    f"{name} {ratio:.2f}x ({'ok' if ratio <= bound else 'MISSED'} <= {bound}x)"
                )
            else:
                parts.append(f"{name} not measured")
        print(f"  {n0:,} -> {n1:,}: " + "; ".join(parts))


def mkdocs_build(ws: Workspace, limit: float) -> float | None:
    if importlib.util.find_spec("mkdocs") is None:
        return None
    docs = ws.root / "mkdocs-docs"
    shutil.copytree(ws.root / "wiki", docs / "wiki")
    shutil.copytree(ws.root / "sources", docs / "sources")
    (ws.root / "mkdocs.yml").write_text(
        "site_name: Synthetic\ndocs_dir: mkdocs-docs\nsite_dir: mkdocs-site\n"
        "markdown_extensions: [tables]\n",
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(ws.root / "mkdocs.yml")]
    started = time.perf_counter()
    try:
        subprocess.run(command, check=False, capture_output=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return float("inf")
    return time.perf_counter() - started


def bench_serve(n: int, args: argparse.Namespace) -> Figures:
    """Only serve's figure for ``n`` pages (after a cold build), with the cold build's."""
    limit = args.step_timeout
    repeats = 1 if args.quick else args.edits
    with tempfile.TemporaryDirectory(prefix=f"kbtool-bench-serve-{n}-") as tmp:
        ws = Workspace.create(
            Path(tmp), n, PYPROJECT + ("search = false\n" * args.no_search), args.vocabulary
        )
        print("\n".join(header("kbtool serve benchmark", n, ws)), flush=True)
        ws.forget()
        cold = run_kbtool(ws.root, "build", timeout=limit, ok=(0,))
        print(f"cold build: {cold.seconds:.2f} s", flush=True)
        serve = measure_serve(ws, repeats, limit, arrivals=args.arrivals)
    saved = median(serve.edits) if serve.edits else float("inf")
    print(f"\nN = {n:,}: serve, save to edit served ({len(serve.edits)}x): median {saved:.2f} s")
    print("  each: " + ", ".join(f"{s:.2f}" for s in serve.edits))
    if serve.storm is not None and serve.switch is not None:
        print(
            f"  save storm ({STORM} saves of a page in 5 s): the last served {serve.storm:.2f} s after it"
        )
        print(
            f"  branch switch ({SWITCHED:,} pages rewritten at once): served after "
            f"{serve.switch:.2f} s, {serve.switch / cold.seconds:.2f}x the cold build"
        )
    print(f"  serve answered {serve.start_seconds:.2f} s after it started (its first build)")
    print(f"  peak RSS {serve.run.peak_rss_mb:.0f} MB; load average at the end: {load_average()}")
    print(flush=True)
    return Figures(cold.seconds, float("nan"), saved, serve.run.peak_rss_mb)


def bench(n: int, args: argparse.Namespace) -> Figures:
    """Print the figures for ``n`` pages, and return them."""
    if args.serve_only:
        return bench_serve(n, args)
    limit = args.step_timeout
    repeats = 1 if args.quick else 3
    timings = ["--timings"] if supports("build", "--timings") else []
    with tempfile.TemporaryDirectory(prefix=f"kbtool-bench-build-{n}-") as tmp:
        ws = Workspace.create(
            Path(tmp), n, PYPROJECT + ("search = false\n" * args.no_search), args.vocabulary
        )
        print("\n".join(header("kbtool build and serve benchmark", n, ws)), flush=True)
        print_calibration(markdown_files(ws.root), args.reference, args.quick)
        floor = render_seconds(Pages.read(markdown_files(ws.root)))
        print(f"parse + render floor measured: {floor:.2f} s", flush=True)

        build = ("build", *timings)
        ws.forget()
        cold = run_kbtool(ws.root, *build, timeout=limit, ok=(0,))
        print(f"cold build: {cold.seconds:.2f} s", flush=True)
        same = run_kbtool(ws.root, *build, timeout=limit, ok=(0,))
        edits: list[Run] = []
        for _ in range(repeats):
            ws.edit()
            edits.append(run_kbtool(ws.root, *build, timeout=limit, ok=(0,)))
        edit = median([r.seconds for r in edits])
        print(f"build after an edit: {edit:.2f} s", flush=True)
        serve = measure_serve(ws, repeats, limit)
        saved = median(serve.edits) if serve.edits else float("inf")
        peer = mkdocs_build(ws, limit) if args.mkdocs else None

    rss = cold.peak_rss_mb
    search = "search left out" if args.no_search else "search included"
    bound = args.no_search  # the build targets are for builds without the search index
    rows = [
        Row("markdown-it-py parse + render floor", floor),
        Row(
            f"cold build, {search}",
            cold.seconds,
            share(cold.seconds, floor, "{:.2f}x floor"),
            "<= 1.0x floor" if bound else "(with --no-search)",
            within(cold.seconds, floor, 1.0) if bound else None,
            note=_summary(cold),
        ),
        Row(
            "rebuild, nothing changed",
            same.seconds,
            share(same.seconds, cold.seconds, "{:.1%} of cold"),
            note=_summary(same),
        ),
        Row(
            f"rebuild after a one-page edit ({repeats}x)",
            edit,
            share(edit, cold.seconds, "{:.1%} of cold"),
            "<= 5% of cold" if bound else "(with --no-search)",
            within(edit, cold.seconds, 0.05) if bound else None,
            note=_summary(edits[-1]),
        ),
        Row(
            f"serve: save to edit served ({len(serve.edits)}x)",
            saved,
            "each: " + ", ".join(f"{s:.2f}" for s in serve.edits),
            "<= 1 s" if n >= SCALE else "",
            saved <= 1.0 if n >= SCALE else None,
            note=f"serve answered {serve.start_seconds:.2f} s after it started (its first build); "
            f"peak RSS {serve.run.peak_rss_mb:.0f} MB",
        ),
        Row(
            "peak RSS, largest process (cold build)",
            None,
            f"{rss:.0f} MB",
            "<= 1 GB" if n >= SCALE else "",
            rss <= 1024 if n >= SCALE else None,
        ),
    ]
    if peer is not None:
        rows.append(
            Row("mkdocs build (peer)", peer, share(peer, cold.seconds, "{:.2f}x our cold build"))
        )
    elif args.mkdocs:
        rows.append(Row("mkdocs build (peer)", None, "mkdocs not installed"))
    print(f"\nN = {n:,}: figures from this one run")
    print(table(rows, limit))
    print(f"  load average at the end: {load_average()}")
    if timings:
        print("  kbtool build --timings, cold:\n" + timings_text(cold))
        print("  kbtool build --timings, after the last edit:\n" + timings_text(edits[-1]))
    else:
        print("  (kbtool build has no --timings option: stages not shown)")
    print(flush=True)
    return Figures(cold.seconds, edit, saved, rss)


def _summary(run: Run) -> str:
    """kbtool build's summary line ("published site/: ..."), for what it rendered and reused."""
    found = [line for line in run.stdout.splitlines() if _SUMMARY.search(line)]
    return found[-1] if found else ""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", type=int, action="append", help="pages (repeatable; default 7000)")
    parser.add_argument("--quick", action="store_true", help="300 pages, one run of each step")
    parser.add_argument("--reference", type=Path, help="folder of real pages to calibrate against")
    parser.add_argument(
        "--no-search",
        action="store_true",
        help="build without the search index (search = false), as the build targets assume",
    )
    parser.add_argument("--mkdocs", action="store_true", help="add the mkdocs build peer figure")
    parser.add_argument(
        "--vocabulary", choices=VOCABULARIES, default="real", help="synth.py's words"
    )
    parser.add_argument(
        "--serve-only", action="store_true", help="only serve's figure (after a cold build)"
    )
    parser.add_argument(
        "--edits", type=int, default=3, help="edits served with --serve-only (default 3)"
    )
    parser.add_argument(
        "--arrivals",
        action="store_true",
        help="with --serve-only: also a save storm and a branch switch while serve runs",
    )
    parser.add_argument(
        "--step-timeout", type=float, default=600.0, help="seconds a step may take (default 600)"
    )
    parser.add_argument(
        "--growth",
        action="store_true",
        help=f"measure at {', '.join(map(str, GROWTH_SIZES))} pages (unless -n is given) and "
        "print each figure's growth per doubling of the wiki",
    )
    args = parser.parse_args()
    default = list(GROWTH_SIZES) if args.growth else [300 if args.quick else SCALE]
    sizes = sorted(args.n or default)
    measured = [(n, bench(n, args)) for n in sizes]
    if len(measured) > 1:
        print_growth(measured)
        (n0, f0), (n1, f1) = measured[0], measured[-1]
        m0, m1 = f0.peak_mb, f1.peak_mb
        print(
            f"peak RSS grew {m1 / m0:.2f}x for {n1 / n0:.2f}x the pages "
            f"({'no faster' if m1 / m0 <= n1 / n0 else 'FASTER'} than the pages)"
        )


if __name__ == "__main__":
    main()
