"""``kbtool check [PATH...]``: parse every page, run the checks, print diagnostics."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from kbtool.codes import all_rules
from kbtool.commands import (
    add_jobs_argument,
    add_statistics_argument,
    format_diagnostics,
    load_project_config,
    refuse_statistics_format,
)
from kbtool.diagnostics import Diagnostic, filter_diagnostics, sort_key, summarize
from kbtool.errors import UsageError
from kbtool.report import FORMATS
from kbtool.stages.scan import ChangedSinceScan, Snapshot, scan, scanning_again
from kbtool.store.db import open_store
from kbtool.timings import Timings

#: The project rules' loading problems: at a rule file or pyproject.toml, not at a page.
_LOADING = ("KB601", "KB605")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="report only on these files or folders"
    )
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format")
    parser.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="CODE",
        help="report only these codes or prefixes (repeatable, comma-separated)",
    )
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="CODE",
        help="never report these codes or prefixes (repeatable, comma-separated)",
    )
    parser.add_argument("--no-cache", action="store_true", help="parse every page afresh")
    parser.add_argument(
        "--timings", action="store_true", help="print the seconds each stage took (on stderr)"
    )
    add_statistics_argument(parser)
    add_jobs_argument(parser)


def _codes(values: list[str], option: str) -> list[str]:
    codes = [code.strip().upper() for value in values for code in value.split(",") if code.strip()]
    known = all_rules()  # with the project's, loaded before
    for code in codes:  # A typo must not select nothing and pass.
        if not any(rule.startswith(code) for rule in known):
            raise UsageError(f"{option}: no diagnostic code matches '{code}'")
    return codes


def relative_paths(config_root: Path, paths: list[str]) -> list[str]:
    """Command-line paths as repository-relative POSIX paths."""
    out = []
    for path in paths:
        full = Path(path).resolve()
        try:
            out.append(full.relative_to(config_root).as_posix())
        except ValueError:
            raise UsageError(f"{path} is not inside the repository {config_root}") from None
        if not full.exists():
            raise UsageError(f"{path}: no such file or folder")
    return [p if p != "." else "" for p in out]


def _term_candidates(snapshot: Snapshot) -> str:
    """KB309's list: terms in bold or code on many wiki pages that no page goes by."""
    from kbtool.checks.terms import candidate_terms, format_terms, text_names

    texts = []
    for found, _ in snapshot.files:
        try:
            data = snapshot.data(found.path)
        except ChangedSinceScan:
            continue
        texts.append((found.path, found.kind, data.decode("utf-8-sig", errors="replace")))
    names = [name for path, _, text in texts for name in text_names(path, text)]
    wiki = [(path, text) for path, kind, text in texts if kind == "wiki"]
    return format_terms(candidate_terms(wiki, names))


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    refuse_statistics_format(args)
    config = load_project_config(args)
    paths = [p for p in relative_paths(config.root, args.paths) if p]
    from kbtool.rule_loader import project_rules

    project_rules(config)  # their codes, for --select and --ignore
    select, ignore = _codes(args.select, "--select"), _codes(args.ignore, "--ignore")
    timings = Timings()
    snapshot = scan(config, trust=not args.no_cache)
    timings.lap("scan")
    from kbtool.progress import StepProgress
    from kbtool.stages.run import new_run
    from kbtool.stages.unchanged import last_check, remember_check, unchanged_check_key

    # On a terminal only: stderr of a CI log or a pipe gets no bar.
    parsing, checking = StepProgress("parsing", sys.stderr), StepProgress("checking", sys.stderr)
    with open_store(config.cache_path) as store:

        def check(files: Snapshot | None) -> list[Diagnostic]:
            run = new_run(config, store, snapshot=files, jobs=args.jobs, use_store=use_store)
            timings.count_workers(lambda: run.workers.seconds)
            # Nothing changed since the last check (pre-commit runs it often): what it found.
            key = unchanged_check_key(run)
            found = last_check(run, key) if use_store else None
            if found is None:
                from kbtool.stages.check import check_wiki  # the rules: only if something changed

                result = check_wiki(run, progress=parsing, checking=checking)
                found = result.diagnostics
                if use_store:
                    remember_check(run, key, result.wiki, found)
            return found

        use_store = not args.no_cache
        everything = scanning_again(config, snapshot, check)
    parsing.close()
    checking.close()
    timings.lap("check")
    diagnostics = filter_diagnostics(everything, config, select, ignore, paths)
    if paths:  # a broken rule file is the whole run's problem, whichever pages are asked for
        loading = [d for d in everything if d.code in _LOADING]
        diagnostics = sorted(
            set(diagnostics) | set(filter_diagnostics(loading, config, select, ignore)),
            key=sort_key,
        )
    checked = sum(
        1
        for f, _ in snapshot.files
        if not paths or any(f.path == q or f.path.startswith(q + "/") for q in paths)
    )
    summary = summarize(diagnostics, checked, time.perf_counter() - started)
    print(format_diagnostics(args.format, diagnostics, summary, config.root, args.statistics))
    if args.statistics and config.level("KB309") != "off":
        print(_term_candidates(snapshot))
    if args.timings:
        print(timings.format(), file=sys.stderr)
    return 1 if summary.errors else 0
