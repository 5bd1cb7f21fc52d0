"""The search stage of `kbtool serve`'s rebuild after each one-page edit, and where it goes.

`bench_build.py --serve-only` times a save until the page is served, every stage together;
this times the search stage alone, in one process holding a session as `kbtool serve` does
(:class:`kbtool.session.Session`, the read-ahead of `keep_warm`, the spare site), so that its
growth with the wiki shows. For each of --edits edits it appends a sentence to a different
wiki page, rescans that path as the watcher would, rebuilds, and prints the build's search
seconds (its `--timings` lap) and what the index update wrote and kept; then the median.
--profile prints cProfile's top functions of the rebuilds, the search modules' first.

    python benchmarks/bench_serve_search.py [-n 7000] [--edits 7] [--root DIR] [--profile]

With --root the wiki in DIR is used (built there first if it has no site), else one of -n
pages is generated (benchmarks/synth.py, real vocabulary) and built cold, outside the count.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import tempfile
from pathlib import Path

from bench_build import PYPROJECT
from harness import Workspace

from kbtool.config import load_config
from kbtool.session import Session
from kbtool.stages.pipeline import keep_warm
from kbtool.stages.reused import PAGES
from kbtool.stages.watched import Watched


def serve_edits(root: Path, edits: int, profile: cProfile.Profile | None) -> list[float]:
    """The search stage's seconds of each rebuild after a one-page edit."""
    config = load_config(root)
    session = Session(config)
    session.scan()
    first = session.build(jobs=2)
    print(f"first build: {sum(first.seconds.values()):.2f} s", flush=True)
    if not session.reuse.held(PAGES):  # nothing to do: serve reads the wiki ahead
        assert session.disk is not None
        keep_warm(session.config, session.reuse, session.disk)
        session.settle(collect=False)
    pages = sorted((root / "wiki").rglob("*.md"))
    folders = [str(root / "wiki"), str(root / "sources")]
    ignored = [str(config.cache_path), str(config.site_path)]
    seconds = []
    for i in range(edits):
        page = pages[(i * 997) % len(pages)]
        with page.open("a", encoding="utf-8") as f:
            f.write(f"\n\n补充说明：一句新的话 kbtoolsearch{i}x。\n")
        changed = {str(page)}
        session.scan(changed)
        seen = Watched.of(str(root), folders, ignored, changed)
        if profile:
            profile.enable()
        report = session.build(jobs=2, watched=seen)
        if profile:
            profile.disable()
        session.settle()
        seconds.append(report.seconds.get("search", float("nan")))
        search = report.search or {}
        print(
            f"  edit {i + 1}: search {seconds[-1]:.3f} s of {sum(report.seconds.values()):.2f} s"
            f" (written {search.get('written')}, kept {search.get('kept')},"
            f" incremental {search.get('incremental')})",
            flush=True,
        )
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=7000, help="pages (default 7000)")
    parser.add_argument("--edits", type=int, default=7, help="edits (default 7)")
    parser.add_argument("--root", type=Path, help="an existing wiki to edit (its pages change)")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions")
    args = parser.parse_args()
    profile = cProfile.Profile() if args.profile else None
    with tempfile.TemporaryDirectory(prefix="kbtool-bench-serve-search-") as tmp:
        root = args.root
        if root is None:
            root = Path(tmp)
            Workspace.create(root, args.n, PYPROJECT)
            print(f"generated {args.n:,} pages in {root}", flush=True)
        seconds = serve_edits(root.resolve(), args.edits, profile)
    print(
        f"search stage per served edit ({len(seconds)}x): median {statistics.median(seconds):.3f} s"
        f" (min {min(seconds):.3f}, max {max(seconds):.3f})"
    )
    if profile:
        stats = pstats.Stats(profile, stream=sys.stdout)
        stats.sort_stats("cumulative").print_stats(r"kbtool/(search|stages/(search|publish))", 30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
