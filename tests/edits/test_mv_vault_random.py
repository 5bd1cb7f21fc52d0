"""Random moves of the fixture vaults' notes, attachments and folders, to folders and names
chosen to collide (names other notes have, folders where a note of that name is): after
each, ``kbtool check`` reports no link problem that it did not report before."""

from __future__ import annotations

import json
import posixpath
import random
import shutil
from collections import Counter
from pathlib import Path

import pytest

from kbtool.edits.moves import moved_path

FIXTURES = Path(__file__).parents[1] / "fixtures"
FOLDERS = ["", "Notes", "Archive/2023", "Projects", "New", "Notes/Deep", "概念", "方法"]
NAMES = ["Plan", "Home", "Headings", "Deep note", "Links", "Renamed", "Transformer", "注意力机制"]


def _problems(run_kbtool, root: Path) -> Counter[tuple[str, int, str]]:
    """Each link problem (KB2xx) as (path, line, code)."""
    result = run_kbtool("-C", root, "check", "--format", "json")
    found = json.loads(result.out)["diagnostics"]
    return Counter((d["path"], d["line"], d["code"]) for d in found if d["code"][:3] == "KB2")


def _movable(root: Path) -> list[str]:
    """Notes, attachments and folders, none hidden and none of the templates."""
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith((".", "Templates", "模板")) or "/." in rel or rel == "kbtool.toml":
            continue
        found.append(rel)
    return found


def _destination(chooser: random.Random, root: Path, source: str) -> str | None:
    folder = chooser.choice(FOLDERS)
    name = posixpath.basename(source)
    if chooser.random() < 0.5 and not (root / source).is_dir():
        stem, dot, extension = name.rpartition(".")
        name = chooser.choice(NAMES) + dot + extension if dot else chooser.choice(NAMES)
    destination = posixpath.join(folder, name) if folder else name
    taken = (
        {p.name.lower() for p in (root / folder).iterdir()} if (root / folder).is_dir() else set()
    )
    if name.lower() in taken or destination == source or destination.startswith(source + "/"):
        return None
    return destination


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("vault", ["vault-en", "vault-zh"])
def test_random_moves_add_no_link_problem(
    tmp_path: Path, run_kbtool, vault: str, seed: int
) -> None:
    root = Path(shutil.copytree(FIXTURES / vault, tmp_path / "vault"))
    (root / "expected-diagnostics.txt").unlink()
    assert run_kbtool("-C", root, "init", "--yes").code == 0
    chooser = random.Random(seed)
    problems = _problems(run_kbtool, root)
    done = 0
    while done < 3:
        source = chooser.choice(_movable(root))
        destination = _destination(chooser, root, source)
        if destination is None:
            continue
        result = run_kbtool("-C", root, "mv", root / source, root / destination)
        assert result.code == 0, (source, destination, result.err)
        assert "warning" not in result.err, result.err
        moves = {source: destination}
        expected = Counter(
            {(moved_path(moves, p) or p, n, c): k for (p, n, c), k in problems.items()}
        )
        problems = _problems(run_kbtool, root)
        assert problems - expected == Counter(), (seed, source, destination)
        done += 1
