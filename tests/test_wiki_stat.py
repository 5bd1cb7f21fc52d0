"""What the disk says of a file a link leads to, with folders resolved once for many files."""

from __future__ import annotations

from pathlib import Path

from kbtool.link_status import Status, stat_target


def test_shared_folders_give_the_answers_of_resolving_each_path_alone(tmp_path: Path) -> None:
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (root / "sources" / "papers").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.pdf").write_bytes(b"%PDF")
    (root / "sources" / "papers" / "a.pdf").write_bytes(b"%PDF")
    (root / "sources" / "papers" / "folder").mkdir()
    (root / "sources" / "papers" / "out.pdf").symlink_to(outside / "secret.pdf")
    (root / "sources" / "papers" / "in.pdf").symlink_to("a.pdf")
    (root / "sources" / "elsewhere").symlink_to(outside, target_is_directory=True)
    (root / "sources" / "loop").symlink_to("loop")
    expected = {
        "sources/papers/a.pdf": Status.OK,
        "sources/papers/in.pdf": Status.OK,
        "sources/papers/missing.pdf": Status.MISSING,
        "sources/papers/folder": Status.DIRECTORY,
        "sources/papers/folder/": Status.DIRECTORY,
        "sources/papers/out.pdf": Status.OUTSIDE,
        "sources/elsewhere/secret.pdf": Status.OUTSIDE,
        "sources/elsewhere/missing.pdf": Status.OUTSIDE,
        "sources/loop": Status.MISSING,
        "missing/x.pdf": Status.MISSING,
    }
    real_folders: dict[str, str] = {}
    shared = {path: stat_target(str(root), path, real_folders) for path in expected}
    alone = {path: stat_target(str(root), path) for path in expected}
    assert shared == alone == expected
    assert len(real_folders) < len(expected)  # the folders were resolved once each
