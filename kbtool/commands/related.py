"""``kbtool related PAGE``: the pages most like PAGE that it does not link, for its
``related`` list."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from kbtool.commands import add_jobs_argument, load_project_config
from kbtool.commands.check import relative_paths
from kbtool.errors import UsageError

if TYPE_CHECKING:
    from kbtool.config import Config
    from kbtool.stages.facts import Facts
    from kbtool.stages.scan import Snapshot


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("page", metavar="PAGE", help="a page of the wiki")
    parser.add_argument(
        "-n", "--limit", type=int, default=10, help="how many pages at most (default 10)"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    add_jobs_argument(parser)


def run(args: argparse.Namespace) -> int:
    from kbtool.render.related import pages_graph, related_pages
    from kbtool.render.urls import relative_path

    config = load_project_config(args)
    (path,) = relative_paths(config.root, [args.page])
    facts, links_to = _checked(config, args.jobs)
    if path not in facts:
        raise UsageError(f"{args.page} is not a page of the wiki")
    kinds = {other: its.kind for other, its in facts.items()}
    graph = pages_graph({other: its.tags for other, its in facts.items()}, links_to)
    found = related_pages(kinds, graph, path, max(args.limit, 0))
    rows = [
        {
            "path": other,
            "link": relative_path(path, other),  # as a `related` entry is written
            "title": facts[other].title,
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


def _checked(config: Config, jobs: int | None) -> tuple[dict[str, Facts], dict[str, list[str]]]:
    """What every page shows of itself and each page's backlinks, as the check finds them
    (after an edit it reads the pages the edit touched, not every page)."""
    from kbtool.stages.check import check_wiki
    from kbtool.stages.run import new_run
    from kbtool.stages.scan import scanning_again
    from kbtool.store.db import memory_store, open_store

    def check(files: Snapshot | None) -> tuple[dict[str, Facts], dict[str, list[str]]]:
        with open_store(config.cache_path) as store:
            result = check_wiki(new_run(config, store, snapshot=files, jobs=jobs))
            if result.links_stored:
                return dict(result.facts.items()), store.backlinks()
        with memory_store() as scratch:  # the store's link table is not this wiki's
            run = new_run(config, scratch, snapshot=files, jobs=jobs, use_store=False)
            result = check_wiki(run)
            return dict(result.facts.items()), scratch.backlinks()

    return scanning_again(config, None, check)
