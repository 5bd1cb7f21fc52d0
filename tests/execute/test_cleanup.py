"""Removing a page's folder after its cells ran: everything inside goes, even where a cell took
write permission away, and the folder that holds it (the shared temporary folder) is never
changed."""

from __future__ import annotations

import stat
from pathlib import Path

from kbtool.execute.child import remove_tree


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_folder_gone_already_leaves_the_folder_around_it_alone(tmp_path: Path) -> None:
    holder = tmp_path / "tmp"
    holder.mkdir()
    holder.chmod(0o1777)
    remove_tree(str(holder / "kbtool-page-gone"))  # the other process removed it first
    assert _mode(holder) == 0o1777


def test_a_tree_with_a_locked_folder_is_removed(tmp_path: Path) -> None:
    holder = tmp_path / "tmp"
    locked = holder / "kbtool-page-x" / "locked"
    locked.mkdir(parents=True)
    (locked / "data.txt").write_text("x")
    locked.chmod(0o500)
    holder.chmod(0o1777)
    remove_tree(str(holder / "kbtool-page-x"))
    assert not (holder / "kbtool-page-x").exists()
    assert _mode(holder) == 0o1777
