"""Benchmark the reading aids on a synthetic wiki (benchmarks/synth.py), built into a temporary
folder, in headless Chromium (Debian's, driven by Playwright: the test extras), from one run:

  preview data    gzip bytes of each page's preview file (site/previews/), median, p95, max
  preview         from pointing at a link to its card on screen, beyond the hover delay
                  (--links links on a few pages, each to a page not yet previewed), median and
                  max; on a phone, from a tap on the marker beside a link (no delay there)
  first draw      graph.html: from the navigation's start to the graph's first full drawing
                  (graph.js's data-first-draw-ms), median of 3 loads, each with an empty cache
  a filter        from a control of the graph's filters set to its drawing (type, top N,
                  community, folder, tag, updated within N days, depth, each applied and
                  cleared), median and max
  pan and zoom    frame intervals while the graph is zoomed, then dragged, an event a frame
                  for --seconds in all, median and p95
  page weight     a page's HTML and the scripts it loads, gzip, Mermaid left out
                  (benchmarks/bench_page_weight.py), median over the wiki and source pages,
                  against the same wiki built by the code before the reading aids (--before)

Previews and the first draw are measured from file:// and over HTTP (python's http.server in
a thread); filters and frames run the same code either way and are measured over HTTP.
benchmarks/reading_probe.py says how each browser figure is taken.

Targets (7,000 pages, 2 cores): a preview <= 50 ms beyond its delay and <= 4 KB gzip of data a
page; the first draw <= 1.5 s; a median frame <= 33 ms; a filter <= 200 ms; a page's weight
<= 1.10x before the reading aids. A missed target is printed, not an error: the exit code is
non-zero only when something could not be measured.

    python benchmarks/bench_reading.py [-n 7000] [--quick] [--before REF|none] [--links 20]
                                       [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_page_weight import PREVIEW_LIMIT, page_weights, preview_sizes, summary  # noqa: E402
from harness import Workspace, header, load_average, run_kbtool  # noqa: E402
from reading_probe import Figures, measure, median, percentile, shown  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
# The synthetic wiki has broken links on purpose (for the check benchmark); here they must not
# stop the build, so links are warnings and graph findings are off (as in bench_build.py).
PYPROJECT = """[tool.kbtool]
site-title = "Synthetic"
execute = "opt-in"
severity = { KB2 = "warning", KB3 = "off" }
"""
#: main just before the reading aids were merged (the first parent of the merge of
#: reader-graph, 694eac6, which came before reader-ui, graph filters and the theme switch)
BEFORE = "aed4044"
WEIGHT = "median HTML+scripts (B gzip)"


@dataclass(frozen=True)
class Row:
    """One line of the table: what, the figure, its target, whether it is met."""

    what: str
    figure: str
    target: str = ""
    met: bool | None = None


def table(rows: list[Row]) -> str:
    lines = [f"  {'':<46}{'figure':<64}{'target':<17}met"]
    for row in rows:
        met = {True: "yes", False: "NO", None: ""}[row.met]
        lines.append(f"  {row.what:<46}{row.figure:<64}{row.target:<17}{met}")
    return "\n".join(lines)


def within(value: float, most: float) -> bool | None:
    return None if value != value else value <= most  # NaN: not measured


def build_before(ref: str, root: Path, limit: float) -> float:
    """Build ``root`` with kbtool as it was at ``ref`` (its package from ``git archive``, run
    with this interpreter); the site is moved to ``root/../site-before``. Its seconds."""
    code = root.parent / "before-code"
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", ref, "kbtool"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(code, filter="data")
    vendor = REPO / "kbtool" / "render" / "vendor"  # Mermaid, git-ignored: left out of weights
    if vendor.is_dir():
        shutil.copytree(vendor, code / "kbtool" / "render" / "vendor", dirs_exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(code)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "kbtool", "-C", str(root), "build"],
        env=env,
        cwd=root,  # not this repository: python -m puts the current folder first on the path
        capture_output=True,
        text=True,
        timeout=limit,
    )
    if done.returncode != 0:
        raise SystemExit(f"kbtool at {ref} could not build the wiki:\n{done.stderr[-2000:]}")
    seconds = time.perf_counter() - started
    shutil.move(root / "site", root.parent / "site-before")
    shutil.rmtree(root / ".kbtool", ignore_errors=True)
    return seconds


def reading_pages(site: Path, count: int) -> list[str]:
    """``count`` wiki pages spread over the wiki, in folder order: where the links are hovered."""
    pages = sorted(p.relative_to(site).as_posix() for p in (site / "wiki").rglob("*.html"))
    step = max(1, len(pages) // count)
    return pages[step // 2 :: step][:count]


def data_rows(site: Path, before: Path | None) -> list[Row]:
    sizes = preview_sizes(site)
    over = sum(1 for s in sizes if s > PREVIEW_LIMIT)
    rows = [
        Row(
            f"preview data a page ({len(sizes):,} files)",
            f"median {statistics.median(sizes) / 1024:.2f}, p95 "
            f"{percentile([float(s) for s in sizes], 0.95) / 1024:.2f}, max "
            f"{max(sizes) / 1024:.2f} KB gzip; {over} over",
            "<= 4 KB gzip",
            max(sizes) <= PREVIEW_LIMIT,
        )
    ]
    now = summary(page_weights(site))
    if before is None:
        rows.append(Row("a page's HTML + scripts, median", f"{now[WEIGHT] / 1024:.1f} KB gzip"))
        return rows
    then = summary(page_weights(before))
    ratio = now[WEIGHT] / then[WEIGHT]
    rows.append(
        Row(
            "a page's HTML + scripts, median",
            f"{now[WEIGHT] / 1024:.1f} KB gzip, before {then[WEIGHT] / 1024:.1f}: {ratio:.2f}x",
            "<= 1.10x before",
            ratio <= 1.10,
        )
    )
    for name in ("median HTML (B gzip)", "scripts of a page (B gzip)"):
        what = "  of which " + name.split(" (")[0].replace("median ", "").replace(" of a page", "")
        rows.append(Row(what, f"{now[name] / 1024:.1f} KB, before {then[name] / 1024:.1f}"))
    return rows


def _latency(way: str, what: str, values: list[float]) -> Row:
    got = shown(values)
    slow = sum(1 for v in values if v > 50)
    figure = f"median {median(got):.0f} ms, max {max(got, default=float('nan')):.0f} ms"
    figure += f"; {slow} over 50 ms"
    if len(got) < len(values):
        figure += f" ({len(values) - len(got)} not shown in 5 s)"
    return Row(
        f"{way}: {what} ({len(values)} links)",
        figure,
        "median <= 50 ms",
        within(median(values), 50),
    )


def browser_rows(way: str, figures: Figures) -> list[Row]:
    drawn = [d for d, _ in figures.first_draw]
    frames = [f for _, f in figures.first_draw]
    own = [v for v in figures.own_late if v == v]
    rows = [
        _latency(way, "preview beyond the delay", figures.late),
        Row(
            f"{way}:   preview.js's own data-late-ms",
            f"median {median(own):.0f} ms, max {max(own, default=float('nan')):.0f} ms",
        ),
        _latency(way, "phone, tap on the marker", figures.phone),
        Row(
            f"{way}: graph, first full draw (3 loads)",
            f"median {median(frames) / 1000:.2f} s ({', '.join(f'{d / 1000:.2f}' for d in frames)})",
            "<= 1.5 s",
            within(median(frames), 1500),
        ),
        Row(f"{way}:   graph.js's drawing calls done", f"median {median(drawn) / 1000:.2f} s"),
    ]
    if figures.filters:
        times = [ms for _, ms, _, _ in figures.filters]
        slowest = max(figures.filters, key=lambda f: f[1])
        rows.append(
            Row(
                f"{way}: a filter applied ({len(times)})",
                f"median {median(times):.0f} ms, max {slowest[1]:.0f} ms ({slowest[0]})",
                "<= 200 ms",
                within(max(times), 200),
            )
        )
    if figures.frames:
        for name, frames in (("zoom", figures.frames.zoom), ("pan", figures.frames.pan)):
            rows.append(
                Row(
                    f"{way}: {name}, frame ({len(frames)} frames)",
                    f"median {median(frames):.1f} ms, p95 {percentile(frames, 0.95):.1f} ms",
                    "median <= 33 ms",
                    within(median(frames), 33),
                )
            )
        paints = figures.frames.paints
        rows.append(
            Row(
                f"{way}: graph.js's drawing, each frame",
                f"median {median(paints):.1f} ms, p95 {percentile(paints, 0.95):.1f} ms",
            )
        )
    return rows


def prepare(folder: Path, n: int, args: argparse.Namespace) -> tuple[Path, Path | None]:
    """The site built from ``n`` synthetic pages in ``folder``, and the site the code before
    the reading aids built (None with --before none); a folder built before is reused."""
    root, before = folder / "wiki", folder / "site-before"
    wanted = None if args.before == "none" else before
    if (root / "site").is_dir() and (wanted is None or wanted.is_dir()):
        pages = sum(1 for _ in (root / "site" / "previews").rglob("*.js"))
        print(f"kbtool reading aids benchmark\ncommand: {shlex.join(['python', *sys.argv])}")
        print(
            f"reusing the site built in {folder} ({pages:,} pages); load average {load_average()}"
        )
        return root / "site", wanted
    ws = Workspace.create(root, n, PYPROJECT)
    print("\n".join(header("kbtool reading aids benchmark", n, ws)), flush=True)
    if wanted is not None:
        took = build_before(args.before, root, args.step_timeout)
        print(f"built with kbtool at {args.before} (the weights' base): {took:.1f} s", flush=True)
    build = run_kbtool(root, "build", timeout=args.step_timeout, ok=(0,))
    if build.timed_out:
        raise SystemExit(f"kbtool build took more than {args.step_timeout:.0f} s")
    print(f"built: {build.seconds:.1f} s", flush=True)
    return root / "site", wanted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", type=int, help="pages (default 7000; 300 with --quick)")
    parser.add_argument("--quick", action="store_true", help="300 pages, fewer links and frames")
    parser.add_argument(
        "--before",
        default=BEFORE,
        help=f"the git revision whose kbtool builds the page weights' base (default {BEFORE}, "
        "before the reading aids); 'none' to leave it out",
    )
    parser.add_argument("--links", type=int, help="links hovered each way (default 20)")
    parser.add_argument(
        "--seconds", type=float, help="of zoom and drag together (default 2; 1 with --quick)"
    )
    parser.add_argument(
        "--way", choices=("file", "http"), action="append", help="file:// and/or HTTP (both)"
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="build in DIR and keep it there; a DIR built before is measured again, not rebuilt",
    )
    parser.add_argument(
        "--step-timeout", type=float, default=900.0, help="seconds a build may take (900)"
    )
    args = parser.parse_args(argv)
    n = args.n or (300 if args.quick else 7000)
    links = args.links or (8 if args.quick else 20)
    seconds = args.seconds or (1.0 if args.quick else 2.0)
    ways = tuple(args.way or ("file", "http"))
    with contextlib.ExitStack() as stack:
        folder = args.keep or Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix=f"kbtool-bench-reading-{n}-"))
        )
        site, before = prepare(folder, n, args)
        rows = data_rows(site, before)
        started = time.perf_counter()
        figures = measure(site, reading_pages(site, 4), links, seconds, ways)
        print(f"measured in Chromium: {time.perf_counter() - started:.0f} s", flush=True)
    for way, found in figures.items():
        rows += browser_rows("file://" if way == "file" else "HTTP", found)
    print(f"\nN = {n:,}: figures from this one run")
    print(table(rows))
    print(f"  load average at the end: {load_average()}")
    for way, found in figures.items():
        if found.filters:
            print(
                f"  filters ({way}): ms to the next frame, to graph.js's drawing done; pages shown"
            )
            for what, ms, drawn, shown in found.filters:
                print(f"      {what:<44}{ms:7.0f} ms  (drawn {drawn:4.0f})  {shown:>6,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
