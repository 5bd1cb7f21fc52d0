"""``kbtool test [PATH...]``: run the pages' python cells (cached), report per page and cell."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from kbtool.commands import add_jobs_argument, load_project_config
from kbtool.commands.check import relative_paths
from kbtool.config import Config
from kbtool.execute import PageResult, run_pages
from kbtool.execute.junit import write_junit
from kbtool.execute.report import format_json, format_text, page_line, summarize
from kbtool.execute.shard import in_shard, parse_shard
from kbtool.model import Page
from kbtool.stages.load import load_wiki


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="run only pages under these files or folders"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument(
        "--no-cache", action="store_true", help="run every page, even if its result is cached"
    )
    parser.add_argument(
        "--shard",
        type=parse_shard,
        metavar="K/N",
        help="run only the K-th of N deterministic parts of the pages (a CI matrix)",
    )
    parser.add_argument(
        "--junit-xml", type=Path, metavar="FILE", help="also write a JUnit XML report to FILE"
    )
    parser.add_argument(
        "--compare-outputs",
        action="store_true",
        help="compare imported pages' cell outputs with those saved at import",
    )
    add_jobs_argument(parser)


def listed(config: Config, page: Page) -> bool:
    """Pages ``kbtool test`` reports on: wiki pages with python cells, and any page that says
    ``execute:`` (a source page opting in). Pages that do not run are listed as not run."""
    return bool(page.python_cells) and (page.kind == "wiki" or "execute" in page.meta)


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    config = load_project_config(args)
    paths = [p for p in relative_paths(config.root, args.paths) if p]
    wiki = load_wiki(config, jobs=args.jobs, use_store=not args.no_cache)
    pages = [
        page
        for page in wiki.pages.values()
        if listed(config, page)
        and (not paths or any(page.path == p or page.path.startswith(p + "/") for p in paths))
        and in_shard(page.path, args.shard)
    ]

    def show(result: PageResult) -> None:
        if args.format == "text":
            print(page_line(result), flush=True)

    results = run_pages(
        config,
        pages,
        jobs=args.jobs,
        use_store=not args.no_cache,
        on_result=show,
        compare=args.compare_outputs,
    )
    summary = summarize(results, time.perf_counter() - started)
    if args.junit_xml is not None:
        write_junit(args.junit_xml, results, summary.seconds)
    formatter = format_text if args.format == "text" else format_json
    print(formatter(results, summary))
    sys.stdout.flush()
    return 1 if summary.pages["failed"] else 0
