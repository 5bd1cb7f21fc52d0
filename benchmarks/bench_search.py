"""Benchmark the site search: index time and size, and what a reader downloads for one query.

Generates the deterministic synthetic wiki (benchmarks/synth.py, default 10,000 pages), renders
each page to the HTML the site's templates produce for search (title, summary, body inside
``data-pagefind-body``), builds the index with ``kbtool.render.search.build_search_index`` and
then, in headless Chromium against a local server that counts every byte it sends, runs each
query with a cold cache as a reader would: page load, then typing the query (the as-you-type
list of 8 results) and opening search.html?q= (the first 10 results).

synth.py draws its Chinese from 50 words, each on about 75% of the pages: a tiny vocabulary,
and the longest posting lists a query can meet. ``--extra-chars N`` adds about N characters of
real prose to each page: sentences of the bundled wiki and sources, drawn at random.
``--random-words`` draws 2-4 character "words" from the corpus's character frequencies
instead: far more distinct bigrams than real prose has, a pessimistic bound for index size,
time and Pagefind's memory. Both keep synth.py's text, so the queried words stay on most pages.

``--topics K`` replaces each page's text with ``--extra-chars`` characters of real sentences,
30% of them as written and 70% in the page's "topic": the same sentences with their characters
permuted by one of K fixed permutations. A wiki's vocabulary then grows with its size, and a
term such as 位置编码 is on a fraction of the pages (about a quarter at 1,500 characters), as in
a real wiki, instead of on nearly all of them.

    python benchmarks/bench_search.py [-n 10000] [--extra-chars 1500 [--random-words |
                                      --topics 100]] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import collections
import functools
import gzip
import html
import http.server
import random
import re
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml
from markdown_it import MarkdownIt

sys.path.insert(0, str(Path(__file__).parent))
import synth  # noqa: E402

from kbtool.config import Config  # noqa: E402
from kbtool.render.search import build_search_index  # noqa: E402
from kbtool.render.search_grams import CJK_CHARS  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
QUERIES = ("注意力", "位置编码", "多头", "缩放点积", "人形", "Transformer", "attention", "模仿学习")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PAGE = """<!doctype html><html lang="zh"><head><meta charset="utf-8"><title>{title}</title>
<script src="{root}assets/search.js" defer></script></head><body>
<header><form id="search" role="search" action="{root}search.html"><input type="search" name="q">
</form><div id="search-results"></div></header>
<main id="content" data-pagefind-body><h1 data-pagefind-meta="title" data-pagefind-weight="10">
{title}</h1><p class="summary" data-pagefind-meta="summary" data-pagefind-weight="5">{summary}</p>
{body}</main></body></html>"""
SEARCH_PAGE = """<!doctype html><html lang="zh"><head><meta charset="utf-8"><title>search</title>
<script src="assets/search.js" defer></script></head><body><header><form id="search"
role="search" action="search.html"><input type="search" name="q"></form></header>
<main id="content"><div id="search-results"></div></main></body></html>"""


def _corpus() -> str:
    return "".join(
        p.read_text(encoding="utf-8")
        for p in sorted(REPO.glob("*/**/*.md"))
        if p.parts[len(REPO.parts)] in ("wiki", "sources")
    )


def _sentences() -> list[str]:
    """Sentences of the bundled wiki and sources that are mostly Chinese prose."""
    found = []
    for sentence in re.split(r"(?<=[。！？])|\n", _corpus()):
        sentence = sentence.strip(" -*>#|")
        if len(re.findall(f"[{CJK_CHARS}]", sentence)) >= 8 and "$" not in sentence:
            found.append(sentence)
    return found


def _extra(rng: random.Random, pool: list[str], n: int, random_words: bool) -> str:
    parts, size = [], 0
    while size < n:
        if random_words:
            part = "".join(rng.choice(pool) for _ in range(rng.randint(2, 4)))
        else:
            part = rng.choice(pool)
        parts.append(part)
        size += len(part)
    return ("，" if random_words else "").join(parts) + "。"


def _topics(sentences: list[str], count: int) -> list[list[str]]:
    """The sentences, and ``count - 1`` copies with their CJK characters permuted."""
    chars = sorted({c for s in sentences for c in re.findall(f"[{CJK_CHARS}]", s)})
    pools = [sentences]
    for topic in range(1, count):
        shuffled = chars[:]
        random.Random(topic).shuffle(shuffled)
        table = str.maketrans(dict(zip(chars, shuffled, strict=True)))
        pools.append([s.translate(table) for s in sentences])
    return pools


def _topical(rng: random.Random, pools: list[list[str]], topic: int, n: int) -> str:
    parts, size = [], 0
    while size < n:
        pool = pools[0] if rng.random() < 0.3 else pools[topic % len(pools)]
        parts.append(rng.choice(pool))
        size += len(parts[-1])
    return "\n\n".join(parts)


def render(
    wiki: Path, site: Path, extra_chars: int, random_words: bool = False, topics: int = 0
) -> int:
    """Render every synthetic page to search-ready HTML; return the number of pages."""
    md = MarkdownIt("commonmark").enable("table")
    rng = random.Random(1)
    pool: list[str] = []
    if extra_chars:
        pool = re.findall(f"[{CJK_CHARS}]", _corpus()) if random_words else _sentences()
    pools = _topics(pool, topics) if topics else []
    count = 0
    for path in sorted(wiki.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        meta: dict[str, object] = {}
        if text.startswith("---\n"):
            _, front, text = text.split("---\n", 2)
            meta = yaml.safe_load(front) or {}
        heading = re.search(r"^# (.+)$", text, re.M)
        title = heading.group(1) if heading else path.stem
        if heading:
            text = text.replace(heading.group(0), "", 1)
        summary = str(meta.get("summary", ""))
        if topics:
            text = _topical(rng, pools, count, extra_chars)
            summary = text.split("\n", 1)[0]
        elif extra_chars:
            text += "\n\n" + _extra(rng, pool, extra_chars, random_words) + "\n"
        rel = path.relative_to(wiki).with_suffix(".html")
        out = site / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(
            PAGE.format(
                title=html.escape(title),
                root="../" * (len(rel.parts) - 1),
                summary=html.escape(summary),
                body=md.render(text),
            ),
            encoding="utf-8",
        )
        count += 1
    (site / "search.html").write_text(SEARCH_PAGE, encoding="utf-8")
    assets = site / "assets"
    assets.mkdir(exist_ok=True)
    for name in ("search.js", "search.css"):
        (assets / name).write_bytes((REPO / "kbtool/render/assets" / name).read_bytes())
    return count


class _Counting(http.server.SimpleHTTPRequestHandler):
    sent: list[tuple[str, bytes]] = []

    def log_message(self, *args: object) -> None:
        pass

    def copyfile(self, source, outputfile) -> None:  # type: ignore[no-untyped-def]
        data = source.read()
        self.sent.append((self.path.split("?")[0], data))
        outputfile.write(data)


def _kind(path: str) -> str:
    for key in (
        ".pf_meta",
        ".pf_index",
        ".pf_fragment",
        "pagefind-entry.json",
        "pagefind.js",
        "pagefind-worker.js",
        ".pagefind",
    ):
        if path.endswith(key):
            return {
                "pagefind.js": "engine js",
                "pagefind-worker.js": "engine js",
                ".pagefind": "engine wasm",
                "pagefind-entry.json": "meta",
            }.get(key, key[4:])
    return "page"


def measure(site: Path, first_page: str) -> None:
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_Counting, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/"
    print(
        f"{'query':<14}{'view':<10}{'hits':>6}  {'total KB raw/gz':>16}  by kind (KB, gzip where "
        "a host would compress)"
    )
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for query in QUERIES:
            for view in ("typing", "page"):
                context = browser.new_context()  # cold cache for every measurement
                page = context.new_page()
                _Counting.sent = []
                if view == "typing":
                    page.goto(base + first_page)
                    page.wait_for_load_state("networkidle")
                    _Counting.sent = []
                    page.fill("#search input", query)
                    page.wait_for_selector("#search-results .search-status", timeout=30000)
                else:
                    page.goto(base + "search.html?q=" + query)
                    page.wait_for_selector(
                        'main #search-results[aria-busy="false"] .search-status', timeout=30000
                    )
                page.wait_for_load_state("networkidle")
                hits = page.locator("#search-results .search-hit").count()
                status = page.locator("#search-results .search-status").first.inner_text()
                context.close()
                kinds: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
                for path, data in _Counting.sent:
                    kind = _kind(path)
                    packed = (
                        len(data)
                        if path.endswith((".pf_meta", ".pf_index", ".pf_fragment"))
                        else len(gzip.compress(data))
                    )
                    kinds[kind][0] += len(data)
                    kinds[kind][1] += packed
                raw = sum(v[0] for k, v in kinds.items() if k != "page") / 1024
                packed = sum(v[1] for k, v in kinds.items() if k != "page") / 1024
                detail = ", ".join(
                    f"{k} {v[1] / 1024:.0f}" for k, v in sorted(kinds.items()) if k != "page"
                )
                print(
                    f"{query:<14}{view:<10}{hits:>6}  {raw:>7.0f} / {packed:<6.0f}  {detail}"
                    f"   [{status}]"
                )
        browser.close()
    server.shutdown()


def run(root: Path, n: int, extra_chars: int, random_words: bool, topics: int) -> None:
    site = root / "site"
    if not site.is_dir():  # --workdir keeps a rendered site between runs
        synth.generate(root / "wiki-src", n)
        started = time.perf_counter()
        count = render(root / "wiki-src", site, extra_chars, random_words, topics)
        print(
            f"rendered {count} pages in {time.perf_counter() - started:.1f} s "
            f"(extra chars per page: {extra_chars})"
        )
    stats = build_search_index(site, Config(root=root, site_dir="published"))
    # Pagefind is the only child process so far: its peak memory.
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    by_kind: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for item in (site / "pagefind").rglob("*"):
        if item.is_file():
            by_kind[item.suffix or item.name][0] += 1
            by_kind[item.suffix or item.name][1] += item.stat().st_size
    print(
        f"index: {stats['pages']} pages in {stats['seconds']:.1f} s, {stats['files']} files, "
        f"{stats['bytes'] / 1e6:.1f} MB; Pagefind's peak memory {peak:.0f} MB"
    )
    for kind, (files, size) in sorted(by_kind.items()):
        print(
            f"  {kind:<16}{files:>7} files {size / 1024:>10.0f} KB "
            f"(average {size / files / 1024:.1f} KB)"
        )
    first = next(p for p in sorted(site.rglob("*.html")) if "wiki" in p.parts)
    measure(site, first.relative_to(site).as_posix())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", type=int, default=10_000)
    parser.add_argument("--extra-chars", type=int, default=0)
    parser.add_argument("--random-words", action="store_true")
    parser.add_argument("--topics", type=int, default=0)
    parser.add_argument("--workdir", type=Path, help="keep the rendered site here between runs")
    args = parser.parse_args()
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
        run(args.workdir, args.n, args.extra_chars, args.random_words, args.topics)
        return
    with tempfile.TemporaryDirectory(prefix="kbtool-bench-search-") as tmp:
        run(Path(tmp), args.n, args.extra_chars, args.random_words, args.topics)


if __name__ == "__main__":
    main()
