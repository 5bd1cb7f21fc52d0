"""``kbtool build``: check, run the cells, and publish ``site/`` only if both pass."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from kbtool.commands import (
    add_jobs_argument,
    add_statistics_argument,
    format_diagnostics,
    load_project_config,
    refuse_statistics_format,
)
from kbtool.diagnostics import summarize
from kbtool.report import FORMATS

if TYPE_CHECKING:  # The renderer is imported when a build runs, not whenever the CLI starts.
    from kbtool.execute.results import PageResult
    from kbtool.stages.site import BuildReport


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format", choices=sorted(FORMATS), default="text", help="format of the diagnostics"
    )
    parser.add_argument(
        "--clean",
        action="store_true",
        help="render every page again instead of reusing unchanged ones",
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="parse every page and run every cell afresh"
    )
    parser.add_argument(
        "--timings", action="store_true", help="print the seconds each stage took (on stderr)"
    )
    add_statistics_argument(parser)
    add_jobs_argument(parser)


def format_cell_failures(failed: list[PageResult]) -> str:
    from kbtool.execute.report import failure_lines

    return "\n".join(line for page in failed for line in failure_lines(page))


def summary_line(report: BuildReport) -> str:
    seconds = sum(report.seconds.values())
    if report.failed_cells:
        return (
            f"not published: {len(report.failed_cells)} page(s) with failing cells; "
            f"{report.site_dir.name}/ left as it was ({seconds:.2f}s)"
        )
    if not report.ok:
        return (
            f"not published: {report.errors} error(s); {report.site_dir.name}/ left as it was "
            f"({seconds:.2f}s)"
        )
    if not report.published:
        name = report.site_dir.name
        return f"{name}/ is up to date: {report.pages} pages, nothing to render ({seconds:.2f}s)"
    return (
        f"published {report.site_dir.name}/: {report.pages} pages, "
        f"{report.rendered} outputs rendered, "
        f"{report.reused} reused in {seconds:.2f}s"
    )


def print_report(
    report: BuildReport, fmt: str = "text", root: Path | None = None, statistics: bool = False
) -> None:
    summary = summarize(report.diagnostics, report.pages, sum(report.seconds.values()))
    if report.diagnostics or fmt != "text":
        where = root if root is not None else Path.cwd()
        text = format_diagnostics(fmt, report.diagnostics, summary, where, statistics)
        # The text format ends with the checker's summary line; the build prints its own.
        print(text.rsplit("\n", 1)[0] if fmt == "text" else text)
    if report.failed_cells:
        print(format_cell_failures(report.failed_cells))
    print(summary_line(report), file=sys.stderr if fmt != "text" else sys.stdout, flush=True)


def run(args: argparse.Namespace) -> int:
    from kbtool.stages.site import build_site

    refuse_statistics_format(args)
    config = load_project_config(args)
    report = build_site(
        config, jobs=args.jobs, use_store=not args.no_cache, full=args.clean, progress=sys.stderr
    )
    print_report(report, args.format, config.root, args.statistics)
    if args.timings:
        from kbtool.timings import Timings

        print(Timings(report.seconds, report.in_workers).format(), file=sys.stderr)
    return 0 if report.ok else 1
