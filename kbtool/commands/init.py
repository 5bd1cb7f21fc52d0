"""``kbtool init``: configure kbtool for an existing wiki from what it finds there."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from pathlib import Path

from kbtool.adopt.pyproject import PyprojectError, apply_proposal, check_toml
from kbtool.commands import add_jobs_argument
from kbtool.config import Config, config_from_table, find_root
from kbtool.errors import ConfigError, UsageError


def _share(text: str) -> float:
    try:
        value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a share of pages: {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"a share is between 0 and 1 (or 0% and 100%): {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from kbtool.adopt import DEFAULT_SHARE

    parser.add_argument(
        "-y", "--yes", action="store_true", help="write pyproject.toml without asking"
    )
    parser.add_argument(
        "--share",
        type=_share,
        default=DEFAULT_SHARE,
        metavar="S",
        help="a rule that fires on more than this share of pages is turned down "
        f"(default {DEFAULT_SHARE:g}; 0.3 or 30%%)",
    )
    add_jobs_argument(parser)


def _root(args: argparse.Namespace) -> Path:
    # init may be the first kbtool command in a repository without pyproject.toml yet.
    if args.root:
        return Path(args.root).resolve()
    found = find_root(Path.cwd())
    return found if (found / "pyproject.toml").is_file() else Path.cwd().resolve()


def _current(root: Path, text: str) -> Config:
    import tomllib

    tool = tomllib.loads(text).get("tool", {}) if text else {}
    table = tool.get("kbtool", {}) if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        raise UsageError("pyproject.toml: [tool.kbtool] is not a table; nothing was changed")
    try:
        return config_from_table(root, table, where="pyproject.toml [tool.kbtool]")
    except ConfigError as error:  # A half-valid table: init must not guess around it.
        error.problems.append("fix these first, then run kbtool init again; nothing was changed")
        raise


def _confirm(question: str) -> bool:
    if not sys.stdin.isatty():
        return False
    try:
        return input(question).strip().lower() in ("y", "yes")
    except EOFError:
        return False


def run(args: argparse.Namespace) -> int:
    from kbtool.adopt import analyse, describe

    root = _root(args)
    if not root.is_dir():
        raise UsageError(f"{root}: no such folder")
    path = root / "pyproject.toml"
    try:
        before = path.read_text(encoding="utf-8") if path.is_file() else ""
    except (OSError, UnicodeDecodeError) as error:
        raise PyprojectError(f"pyproject.toml: cannot read: {error}") from None
    check_toml(before)  # before anything else: a broken file is refused untouched
    proposal = analyse(_current(root, before), share=args.share, jobs=args.jobs)
    print("kbtool init: what it found and chose")
    print(describe(proposal))
    after = apply_proposal(before, proposal)
    if after == before:
        print("pyproject.toml already says this: nothing to change")
        return 0
    diff = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        "pyproject.toml" if before else "/dev/null",
        "pyproject.toml",
    )
    print()
    sys.stdout.writelines(line if line.endswith("\n") else line + "\n" for line in diff)
    if not args.yes and not _confirm("Write these changes to pyproject.toml? [y/N] "):
        how = "" if sys.stdin.isatty() else " (no terminal to ask on: use --yes)"
        print(f"nothing written{how}")
        return 0
    _write(path, after)
    print(f"wrote [tool.kbtool] to {path.name}; `kbtool check` uses it from now on")
    return 0


def _write(path: Path, text: str) -> None:
    """Replace the file in one step, keeping its permissions (a new file gets 0644)."""
    from kbtool.atomic import write_atomic

    try:
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
        write_atomic(path, text.encode("utf-8"))
        os.chmod(path, mode)
    except OSError as error:
        raise PyprojectError(f"pyproject.toml: cannot write: {error.strerror}") from None
