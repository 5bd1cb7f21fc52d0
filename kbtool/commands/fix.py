"""``kbtool fix``: apply the safe automatic fixes, or show them with ``--diff``."""

from __future__ import annotations

import argparse

from kbtool.checks import run_checks
from kbtool.commands import load_project_config
from kbtool.fix import apply_fix, plan_fixes
from kbtool.load import load_wiki


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--diff", action="store_true", help="print the changes as a diff; write nothing"
    )


def run(args: argparse.Namespace) -> int:
    config = load_project_config(args)
    fixes = plan_fixes(load_wiki(config))
    for fix in fixes:
        if args.diff:
            print(fix.diff(), end="")
        else:
            apply_fix(config.root, fix)
            for description in fix.descriptions:
                print(f"{fix.path}: fixed {description}")
    if args.diff:
        return 1 if fixes else 0
    remaining = [d for d in run_checks(load_wiki(config)) if d.severity == "error"]
    print(
        f"{sum(len(f.descriptions) for f in fixes)} fixes in {len(fixes)} pages; "
        f"{len(remaining)} errors left for `kbtool check`"
    )
    return 1 if remaining else 0
