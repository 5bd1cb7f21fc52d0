"""One module per ``kbtool`` command: ``add_arguments(parser)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
from pathlib import Path

from kbtool.config import Config, find_root, load_config
from kbtool.diagnostics import Diagnostic, Summary
from kbtool.report import WITH_STATISTICS


def load_project_config(args: argparse.Namespace) -> Config:
    """The configuration of the repository named by ``--root``, or found from the cwd."""
    root = Path(args.root) if args.root else find_root(Path.cwd())
    return load_config(root)


def add_jobs_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes (default: the configured 'jobs', else the number of cores)",
    )


def add_statistics_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--statistics",
        action="store_true",
        help="print one line per code (count and meaning, most frequent first) instead of "
        "each diagnostic",
    )


def refuse_statistics_format(args: argparse.Namespace) -> None:
    """``--statistics`` is a view for people (text) and json; machines' formats have none."""
    if getattr(args, "statistics", False) and args.format not in WITH_STATISTICS:
        from kbtool.errors import UsageError

        raise UsageError(f"--statistics works with --format text or json, not {args.format}")


def format_diagnostics(
    fmt: str, diagnostics: list[Diagnostic], summary: Summary, root: Path, statistics: bool
) -> str:
    """The report in ``fmt``."""
    from kbtool.report import Report, format_report

    return format_report(fmt, Report(diagnostics, summary, root, statistics))
