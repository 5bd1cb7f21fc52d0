"""``kbtool related PAGE``: the pages most like PAGE that it does not link, for its
``related`` list."""

from __future__ import annotations

import argparse
import json
import posixpath

from kbtool.commands import add_jobs_argument, load_project_config
from kbtool.commands.check import relative_paths
from kbtool.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("page", metavar="PAGE", help="a page of the wiki")
    parser.add_argument(
        "-n", "--limit", type=int, default=10, help="how many pages at most (default 10)"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    add_jobs_argument(parser)


def run(args: argparse.Namespace) -> int:
    from kbtool.parse.fields import tags_of
    from kbtool.render.related import pages_graph, related_pages
    from kbtool.report.graph import backlinks
    from kbtool.stages.load import load_wiki

    config = load_project_config(args)
    (path,) = relative_paths(config.root, [args.page])
    wiki = load_wiki(config, jobs=args.jobs)
    page = wiki.pages.get(path)
    if page is None:
        raise UsageError(f"{args.page} is not a page of the wiki")
    kinds = {other: its.kind for other, its in wiki.pages.items()}
    graph = pages_graph({other: tags_of(its) for other, its in wiki.pages.items()}, backlinks(wiki))
    found = related_pages(kinds, graph, path, max(args.limit, 0))
    folder = posixpath.dirname(path) or "."
    rows = [
        {
            "path": other,
            "link": posixpath.relpath(other, folder),  # as a `related` entry is written
            "title": wiki.pages[other].title,
            "score": round(score, 3),
        }
        for other, score in found
    ]
    if args.format == "json":
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    elif not rows:
        print(f"{path}: no page shares neighbours or tags with it that it does not link")
    else:
        for row in rows:
            print(f"{row['score']:7.3f}  {row['link']}  {row['title']}")
    return 0
