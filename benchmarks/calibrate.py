"""Floors and calibration: how long markdown-it-py alone takes on a set of pages.

The floors are markdown-it-py with kbtool's parser configuration
(``kbtool.parse.markdown.markdown_parser()``) on each page's text as kbtool parses it (the
frontmatter blanked), in this one process, files already read: ``parse`` is ``md.parse`` and
``render`` is ``md.render`` (markdown-it-py's own HTML renderer, so a parse and a render).

The calibration compares the rate, in bytes of page file per second, at which the synthetic
pages and a folder of real pages parse and render, in one run, interleaved round by round so
that the load of a shared machine falls on both alike; the best round of each counts. The
synthetic wiki stands in for a real one only if the rates agree within ``TOLERANCE``.

    python benchmarks/calibrate.py --reference DIR [-n 600]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from kbtool.parse.frontmatter import blank_frontmatter, split_frontmatter
from kbtool.parse.markdown import markdown_parser

TOLERANCE = 0.20
REFERENCE_ENV = "KBTOOL_REFERENCE_PAGES"
sys.path.insert(0, str(Path(__file__).parent))  # synth.py, when run as a script


@dataclass(frozen=True)
class Pages:
    """Page texts as kbtool parses them, and the size of their files."""

    texts: list[str]
    size: int  # bytes of the files, frontmatter included

    @classmethod
    def read(cls, paths: list[Path]) -> Pages:
        texts, size = [], 0
        for path in paths:
            raw = path.read_bytes()
            size += len(raw)
            text = raw.decode("utf-8", errors="replace")
            _, body_start, _ = split_frontmatter(text)
            texts.append(blank_frontmatter(text, body_start))
        return cls(texts, size)


def parse_seconds(pages: Pages) -> float:
    md = markdown_parser()
    started = time.perf_counter()
    for text in pages.texts:
        md.parse(text)
    return time.perf_counter() - started


def render_seconds(pages: Pages) -> float:
    md = markdown_parser()
    started = time.perf_counter()
    for text in pages.texts:
        md.render(text)
    return time.perf_counter() - started


def markdown_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.md") if p.is_file() and p.name != "README.md")


def reference_folder(given: Path | None) -> Path | None:
    """``--reference``, else the folder named by $KBTOOL_REFERENCE_PAGES, else none."""
    if given is not None:
        return given
    env = os.environ.get(REFERENCE_ENV)
    return Path(env) if env else None


@dataclass(frozen=True)
class Calibration:
    synthetic_parse: float  # bytes/s
    reference_parse: float
    synthetic_render: float
    reference_render: float
    synthetic_bytes: int
    reference_bytes: int
    reference_pages: int

    @property
    def parse_ratio(self) -> float:
        return self.synthetic_parse / self.reference_parse

    @property
    def render_ratio(self) -> float:
        return self.synthetic_render / self.reference_render

    @property
    def ok(self) -> bool:
        return all(abs(r - 1) <= TOLERANCE for r in (self.parse_ratio, self.render_ratio))

    def lines(self) -> list[str]:
        verdict = "within" if self.ok else "NOT within"
        return [
            f"calibration against {self.reference_pages} reference pages "
            f"({self.reference_bytes / 1e3:.0f} KB; synthetic sample "
            f"{self.synthetic_bytes / 1e6:.1f} MB), markdown-it-py rate per byte of page file:",
            f"  parse   synthetic {self.synthetic_parse / 1e6:.2f} MB/s, reference "
            f"{self.reference_parse / 1e6:.2f} MB/s: {self.parse_ratio:.2f}x",
            f"  render  synthetic {self.synthetic_render / 1e6:.2f} MB/s, reference "
            f"{self.reference_render / 1e6:.2f} MB/s: {self.render_ratio:.2f}x",
            f"  {verdict} {TOLERANCE:.0%} of the reference pages' rates",
        ]


def calibrate(
    synthetic: list[Path], reference: Path, rounds: int = 3, sample_bytes: int = 600_000
) -> Calibration:
    """Rates of the synthetic pages (an evenly spread sample of about ``sample_bytes``)
    against the ``.md`` files under ``reference``."""
    ref_paths = markdown_files(reference)
    if not ref_paths:
        raise SystemExit(f"no Markdown pages under {reference}")
    ref = Pages.read(ref_paths)
    every = max(1, round(sum(p.stat().st_size for p in synthetic) / sample_bytes))
    chunks = _chunks(synthetic[::every], ref.size)
    # Short timings, alternating between the two sets, each the best of its rounds: a burst of
    # load from another process then spoils one timing, not the comparison.
    best: dict[tuple[str, str, int], float] = {}
    for _ in range(rounds):
        for index, chunk in enumerate(chunks):
            for kind, measure in (("parse", parse_seconds), ("render", render_seconds)):
                for key, pages in (((kind, "ref", index), ref), ((kind, "syn", index), chunk)):
                    best[key] = min(best.get(key, float("inf")), measure(pages))
    syn_size = sum(c.size for c in chunks)

    def rate(kind: str, which: str) -> float:
        # Each chunk is paired with one timing of the reference set, as often measured.
        size = syn_size if which == "syn" else ref.size * len(chunks)
        return size / sum(best[kind, which, i] for i in range(len(chunks)))

    return Calibration(
        synthetic_parse=rate("parse", "syn"),
        reference_parse=rate("parse", "ref"),
        synthetic_render=rate("render", "syn"),
        reference_render=rate("render", "ref"),
        synthetic_bytes=syn_size,
        reference_bytes=ref.size,
        reference_pages=len(ref_paths),
    )


def _chunks(paths: list[Path], size: int) -> list[Pages]:
    """``paths`` read in consecutive groups of about ``size`` bytes each."""
    groups: list[list[Path]] = [[]]
    total = 0
    for path in paths:
        groups[-1].append(path)
        total += path.stat().st_size
        if total >= size:
            groups.append([])
            total = 0
    return [Pages.read(group) for group in groups if group]


def kbtool_worker_seconds(root: Path, paths: list[Path]) -> float:
    """Seconds kbtool's parse worker takes over ``paths`` (files under ``root``): the page
    model and its body's HTML from the same tokens, as a build does each page once."""
    from kbtool.parse.page import parse_page_tokens
    from kbtool.render.i18n import translator
    from kbtool.render.markdown import render_body

    t = translator("zh")
    files = [(p.relative_to(root).as_posix(), p.read_bytes()) for p in paths]
    started = time.perf_counter()
    for rel, data in files:
        kind = "source" if rel.startswith("sources/") else "wiki"
        page, tokens = parse_page_tokens(rel, data, kind)  # type: ignore[arg-type]
        render_body(page, tokens, t)
    return time.perf_counter() - started


