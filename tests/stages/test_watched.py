"""A build told what a watcher saw (``kbtool serve``) asks the disk only about the files
links lead to that the watcher could have seen change, and about every file it does not watch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool import obsidian_links
from kbtool.config import load_config
from kbtool.reuse.values import Reuse
from kbtool.stages.pipeline import keep_warm
from kbtool.stages.scan import scan
from kbtool.stages.site import build_site
from kbtool.stages.watched import Watched

PYPROJECT = """[tool.kbtool]
language = "en"
search = false
severity = { KB2 = "warning", KB3 = "off", KB510 = "off" }
"""


def _page(images: list[str], line: str = "") -> str:
    body = "\n".join(f"![figure]({image})" for image in images)
    return (
        "---\ntype: concept\nsummary: A page.\nupdated: 2020-01-01\ntags: []\n---\n"
        f"# A page\n\n{body}\n{line}\n"
    )


def _wiki(root: Path) -> Path:
    (root / "wiki").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    page = root / "wiki" / "a.md"
    page.write_text(_page(["figure.png", "../images/outside.png"]))
    (root / "wiki" / "b.md").write_text(_page([]))
    return page


def _missing(report: object) -> set[str]:
    return {d.message for d in report.diagnostics if "does not exist" in d.message}  # type: ignore[attr-defined]


def _saved(root: Path, kept: Reuse, changed: list[Path]) -> set[str]:
    """A rebuild after ``b.md`` was saved and the watcher reported it and ``changed``."""
    other = root / "wiki" / "b.md"
    other.write_text(other.read_text() + "More.\n")
    folders = [str(root / "wiki")]
    seen = Watched.of(str(root), folders, [], [str(other), *map(str, changed)])
    return _missing(build_site(load_config(root), jobs=1, reuse=kept, watched=seen))


def test_a_file_the_watcher_reported_is_looked_at(tmp_path: Path) -> None:
    _wiki(tmp_path)
    kept = Reuse()
    assert len(_missing(build_site(load_config(tmp_path), jobs=1, reuse=kept))) == 2
    figure = tmp_path / "wiki" / "figure.png"
    figure.write_bytes(b"\x89PNG")
    found = _saved(tmp_path, kept, [figure])
    assert len(found) == 1 and not any("figure.png" in m for m in found)
    figure.unlink()
    assert len(_saved(tmp_path, kept, [figure])) == 2


def test_a_file_outside_the_watched_folders_is_always_looked_at(tmp_path: Path) -> None:
    _wiki(tmp_path)
    kept = Reuse()
    build_site(load_config(tmp_path), jobs=1, reuse=kept)
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "outside.png").write_bytes(b"\x89PNG")
    found = _saved(tmp_path, kept, [])  # not watched: not reported
    assert len(found) == 1 and not any("outside.png" in m for m in found)


def test_a_file_the_watcher_did_not_report_is_taken_as_stored(tmp_path: Path) -> None:
    _wiki(tmp_path)
    kept = Reuse()
    build_site(load_config(tmp_path), jobs=1, reuse=kept)
    (tmp_path / "wiki" / "figure.png").write_bytes(b"\x89PNG")
    # The watcher always reports such a file; unreported, its stored status stands.
    assert any("figure.png" in m for m in _saved(tmp_path, kept, []))
    # A build that was not told what changed looks at every file.
    assert not any("figure.png" in m for m in _missing(build_site(load_config(tmp_path), jobs=1)))


def test_a_folder_above_a_file_reported_counts_as_its_change() -> None:
    watched = Watched.of("/r", ["/r/wiki", "/r/sources"], ["/r/wiki/site"], ["/r/wiki/img"])
    assert watched.unchanged("wiki/other.png")
    assert not watched.unchanged("wiki/img")
    assert not watched.unchanged("wiki/img/a.png")
    assert watched.unchanged("wiki/imgs/a.png")
    assert not watched.unchanged("images/a.png")  # not watched
    assert not watched.unchanged("wiki/../images/a.png")
    assert not watched.unchanged("wiki/site/a.png")  # ignored by the watcher


def test_a_vault_watched_at_its_root_counts_every_file_under_it_as_watched() -> None:
    watched = Watched.of("/r", ["/r"], ["/r/site", "/r/.kbtool"], ["/r/Notes/img"])
    assert watched.unchanged("Notes/other.png") and watched.unchanged("a.png")
    assert not watched.unchanged("Notes/img/a.png")
    assert not watched.unchanged("site/a.png")  # ignored by the watcher
    assert not watched.unchanged("../a.png")
    assert not Watched.of("/r", ["/rx"], [], []).unchanged("a.png")  # a sibling, not the root


def test_a_file_that_appears_after_a_build_that_did_not_look_at_it_is_noticed(
    tmp_path: Path,
) -> None:
    _wiki(tmp_path)
    build_site(load_config(tmp_path), jobs=1)
    other = tmp_path / "wiki" / "b.md"
    other.write_text(other.read_text() + "More.\n")
    build_site(load_config(tmp_path), jobs=1)  # checks b.md again, not a.md
    (tmp_path / "wiki" / "figure.png").write_bytes(b"\x89PNG")
    assert not any("figure.png" in m for m in _missing(build_site(load_config(tmp_path), jobs=1)))


VAULT = """wiki = "."
flavor = "obsidian"
search = false
[severity]
KB101 = "off"
KB209 = "warning"
"""


def _unmatched(report: object) -> set[str]:
    return {d.message for d in report.diagnostics if "matches no" in d.message}  # type: ignore[attr-defined]


def _vault_save(root: Path, kept: Reuse, reported: list[str]) -> set[str]:
    """A vault rebuilt after ``Note.md`` was saved and the watcher reported ``reported``."""
    note = root / "Note.md"
    note.write_text(note.read_text() + "More.\n")
    seen = Watched.of(str(root), [str(root)], [], [str(root / p) for p in reported])
    return _unmatched(build_site(load_config(root), jobs=1, reuse=kept, watched=seen))


def test_a_vault_walks_its_files_again_only_when_a_file_not_a_note_came(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "kbtool.toml").write_text(VAULT)
    (tmp_path / "Note.md").write_text("# Note\n\n![[pic.png]]\n")
    walks: list[str] = []
    real = obsidian_links.files_by_name
    monkeypatch.setattr(
        obsidian_links, "files_by_name", lambda *a: walks.append("walk") or real(*a)
    )
    kept = Reuse()
    assert _unmatched(build_site(load_config(tmp_path), jobs=1, reuse=kept))
    assert _vault_save(tmp_path, kept, ["Note.md", ".obsidian/workspace.json"])
    assert walks == ["walk"]  # only notes changed: the files by name as they were
    (tmp_path / "Images").mkdir()
    (tmp_path / "Images" / "pic.png").write_bytes(b"\x89PNG")
    assert not _vault_save(tmp_path, kept, ["Note.md", "Images"])
    assert walks == ["walk", "walk"]
    (tmp_path / "Other.md").write_text("# Other\n")
    (tmp_path / "Other.md").unlink()  # a note gone: it may have been a folder of files
    _vault_save(tmp_path, kept, ["Other.md"])
    assert len(walks) == 3


def test_a_session_reads_a_vaults_files_ahead_of_its_first_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "kbtool.toml").write_text(VAULT)
    (tmp_path / "Note.md").write_text("# Note\n\n![[pic.png]]\n")
    (tmp_path / "pic.png").write_bytes(b"\x89PNG")
    build_site(load_config(tmp_path), jobs=1)
    walks: list[str] = []
    real = obsidian_links.files_by_name
    monkeypatch.setattr(
        obsidian_links, "files_by_name", lambda *a: walks.append("walk") or real(*a)
    )
    kept = Reuse()  # a new serve: the site was up to date, nothing was read
    keep_warm(load_config(tmp_path), kept, scan(load_config(tmp_path)))
    assert walks == ["walk"]  # ahead, while it serves
    assert not _vault_save(tmp_path, kept, ["Note.md"])
    assert walks == ["walk"]  # the first save walked nothing
