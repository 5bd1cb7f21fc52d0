"""Benchmark the site search on a synthetic wiki (benchmarks/synth.py): its cost at build
time, after a one-page edit, on disk, in memory, and what a reader downloads for one query.

From one run it prints:
  parse + render   the cold build's load and render stages (the page worker's search text
                   and index terms are made in load, with the page's parse)
  search stage     the whole search stage of that build (merging the pages' stored terms, in
                   the workers, and writing the files), against the whole build
  index, cold      the index written in one process from the pages' SearchDocs, tokenising
                   included (what the stage would cost without the page worker's terms)
  one-page update  the index updated after one page had a sentence added, and the whole
                   search stage of the rebuild after that edit
  peak memory      peak RSS of a process that writes the index of all pages (and its rise
                   over the same process with the pages loaded)
  on disk          the index's bytes against the site's HTML
  per query        gzip bytes that one query downloads with a cold cache, beyond the search
                   page itself (meta, shards, long lists, prefix words, the first 10 results'
                   page files), median and 95th percentile over about 50 queries: on the
                   index written from scratch, and after the edit (its update segment too)
  first results    (--browser) ms from the last keystroke to results on screen in Chromium,
                   served locally with a warm HTTP cache, and opened from the folder
                   (file://) (the client waits 60 ms for typing to pause: included)
Targets (7,000 real-vocabulary pages): search stage ≤ 10 % of the cold build; the rebuild's
search stage after a one-page edit ≤ 0.15 s; median ≤ 50 KB and p95 ≤ 120 KB per query;
≤ 100 ms to results, file:// and HTTP; ≤ 300 MB; index ≤ HTML.

    python benchmarks/bench_search.py [-n 2000] [--jobs N] [--browser] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import pickle
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import synth  # noqa: E402

from kbtool.config import load_config  # noqa: E402
from kbtool.parse.page import parse_page_tokens  # noqa: E402
from kbtool.search import layout  # noqa: E402
from kbtool.search.engine import IndexFiles, hits, rank  # noqa: E402
from kbtool.search.text import SearchDoc, search_doc  # noqa: E402
from kbtool.search.tokens import CJK, TOKEN  # noqa: E402
from kbtool.search.writer import write_search_index  # noqa: E402
from kbtool.stages.load import load_wiki  # noqa: E402
from kbtool.stages.site import build_site  # noqa: E402

PYPROJECT = (
    '[tool.kbtool]\nsite-title = "Synthetic"\nexecute = "opt-in"\n'
    'severity = { KB2 = "warning", KB3 = "off" }\n'
)
# Run in a fresh interpreter: a forked child would inherit the benchmark's peak RSS (Linux
# keeps ru_maxrss across exec), so the peak is read from VmHWM, which exec resets.
_PEAK = """
import pickle, sys, time
from pathlib import Path
from kbtool.search.writer import write_search_index
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
docs = pickle.loads(Path(sys.argv[1]).read_bytes())
base = status("VmRSS")
started = time.perf_counter()
write_search_index(docs, Path(sys.argv[2]))
elapsed = time.perf_counter() - started
print(base, status("VmHWM"), elapsed)
"""


class _Recording(IndexFiles):
    """Index files that remember which files a query read."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.read: set[str] = {"meta"}

    def load(self, name: str) -> Any:
        self.read.add(name)
        return super().load(name)


def _gzip_size(path: Path, cache: dict[Path, int]) -> int:
    if path not in cache:
        cache[path] = len(gzip.compress(path.read_bytes(), 6)) if path.is_file() else 0
    return cache[path]


def queries(docs: dict[str, SearchDoc], count: int = 50, seed: int = 1) -> list[str]:
    """A fixed mix of queries of all lengths, common and rare: synth's CJK words and English
    terms, pieces of them, words drawn from the pages, prefixes, and two-word queries."""
    rng = random.Random(seed)
    chosen: list[str] = list(synth.WORDS[:12]) + [t for t in synth.TERMS[:8]]
    chosen += ["意力", "化学习", "人形机器", "缩放点积", "模仿", "机", "编"]
    texts = [d.card.title + " " + d.body for d in docs.values()]
    runs: list[str] = []
    words: list[str] = []
    for text in rng.sample(texts, min(200, len(texts))):
        for match in TOKEN.finditer(text):
            (runs if match.group(1) else words).append(match.group(0))
    long_runs = [r for r in runs if len(r) >= 4]
    while len(chosen) < count - 12:
        run = rng.choice(long_runs)
        start = rng.randrange(len(run) - 1)
        chosen.append(run[start : start + rng.choice((2, 2, 3, 4))])
    long_words = [w for w in words if len(w) >= 4 and not any(c in CJK for c in w)]
    chosen += rng.sample(long_words, min(4, len(long_words)))  # rare words, likely
    chosen += [w[:3] for w in rng.sample(long_words, min(3, len(long_words)))]  # prefixes
    chosen += ["VLA 模型", "diffusion policy", '"action chunking"', "注意力 Transformer", "RL 策略"]
    return list(dict.fromkeys(chosen))[:count]