def _kbtool_worker_line(synthetic: list[Path], reference: Path, rounds: int) -> str:
    # The worker's interface may change under this benchmark: the line then says so instead
    # of stopping the run.
    ref_paths = markdown_files(reference)
    root = _common_root(synthetic)
    every = max(1, round(sum(p.stat().st_size for p in synthetic) / 300_000))
    sample = synthetic[::every]
    sizes = [sum(p.stat().st_size for p in paths) for paths in (sample, ref_paths)]
    best = [float("inf"), float("inf")]
    try:
        for _ in range(rounds):
            best[0] = min(best[0], kbtool_worker_seconds(root, sample))
            best[1] = min(best[1], kbtool_worker_seconds(reference, ref_paths))
    except Exception as error:  # noqa: BLE001 - an optional figure, reported, never fatal
        return f"  kbtool's parse + render worker: not measured ({type(error).__name__}: {error})"
    syn, ref = sizes[0] / best[0], sizes[1] / best[1]
    return (
        f"  kbtool's parse + render worker: synthetic {syn / 1e6:.2f} MB/s, reference "
        f"{ref / 1e6:.2f} MB/s: {syn / ref:.2f}x (for information: MathML, highlighting, ...)"
    )


def _common_root(paths: list[Path]) -> Path:
    """The repository the synthetic pages are in: the folder above ``wiki/`` and ``sources/``."""
    first = paths[0]
    for parent in first.parents:
        if parent.name in ("wiki", "sources"):
            return parent.parent
    return first.parent


def print_calibration(synthetic: list[Path], given: Path | None, quick: bool = False) -> None:
    folder = reference_folder(given)
    if folder is None:
        print(f"calibration skipped: no reference pages (--reference DIR or ${REFERENCE_ENV})")
        return
    result = calibrate(synthetic, folder, rounds=2 if quick else 3)
    print("\n".join(result.lines()), flush=True)
    print(_kbtool_worker_line(synthetic, folder, rounds=2 if quick else 3), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reference", type=Path, help=f"folder of real pages (${REFERENCE_ENV})")
    parser.add_argument("-n", type=int, default=600, help="synthetic pages to generate")
    args = parser.parse_args()
    import synth

    with tempfile.TemporaryDirectory(prefix="kbtool-calibrate-") as tmp:
        paths = synth.generate(Path(tmp), args.n)
        total = sum(p.stat().st_size for p in paths)
        print(
            f"{len(paths)} synthetic pages, {total / 1e6:.1f} MB ({total / len(paths):.0f} B/page)"
        )
        print_calibration(paths, args.reference)


if __name__ == "__main__":
    main()
