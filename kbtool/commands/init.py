"""``kbtool init``: configure kbtool for an existing wiki from what it finds there."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from pathlib import Path

from kbtool.adopt.pyproject import (
    PyprojectError,
    apply_proposal,
    apply_to_kbtool_toml,
    check_toml,
)
from kbtool.commands import add_jobs_argument
from kbtool.config import KBTOOL_TOML, WHOLE, Config, config_from_table, find_root
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
        "-y",
        "--yes",
        action="store_true",
        help="write the settings (kbtool.toml or pyproject.toml) without asking",
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
    configured = (found / "pyproject.toml").is_file() or (found / KBTOOL_TOML).is_file()
    return found if configured else Path.cwd().resolve()


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8") if path.is_file() else ""
    except (OSError, UnicodeDecodeError) as error:
        raise PyprojectError(f"{path.name}: cannot read: {error}") from None


def _current(root: Path, text: str, name: str) -> Config:
    import tomllib

    if name == KBTOOL_TOML:
        table: object = tomllib.loads(text)
        where = KBTOOL_TOML
    else:
        tool = tomllib.loads(text).get("tool", {}) if text else {}
        table = tool.get("kbtool", {}) if isinstance(tool, dict) else None
        where = "pyproject.toml [tool.kbtool]"
    if not isinstance(table, dict):
        raise UsageError("pyproject.toml: [tool.kbtool] is not a table; nothing was changed")
    try:
        return config_from_table(root, table, where=where)
    except ConfigError as error:  # A half-valid table: init must not guess around it.
        error.problems.append("fix these first, then run kbtool init again; nothing was changed")
        raise


def _settings_file(root: Path, pyproject: str) -> str:
    """Where the settings are read from now: ``kbtool.toml`` if it exists (both configuring
    kbtool is refused), else ``pyproject.toml``."""
    if not (root / KBTOOL_TOML).is_file():
        return "pyproject.toml"
    if "kbtool" in _tool_tables(pyproject):
        raise UsageError(
            f"both {KBTOOL_TOML} and pyproject.toml [tool.kbtool] configure kbtool: keep one "
            "of them; nothing was changed"
        )
    return KBTOOL_TOML


def _tool_tables(text: str) -> dict[str, object]:
    import tomllib

    tool = tomllib.loads(text).get("tool") if text else None
    return tool if isinstance(tool, dict) else {}


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
    pyproject = _read(root / "pyproject.toml")
    check_toml(pyproject)  # before anything else: a broken file is refused untouched
    name = _settings_file(root, pyproject)
    before = pyproject if name == "pyproject.toml" else _read(root / name)
    check_toml(before, name)
    proposal = analyse(_current(root, before, name), share=args.share, jobs=args.jobs)
    # A vault is not a Python project: its settings go to a file of their own, unless it
    # has a pyproject.toml already.
    if not (root / name).is_file() and proposal.values.get("wiki") == WHOLE:
        name, before = KBTOOL_TOML, ""
    print("kbtool init: what it found and chose")
    print(describe(proposal))
    write = apply_to_kbtool_toml if name == KBTOOL_TOML else apply_proposal
    after = write(before, proposal)
    if after == before:
        print(f"{name} already says this: nothing to change")
        return 0
    diff = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        name if before else "/dev/null",
        name,
    )
    print()
    sys.stdout.writelines(line if line.endswith("\n") else line + "\n" for line in diff)
    if not args.yes and not _confirm(f"Write these changes to {name}? [y/N] "):
        how = "" if sys.stdin.isatty() else " (no terminal to ask on: use --yes)"
        print(f"nothing written{how}")
        return 0
    path = root / name
    _write(path, after)
    what = "the settings" if name == KBTOOL_TOML else "[tool.kbtool]"
    print(f"wrote {what} to {path.name}; `kbtool check` uses it from now on")
    return 0


def _write(path: Path, text: str) -> None:
    """Replace the file in one step, keeping its permissions (a new file gets 0644)."""
    from kbtool.atomic import write_atomic

    try:
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
        write_atomic(path, text.encode("utf-8"))
        os.chmod(path, mode)
    except OSError as error:
        raise PyprojectError(f"{path.name}: cannot write: {error.strerror}") from None
