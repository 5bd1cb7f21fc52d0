"""``kbtool mv SRC DST``: move a page, a file or a folder, and rewrite every link to it and
every relative link inside it, so that ``kbtool check`` finds nothing new afterwards."""

from __future__ import annotations

import argparse
import difflib
import os
import posixpath
import sys
from pathlib import Path

from kbtool.atomic import write_atomic
from kbtool.commands import load_project_config
from kbtool.config import WHOLE, Config
from kbtool.errors import KbtoolError, UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="SRC", help="the page, file or folder to move")
    parser.add_argument(
        "destination", metavar="DST", help="its new path (an existing folder: moved into it)"
    )
    parser.add_argument(
        "-n", "--dry-run", action="store_true", help="print the changes as a diff; move nothing"
    )
    parser.add_argument(
        "--keep-code-paths",
        action="store_true",
        help="leave repository paths written in inline code (`wiki/a.md`) as they are",
    )


def _inside(root: Path, path: str, what: str) -> str:
    """``path`` (as given on the command line) as a repository-relative POSIX path."""
    full = Path(os.path.abspath(path))
    try:
        relative = full.relative_to(root).as_posix()
    except ValueError:
        raise UsageError(f"{what} {path} is not inside the repository {root}") from None
    if relative in ("", "."):
        raise UsageError(f"{what} {path} is the repository itself")
    return relative


#: What a wikilink's path cannot hold (it ends the path or the link).
_NOT_IN_LINKS = "#^[]|"


def _obsidian(config: Config) -> bool:
    """Whether the wiki is an Obsidian vault, whose links name files as Obsidian does."""
    return config.flavor == "obsidian" or config.wiki == WHOLE


def _case_twin(root: Path, source: str, destination: str) -> str | None:
    """A file or folder beside ``destination`` whose name is the same in another case (but
    ``source`` itself, renamed to another case)."""
    folder, name = posixpath.split(destination)
    try:
        entries = os.listdir(root / folder) if folder else os.listdir(root)
    except OSError:
        return None  # a new folder: nothing there yet
    for entry in entries:
        other = posixpath.join(folder, entry)
        if entry.lower() == name.lower() and entry != name and other != source:
            return other
    return None


def _left_out_folder(config: Config, destination: str) -> str | None:
    """The hidden folder (``.obsidian/``, ``.git/``), kbtool's cache or site folder, or the
    templates folder of Obsidian's Templates plugin, that ``destination`` would be in (a
    page there would be none); None when it is in none."""
    from kbtool.discover import left_out

    folders = left_out(config)
    parts = destination.split("/")
    for end in range(1, len(parts) + 1):
        folder = "/".join(parts[:end])
        if parts[end - 1].startswith(".") or folder in folders:
            return folder + ("/" if end < len(parts) else "")
    return None


def run(args: argparse.Namespace) -> int:
    from kbtool.edits.moves import moved_path, plan_move
    from kbtool.edits.spans import StaleEdit, apply_edits
    from kbtool.stages.load import load_wiki

    config = load_project_config(args)
    root = config.root
    source = _inside(root, args.source, "SRC")
    destination = _inside(root, args.destination, "DST")
    if os.path.islink(root / source) or not (root / source).exists():
        raise UsageError(f"{args.source}: no such file or folder (symbolic links are not moved)")
    if (root / destination).is_dir() and not (root / source).is_dir():
        destination = posixpath.join(destination, posixpath.basename(source))
    if (root / destination).exists() or os.path.islink(root / destination):
        raise UsageError(f"{destination} exists; kbtool mv never overwrites")
    if destination == source or destination.startswith(source + "/"):
        raise UsageError(f"cannot move {source} into itself")
    if _obsidian(config) and any(c in posixpath.basename(destination) for c in _NOT_IN_LINKS):
        raise UsageError(
            f"{destination}: a vault's links cannot name a file with any of "
            f"{' '.join(_NOT_IN_LINKS)} in its name (Obsidian says so too)"
        )
    twin = _case_twin(root, source, destination)
    if twin is not None:
        raise UsageError(
            f"{destination}: {twin} has its name in another case (one file on some systems, "
            "one name for Obsidian); kbtool mv never overwrites"
        )
    refused = _left_out_folder(config, destination)
    if refused is not None:
        raise UsageError(
            f"{destination}: {refused} holds no page (a hidden folder, kbtool's own, or "
            "Obsidian's templates); kbtool mv never moves there"
        )

    wiki = load_wiki(config)
    plan = plan_move(
        wiki,
        {source: destination},
        lambda path: (root / path).read_bytes(),
        code_paths=not args.keep_code_paths,
    )
    changed: dict[str, tuple[bytes, bytes]] = {}
    try:
        for path, edits in sorted(plan.edits.items()):
            before = (root / path).read_bytes()
            changed[path] = (before, apply_edits(before, edits))
    except (OSError, StaleEdit) as error:
        raise KbtoolError(f"cannot rewrite {path}: {error}") from None
    for problem in plan.problems:
        print(f"kbtool mv: warning: {problem}", file=sys.stderr)
    links = sum(len(edits) for edits in plan.edits.values())
    if args.dry_run:
        print(f"rename {source} -> {destination}")
        for path, (before, after) in changed.items():
            new_path = moved_path(plan.moves, path) or path
            sys.stdout.write(_diff(path, new_path, before, after))
        print(f"{links} links in {len(changed)} files would be rewritten", file=sys.stderr)
        return 0
    try:
        for path, (_, after) in changed.items():
            full = root / path
            mode = full.stat().st_mode & 0o7777
            write_atomic(full, after)
            os.chmod(full, mode)  # the new file was made private; give it the old one's mode
        (root / destination).parent.mkdir(parents=True, exist_ok=True)
        os.rename(root / source, root / destination)
    except OSError as error:
        raise KbtoolError(f"cannot move {source}: {error}") from None
    print(f"moved {source} -> {destination}; {links} links rewritten in {len(changed)} files")
    return 0


def _diff(old_path: str, new_path: str, before: bytes, after: bytes) -> str:
    old = before.decode("utf-8", "replace").splitlines(keepends=True)
    new = after.decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(old, new, fromfile=f"a/{old_path}", tofile=f"b/{new_path}")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
