"""A page's weight as a reader's browser receives it, gzip-compressed: its HTML and the scripts
it loads (Mermaid, loaded only for a diagram, left out), with its stylesheets apart; and the
link previews' data files, each of which must stay within 4 KB.

    python benchmarks/bench_page_weight.py SITE [SITE_BEFORE]

SITE is a built site folder (``kbtool build``); with SITE_BEFORE (the same wiki built by
another version, e.g. main's) each figure is printed beside the earlier one as a ratio.
"""

from __future__ import annotations

import argparse
import gzip
import re
import statistics
import sys
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

_SCRIPT = re.compile(r'<script\b[^>]*\bsrc="([^"]+)"')
_STYLE = re.compile(r'<link rel="stylesheet" href="([^"]+)"')
#: Loaded by diagrams.js only when a page has a diagram; the target leaves it out.
_LEFT_OUT = ("vendor/",)
PREVIEW_LIMIT = 4096


def _gz(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6, mtime=0))


def _referenced(site: Path, page: Path, html: str, pattern: re.Pattern[str]) -> list[Path]:
    found = []
    for src in pattern.findall(html):
        if any(part in src for part in _LEFT_OUT):
            continue
        path = (page.parent / unquote(src)).resolve()
        if path.is_file() and path.is_relative_to(site.resolve()):
            found.append(path)
    return found


def page_weights(site: Path) -> dict[str, tuple[int, int, int]]:
    """Each page's (HTML gzip, its scripts' gzip, its stylesheets' gzip), by site path."""
    sizes: dict[Path, int] = {}

    def size(path: Path) -> int:
        if path not in sizes:
            sizes[path] = _gz(path.read_bytes())
        return sizes[path]

    weights = {}
    for page in sorted(site.rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        scripts = sum(size(p) for p in _referenced(site, page, html, _SCRIPT))
        styles = sum(size(p) for p in _referenced(site, page, html, _STYLE))
        name = str(PurePosixPath(page.relative_to(site)))
        weights[name] = (_gz(html.encode()), scripts, styles)
    return weights


def preview_sizes(site: Path) -> list[int]:
    return [_gz(p.read_bytes()) for p in (site / "previews").rglob("*.js")]


def summary(weights: dict[str, tuple[int, int, int]]) -> dict[str, float]:
    """The figures printed for a site, from :func:`page_weights`: its pages' (wiki and
    sources) median and largest weights."""
    pages = {k: v for k, v in weights.items() if k.startswith(("wiki/", "sources/"))}
    totals = [h + s for h, s, _ in pages.values()]
    out = {
        "pages": float(len(pages)),
        "median HTML+scripts (B gzip)": statistics.median(totals),
        "max HTML+scripts (B gzip)": float(max(totals)),
        "median HTML (B gzip)": statistics.median(h for h, _, _ in pages.values()),
        "scripts of a page (B gzip)": statistics.median(s for _, s, _ in pages.values()),
        "stylesheets of a page (B gzip)": statistics.median(c for _, _, c in pages.values()),
    }
    transformer = weights.get("wiki/concepts/transformer.html")
    if transformer:
        out["transformer HTML+scripts (B gzip)"] = float(transformer[0] + transformer[1])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("before", type=Path, nargs="?")
    args = parser.parse_args(argv)
    now = summary(page_weights(args.site))
    before = summary(page_weights(args.before)) if args.before else None
    for name, value in now.items():
        line = f"{name:40} {value:10.0f}"
        if before and name in before and before[name]:
            line += f"   before {before[name]:10.0f}   ratio {value / before[name]:.3f}"
        print(line)
    previews = preview_sizes(args.site)
    if previews:
        over = sum(1 for s in previews if s > PREVIEW_LIMIT)
        print(
            f"{'preview files':40} {len(previews):10d}   median {statistics.median(previews):.0f} B"
            f"   max {max(previews)} B gzip   over {PREVIEW_LIMIT} B: {over}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
