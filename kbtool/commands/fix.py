"""``kbtool fix``: apply the safe automatic fixes, or show them with ``--diff``."""

from __future__ import annotations

import argparse

from kbtool.checks import run_checks
from kbtool.checks.fixes import apply_fix, plan_fixes
from kbtool.commands import load_project_config
from kbtool.stages.load import load_wiki


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="fix only these files or folders")
    parser.add_argument(
        "--diff", action="store_true", help="print the changes as a diff; write nothing"
    )


def run(args: argparse.Namespace) -> int:
    from kbtool.commands.check import relative_paths

    config = load_project_config(args)
    paths = [p for p in relative_paths(config.root, args.paths) if p]
    fixes = [f for f in plan_fixes(load_wiki(config)) if _under(f.path, paths)]
    for fix in fixes:
        if args.diff:
            print(fix.diff(), end="")
        else:
            apply_fix(config.root, fix)
            for description in fix.descriptions:
                print(f"{fix.path}: fixed {description}")
    if args.diff:
        return 1 if fixes else 0
    remaining = [d for d in run_checks(load_wiki(config), paths=paths) if d.severity == "error"]
    print(
        f"{sum(len(f.descriptions) for f in fixes)} fixes in {len(fixes)} pages; "
        f"{len(remaining)} errors left for `kbtool check`"
    )
    return 1 if remaining else 0


def _under(path: str, paths: list[str]) -> bool:
    return not paths or any(path == p or path.startswith(p.rstrip("/") + "/") for p in paths)