def query_downloads(folder: Path, site: Path, asked: list[str]) -> list[tuple[str, int, int, int]]:
    """(query, total, gzip bytes, of which page files) for each query, cold cache each time."""
    sizes: dict[Path, int] = {}
    out = []
    for query in asked:
        index = _Recording(folder)
        ranked = rank(index, query)
        hits(index, ranked, 0, 10)
        size = sum(_gzip_size(folder / f"{name}.js", sizes) for name in index.read)
        pages = sum(
            _gzip_size(folder / f"{name}.js", sizes) for name in index.read if name[:2] == "d/"
        )
        out.append((query, ranked.total, size, pages))
    return out


def first_results_ms(site: Path, asked: list[str], over_http: bool = True) -> list[float]:
    """Milliseconds from the last keystroke to results, in Chromium: served over HTTP (warm
    cache), or opened from the folder (``file://``). The search box has the focus first, so
    the engine (loaded on demand) has started, as it has for a reader by the time they have
    typed."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests, as a package
    from playwright.sync_api import sync_playwright

    from tests._browser import ARGS, CHROMIUM, static_server

    timings = []
    with static_server(site) as served, sync_playwright() as pw:
        base = served if over_http else site.resolve().as_uri() + "/"
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        for query in asked:
            for _ in range(2):  # the first visit fills the HTTP cache, the second is measured
                page.goto(base + "index.html")
                page.wait_for_load_state("networkidle")
                # the reader reaches for the box first: the engine loads while they type
                page.locator("#search-input").focus()
                page.wait_for_function("!!window.kbtoolSearch")
                ms = page.evaluate(
                    """(q) => new Promise((done) => {
                      const input = document.getElementById("search-input");
                      const box = document.getElementById("search-results");
                      const seen = new MutationObserver(() => {
                        if (box.querySelector(".search-status")) {
                          seen.disconnect(); done(performance.now() - t0);
                        }
                      });
                      seen.observe(box, { childList: true, subtree: true });
                      input.value = q;
                      const t0 = performance.now();
                      input.dispatchEvent(new Event("input"));
                    })""",
                    query,
                )
            timings.append(ms)
        browser.close()
    return timings


def _peak_memory(docs: dict[str, SearchDoc], work: Path) -> tuple[float, float, float]:
    data = work / "docs.pickle"
    data.write_bytes(pickle.dumps(docs))
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, str(data), str(work / "peak-index")],
        check=True,
        capture_output=True,
        text=True,
    )
    base, peak, seconds = done.stdout.split()
    return int(base) / 1024, int(peak) / 1024, float(seconds)


def _bytes(folder: Path, suffix: str = "") -> int:
    return sum(p.stat().st_size for p in folder.rglob("*" + suffix) if p.is_file())


def bench(n: int, jobs: int | None, browser: bool, vocabulary: str = "real") -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"kbtool-search-bench-{n}-") as tmp:
        root = Path(tmp)
        synth.generate(root, n, vocabulary=vocabulary)
        (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
        config = load_config(root)
        report = build_site(config, jobs=jobs)
        if not report.ok:
            raise SystemExit("build failed")
        stages = report.seconds
        site = root / "site"
        wiki = load_wiki(config, jobs=jobs)
        tokens = {
            path: parse_page_tokens(path, (root / path).read_bytes(), page.kind)[1]
            for path, page in wiki.pages.items()
        }
        started = time.perf_counter()
        docs = {path: search_doc(page, tokens[path]) for path, page in wiki.pages.items()}
        text_s = time.perf_counter() - started
        del tokens
        work = root / "work"
        work.mkdir()
        started = time.perf_counter()
        write_search_index(docs, work / "full")
        write_s = time.perf_counter() - started
        edited_path = sorted(p for p in docs if p.startswith("wiki/"))[n // 3]
        edited = dict(docs)
        old = docs[edited_path]
        edited[edited_path] = SearchDoc(
            old.card, old.headings, old.body + "\n补充说明：一句新的话。"
        )
        started = time.perf_counter()
        update = write_search_index(edited, work / "updated", work / "full")
        update_s = time.perf_counter() - started
        asked = queries(docs)
        fresh = sorted(size for _, _, size, _ in query_downloads(site / layout.FOLDER, site, asked))
        page_file = root / edited_path
        with page_file.open("a", encoding="utf-8") as f:
            f.write("\n补充说明：一句新的话。\n")
        rebuild = build_site(config, jobs=jobs)
        base_mb, peak_mb, _ = _peak_memory(docs, work)
        downloads = query_downloads(site / layout.FOLDER, site, asked)
        sizes = sorted(size for _, _, size, _ in downloads)
        page_sizes = sorted(pages for _, _, _, pages in downloads)
        timings = first_results_ms(site, asked[:20]) if browser else []
        from_folder = first_results_ms(site, asked[:20], over_http=False) if browser else []
        parse_render = stages.get("load", 0.0) + stages.get("render", 0.0)
        index_s = text_s + write_s
        return {
            "pages": n,
            "parse_render_s": parse_render,
            "search_stage_s": stages.get("search", 0.0),
            "search_in_workers_s": report.in_workers.get("search", 0.0),
            "cold_build_s": sum(stages.values()),
            "index_text_s": text_s,
            "index_write_s": write_s,
            "index_vs_parse_render": index_s / parse_render,
            "update_s": update_s,
            "update_written_files": update.written,
            "rebuild_search_stage_s": rebuild.seconds.get("search", 0.0),
            "rebuild_search": rebuild.search,
            "peak_rss_mb": peak_mb,
            "peak_rise_mb": peak_mb - base_mb,
            "index_bytes": _bytes(site / layout.FOLDER),
            "index_files": sum(1 for p in (site / layout.FOLDER).rglob("*") if p.is_file()),
            "html_bytes": _bytes(site, ".html"),
            "fresh_kb_median": statistics.median(fresh) / 1024,
            "fresh_kb_p95": fresh[min(len(fresh) - 1, round(0.95 * (len(fresh) - 1)))] / 1024,
            "query_kb_median": statistics.median(sizes) / 1024,
            "query_kb_p95": sizes[min(len(sizes) - 1, round(0.95 * (len(sizes) - 1)))] / 1024,
            "query_kb_max": sizes[-1] / 1024,
            "query_pages_kb_median": statistics.median(page_sizes) / 1024,
            "queries": [[q, total, round(size / 1024, 1)] for q, total, size, _ in downloads],
            "first_results_ms_median": statistics.median(timings) if timings else None,
            "first_results_ms_max": max(timings) if timings else None,
            "file_results_ms_median": statistics.median(from_folder) if from_folder else None,
            "file_results_ms_max": max(from_folder) if from_folder else None,
        }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", type=int, default=2000, help="pages (default 2,000)")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes")
    parser.add_argument("--browser", action="store_true", help="time first results in Chromium")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--vocabulary", choices=synth.VOCABULARIES, default="real", help="synth.py's words"
    )
    args = parser.parse_args()
    r = bench(args.n, args.jobs, args.browser, args.vocabulary)
    if args.json:
        print(json.dumps(r, ensure_ascii=False, indent=2))
        return
    mb = 1024 * 1024
    print(f"pages                         {r['pages']}")
    print(f"parse + render (cold build)   {r['parse_render_s']:.2f} s")
    print(
        f"search stage                  {r['search_stage_s']:.2f} s"
        f" ({r['search_in_workers_s']:.2f} s of it in the workers)"
        f" = {100 * r['search_stage_s'] / r['cold_build_s']:.1f} % of the cold build"
        f" ({r['cold_build_s']:.2f} s; target <= 10 %)"
    )
    print(
        f"index, cold (docs + write)    {r['index_text_s'] + r['index_write_s']:.2f} s"
        f" = {r['index_text_s']:.2f} + {r['index_write_s']:.2f}"
        f"  ({100 * r['index_vs_parse_render']:.1f} % of parse + render)"
    )
    print(
        f"one-page update               {r['update_s']:.3f} s, {r['update_written_files']} files"
        f" written; rebuild's search stage {r['rebuild_search_stage_s']:.2f} s (target <= 0.15 s)"
    )
    print(
        f"peak memory, indexing         {r['peak_rss_mb']:.0f} MB RSS"
        f" ({r['peak_rise_mb']:.0f} MB over the loaded pages; target <= 300 MB)"
    )
    print(
        f"on disk                       index {r['index_bytes'] / mb:.1f} MB in"
        f" {r['index_files']} files, HTML {r['html_bytes'] / mb:.1f} MB"
        f" ({r['index_bytes'] / r['html_bytes']:.2f}x; target <= 1)"
    )
    print(
        f"per query, index from scratch median {r['fresh_kb_median']:.1f} KB,"
        f" p95 {r['fresh_kb_p95']:.1f} KB (targets 50 / 120 KB)"
    )
    print(
        f"per query (gzip, cold cache)  median {r['query_kb_median']:.1f} KB,"
        f" p95 {r['query_kb_p95']:.1f} KB, max {r['query_kb_max']:.1f} KB"
        f" over {len(r['queries'])} queries after one edit (with its update segment);"
        f" of which the results' page files, median {r['query_pages_kb_median']:.1f} KB"
    )
    if r["first_results_ms_median"] is not None:
        print(
            f"first results (Chromium)      HTTP median {r['first_results_ms_median']:.0f} ms,"
            f" max {r['first_results_ms_max']:.0f} ms; file:// median"
            f" {r['file_results_ms_median']:.0f} ms, max {r['file_results_ms_max']:.0f} ms"
            " (target <= 100 ms)"
        )
    heaviest = sorted(r["queries"], key=lambda q: -q[2])[:5]
    print(
        "heaviest queries              " + ", ".join(f"{q} {kb} KB ({t})" for q, t, kb in heaviest)
    )


if __name__ == "__main__":
    main()
