"""Benchmark `kbtool build` against the floor markdown-it-py sets, on a synthetic wiki.

It generates a deterministic wiki (benchmarks/synth.py; 10,000 pages by default), then prints,
from one run:
  floor      markdown-it-py parsing *and rendering* every page in this process (kbtool's parser
             configuration, its default HTML renderer), files already read
  cold       `build_site` with no cache and no site/: load, check, render, graph layout, swap;
             running the cells (the gate) and the search index are reported on their own
             lines and left out of the ratio: neither is rendering
  no change  the same build again with nothing changed
  one edit   the build after one page had a sentence added (the search index again apart)
  mkdocs     `mkdocs build` of the same pages as the peer figure, when mkdocs is installed
Targets: cold <= 2x floor; no change <= 10% of cold.

    python benchmarks/bench_build.py [-n 10000] [--jobs N] [--no-mkdocs]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import synth  # noqa: E402

from kbtool.config import load_config  # noqa: E402
from kbtool.parse.markdown import markdown_parser  # noqa: E402
from kbtool.render.build import BuildReport, build_site  # noqa: E402

# The synthetic wiki has broken links on purpose (for the check benchmark); here they must not
# stop the build, so links and graph findings are warnings.
MKDOCS_LIMIT = 600.0
PYPROJECT = '[tool.kbtool]\nsite-title = "Synthetic"\nseverity = { KB2 = "warning", KB3 = "off" }\n'


def render_floor(root: Path) -> float:
    texts = [p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.md"))]
    md = markdown_parser()
    started = time.perf_counter()
    for text in texts:
        md.render(text)
    return time.perf_counter() - started


def timed_build(root: Path, jobs: int | None) -> tuple[float, BuildReport]:
    config = load_config(root)
    started = time.perf_counter()
    report = build_site(config, jobs=jobs)
    elapsed = time.perf_counter() - started
    if not report.ok:
        errors = [d.format() for d in report.diagnostics if d.severity == "error"][:5]
        raise SystemExit("build failed:\n" + "\n".join(errors))
    return elapsed, report


def mkdocs_build(root: Path) -> float | None:
    if shutil.which("mkdocs") is None and not _has_module("mkdocs"):
        return None
    docs = root / "mkdocs-docs"
    shutil.copytree(root / "wiki", docs / "wiki")
    shutil.copytree(root / "sources", docs / "sources")
    (root / "mkdocs.yml").write_text(
        "site_name: Synthetic\ndocs_dir: mkdocs-docs\nsite_dir: mkdocs-site\n"
        "markdown_extensions: [tables]\n",
        encoding="utf-8",
    )
    started = time.perf_counter()
    try:  # mkdocs takes over 12 minutes at 10,000 pages here: stop it at 10 and say so
        subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(root / "mkdocs.yml")],
            check=False,
            capture_output=True,
            timeout=MKDOCS_LIMIT,
        )
    except subprocess.TimeoutExpired:
        return float("inf")
    return time.perf_counter() - started


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def bench(n: int, jobs: int | None, with_mkdocs: bool) -> dict[str, float | None]:
    with tempfile.TemporaryDirectory(prefix=f"kbtool-build-bench-{n}-") as tmp:
        root = Path(tmp)
        synth.generate(root, n)
        (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
        floor = render_floor(root)
        cold, report = timed_build(root, jobs)
        cold_search = report.seconds.get("search", 0.0)
        cold_cells = report.seconds.get("cells", 0.0)
        stages = {k: round(v, 2) for k, v in report.seconds.items()}
        same, same_report = timed_build(root, jobs)
        edited = sorted((root / "wiki").rglob("*.md"))[n // 3]
        with edited.open("a", encoding="utf-8") as f:
            f.write("\n补充说明：一句新的话。\n")
        edit, edit_report = timed_build(root, jobs)
        edit_search = edit_report.seconds.get("search", 0.0)
        peer = mkdocs_build(root) if with_mkdocs else None
    cold_site = cold - cold_search - cold_cells
    return {
        "pages": n,
        "floor_s": floor,
        "cold_s": cold_site,
        "cold_search_s": cold_search,
        "cold_cells_s": cold_cells,
        "cold_total_s": cold,
        "cold_vs_floor": cold_site / floor,
        "same_s": same,
        "same_vs_cold": same / cold_site,
        "same_rendered": same_report.rendered,
        "edit_s": edit - edit_search,
        "edit_search_s": edit_search,
        "edit_rendered": edit_report.rendered,
        "edit_vs_cold": (edit - edit_search) / cold_site,
        "mkdocs_s": peer,
        "mkdocs_vs_cold": peer / cold_site if peer else None,
        "stages": stages,  # type: ignore[dict-item]
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", type=int, default=10_000, help="pages (default 10,000)")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: cores)")
    parser.add_argument("--no-mkdocs", action="store_true", help="skip the mkdocs peer figure")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    r = bench(args.n, args.jobs, not args.no_mkdocs)
    if args.json:
        print(json.dumps(r, indent=2))
        return
    print(f"cores: {len(os.sched_getaffinity(0))}; N = {r['pages']:,} pages")
    print(f"  markdown-it-py parse+render floor {r['floor_s']:8.2f} s")
    print(
        f"  cold build (without search)       {r['cold_s']:8.2f} s   {r['cold_vs_floor']:.2f}x floor (target <= 2)"
    )
    print(f"    cells run (cold cache)          {r['cold_cells_s']:8.2f} s")
    print(f"    search index, cold              {r['cold_search_s']:8.2f} s")
    print(f"    whole cold build                {r['cold_total_s']:8.2f} s")
    print(f"    stages: {r['stages']}")
    print(
        f"  rebuild, nothing changed          {r['same_s']:8.2f} s   {r['same_vs_cold']:.1%} of cold "
        f"(target <= 10%), {r['same_rendered']} outputs rendered"
    )
    print(
        f"  rebuild after one-page edit       {r['edit_s']:8.2f} s   {r['edit_vs_cold']:.1%} of cold, "
        f"{r['edit_rendered']} outputs rendered"
    )
    print(f"    search index after the edit     {r['edit_search_s']:8.2f} s")
    if r["mkdocs_s"] is not None:
        print(
            f"  mkdocs build (peer)               {r['mkdocs_s']:8.2f} s   {r['mkdocs_vs_cold']:.2f}x our cold build"
        )
    else:
        print("  mkdocs build (peer)               not installed (pip install -e '.[bench]')")


if __name__ == "__main__":
    main()
