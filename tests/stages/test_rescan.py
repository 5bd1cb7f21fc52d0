"""The scan from a watcher's changed paths gives what a full scan gives, or asks for one."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from kbtool.config import Config, config_from_table
from kbtool.stages.rescan import rescan
from kbtool.stages.scan import Snapshot, scan


def _wiki(root: Path) -> Config:
    for path in ["wiki/a.md", "wiki/sub/b.md", "wiki/sub/c.md", "sources/s.md"]:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"# {path}\n")
    (root / "wiki/img.png").write_bytes(b"\x89PNG")
    (root / "pyproject.toml").write_text("[tool.kbtool]\n")
    return config_from_table(root, {"exclude": ["wiki/skip*"]})


def _same(a: Snapshot, b: Snapshot) -> None:
    assert [(f.path, f.kind, d, a.data(f.path)) for f, d in a.files] == [
        (f.path, f.kind, d, b.data(f.path)) for f, d in b.files
    ]
    assert a.unreadable == b.unreadable
    # The lookups a rescan patches from the last snapshot's: the same, in the same order.
    assert list(a.digests().items()) == list(b.digests().items())
    assert list(a.by_path().items()) == list(b.by_path().items())


Edit = Callable[[Path], list[str]]


def _modify(root: Path) -> list[str]:
    (root / "wiki/a.md").write_text("# A again\n")
    return ["wiki/a.md"]


def _add_and_remove(root: Path) -> list[str]:
    (root / "wiki/sub/new.md").write_text("# new\n")
    (root / "sources/t.md").write_text("# t\n")
    (root / "wiki/sub/b.md").unlink()
    return ["wiki/sub/new.md", "sources/t.md", "wiki/sub/b.md"]


def _rename(root: Path) -> list[str]:
    os.rename(root / "wiki/sub/c.md", root / "wiki/d.md")
    return ["wiki/sub/c.md", "wiki/d.md"]


def _not_pages(root: Path) -> list[str]:
    (root / "wiki/img.png").write_bytes(b"\x89PNG2")
    (root / "wiki/.hidden.md").write_text("# hidden\n")
    (root / "wiki/skipped.md").write_text("# excluded\n")
    (root / "wiki/notes.txt").write_text("text\n")
    (root / "site").mkdir()
    (root / "site/x.md").write_text("# output\n")
    return ["wiki/img.png", "wiki/.hidden.md", "wiki/skipped.md", "wiki/notes.txt", "site/x.md"]


def _modified_then_removed(root: Path) -> list[str]:
    (root / "wiki/a.md").unlink()  # a batch names it once, whatever happened in between
    return ["wiki/a.md", "wiki/a.md"]


@pytest.mark.parametrize(
    "edit", [_modify, _add_and_remove, _rename, _not_pages, _modified_then_removed]
)
def test_a_rescan_equals_a_full_scan(tmp_path: Path, edit: Edit) -> None:
    config = _wiki(tmp_path)
    before = scan(config)
    changed = [str(tmp_path / path) for path in edit(tmp_path)]
    after = rescan(config, before, changed)
    assert after is not None
    _same(after, scan(config))


def _settings(root: Path) -> list[str]:
    (root / "pyproject.toml").write_text("[tool.kbtool]\nexclude = ['wiki/a.md']\n")
    return ["pyproject.toml"]


def _folder_added(root: Path) -> list[str]:
    (root / "wiki/more").mkdir()
    (root / "wiki/more/e.md").write_text("# e\n")
    return ["wiki/more"]  # a folder moved in: the watcher may name only the folder


def _folder_removed(root: Path) -> list[str]:
    shutil.rmtree(root / "wiki/sub")
    return ["wiki/sub"]


def _symlink(root: Path) -> list[str]:
    (root / "wiki/link.md").symlink_to(root / "wiki/a.md")
    return ["wiki/link.md"]


@pytest.mark.parametrize("edit", [_settings, _folder_added, _folder_removed, _symlink])
def test_what_only_a_full_scan_can_tell_asks_for_one(tmp_path: Path, edit: Edit) -> None:
    config = _wiki(tmp_path)
    before = scan(config)
    changed = [str(tmp_path / path) for path in edit(tmp_path)]
    assert rescan(config, before, changed) is None


def test_a_name_that_is_not_utf8_asks_for_a_full_scan(tmp_path: Path) -> None:
    """The full scan reports it (KB004); the rescan never puts it among the pages."""
    config = _wiki(tmp_path)
    before = scan(config)
    bad = os.fsencode(tmp_path / "wiki") + b"/d\xff.md"
    with open(bad, "wb") as f:
        f.write(b"# D\n")
    assert rescan(config, before, [os.fsdecode(bad)]) is None
    assert [u.problem.code for u in scan(config).unreadable] == ["KB004"]
