"""``kbtool search QUERY``: the built site's search index, from the terminal.

It reads the same files under ``site/search/`` as the browser and runs the same algorithm,
so it lists the same pages in the same order. Exit 0 with results, 1 with none, 2 when there
is no index (``kbtool build`` makes one).
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from kbtool.commands import load_project_config
from kbtool.search import layout
from kbtool.search.engine import Hit, IndexFiles, IndexMissing, hits, rank
from kbtool.search.excerpt import plain_text

_BOLD, _RESET = "\033[1m", "\033[0m"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "query",
        nargs="+",
        help='words, CJK text, a "quoted phrase", -word, type:T, tag:T (docs/search.md)',
    )
    parser.add_argument(
        "-n", type=int, default=10, metavar="N", help="results to show (default 10; 0: all)"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")


def _excerpt(hit: Hit, colour: bool) -> str:
    if not colour:
        return plain_text(list(hit.excerpt))
    return "".join(f"{_BOLD}{t}{_RESET}" if marked else t for t, marked in hit.excerpt)


def run(args: argparse.Namespace) -> int:
    config = load_project_config(args)
    folder = config.root / config.site_dir / layout.FOLDER
    # Undecodable bytes in argv arrive as lone surrogates, which cannot be printed back.
    query = re.sub("[\ud800-\udfff]", "\ufffd", " ".join(args.query))
    try:
        index = IndexFiles(folder)
    except IndexMissing:
        print(f"kbtool: no search index in {folder}; run `kbtool build` first", file=sys.stderr)
        return 2
    ranked = rank(index, query)
    count = None if args.n <= 0 else args.n
    found = hits(index, ranked, 0, count)
    if args.format == "json":
        results = [
            {
                "path": hit.doc.card.path,
                "title": hit.doc.card.title,
                "url": hit.doc.card.url,
                "type": hit.doc.card.type,
                "label": hit.label,
                "excerpt": plain_text(list(hit.excerpt)),
            }
            for hit in found
        ]
        data = {"query": query, "total": ranked.total, "results": results}
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        colour = sys.stdout.isatty()
        for hit in found:
            label = f"  [{hit.label}]" if hit.label else ""
            print(f"{hit.doc.card.title}{label}  {hit.doc.card.path}")
            print(f"    {_excerpt(hit, colour)}")
        shown = f", showing {len(found)}" if len(found) < ranked.total else ""
        print(f"{ranked.total} pages match{shown}")
    return 0 if ranked.total else 1
