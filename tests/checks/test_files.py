"""KB0xx files that cannot be read as Markdown, and KB401 cell options — through the checks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import kbtool.stages.scan
from kbtool.diagnostics import Diagnostic


def brief(diagnostics: list[Diagnostic]) -> list[str]:
    return [f"{d.path}:{d.line}:{d.col} {d.code}" for d in diagnostics]


@pytest.fixture
def root(make_wiki, page) -> Path:
    """A repository with one good page, ``wiki/good.md``."""
    return make_wiki({"wiki/good.md": page("# Good\n")})


def test_good_files_are_silent(root: Path, check_wiki, page) -> None:
    (root / "wiki/sub").mkdir()
    (root / "wiki/sub/linked.md").symlink_to("../good.md")  # a symlink inside the repository
    (root / "wiki/.hidden.md").write_bytes(b"\xff\x00 never read")  # hidden files are skipped
    (root / "wiki/notes.txt").write_bytes(b"\xff\x00 not markdown")  # only *.md is a page
    assert check_wiki(root, select=["KB0", "KB4"]) == []


def test_kb001_not_utf8_with_line_and_column(root: Path, check_wiki) -> None:
    # GBK bytes for "中文" on line 3, after "ab" (column 3).
    (root / "wiki/gbk.md").write_bytes(b"---\ntype: concept\nab\xd6\xd0\xce\xc4\n")
    (d,) = check_wiki(root, select=["KB0"])
    assert (d.path, d.line, d.col, d.code, d.severity) == ("wiki/gbk.md", 3, 3, "KB001", "error")
    assert "not valid UTF-8" in d.message


def test_kb002_binary(root: Path, check_wiki) -> None:
    (root / "wiki/image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    assert brief(check_wiki(root, select=["KB0"])) == ["wiki/image.md:1:1 KB002"]


def test_kb003_symlinks_out_of_the_repository(root: Path, check_wiki, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "page.md").write_text("# Outside\n", encoding="utf-8")
    (root / "wiki/out.md").symlink_to(outside / "page.md")
    (root / "wiki/outdir").symlink_to(outside, target_is_directory=True)
    (root / "wiki/relative-out.md").symlink_to("../../outside/page.md")
    diagnostics = check_wiki(root, select=["KB0"])
    assert brief(diagnostics) == [
        "wiki/out.md:1:1 KB003",
        "wiki/outdir:1:1 KB003",
        "wiki/relative-out.md:1:1 KB003",
    ]
    assert all("outside the repository" in d.message for d in diagnostics)


def test_kb004_symlink_loops_and_dangling_links(root: Path, check_wiki) -> None:
    wiki = root / "wiki"
    (wiki / "loop-a.md").symlink_to("loop-b.md")
    (wiki / "loop-b.md").symlink_to("loop-a.md")
    (wiki / "self.md").symlink_to("self.md")
    (wiki / "dangling.md").symlink_to("nothing-here.md")
    (wiki / "sub").mkdir()
    (wiki / "sub/up").symlink_to("..", target_is_directory=True)  # a folder loop
    diagnostics = check_wiki(root, select=["KB0"])
    assert brief(diagnostics) == [
        "wiki/dangling.md:1:1 KB004",
        "wiki/loop-a.md:1:1 KB004",
        "wiki/loop-b.md:1:1 KB004",
        "wiki/self.md:1:1 KB004",
        "wiki/sub/up:1:1 KB004",
    ]
    messages = [d.message for d in diagnostics]
    assert "does not exist" in messages[0]
    assert all("loop" in m for m in messages[1:])


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_kb004_unreadable_file(root: Path, check_wiki) -> None:
    locked = root / "wiki/locked.md"
    locked.write_text("# Locked\n", encoding="utf-8")
    locked.chmod(0)
    try:
        assert brief(check_wiki(root, select=["KB0"])) == ["wiki/locked.md:1:1 KB004"]
    finally:
        locked.chmod(0o644)


def test_kb401_unreadable_cell_options_at_the_fence(root: Path, check_wiki, page) -> None:
    body = (
        "# Cells\n\n```python tags=[\nx = 1\n```\n\n"
        "```python a=b\ny = 2\n```\n\n```python\nok = 3\n```\n"
    )
    (root / "wiki/cells.md").write_text(page(body), encoding="utf-8")
    diagnostics = check_wiki(root, select=["KB4"])
    # The body starts on line 6; the two bad fences are on lines 8 and 12.
    assert brief(diagnostics) == ["wiki/cells.md:8:1 KB401", "wiki/cells.md:12:1 KB401"]
    assert "tags=[" in diagnostics[0].message


def test_kb401_good_cell_options_are_silent(root: Path, check_wiki, page) -> None:
    body = (
        '```python tags=["skip-execution", "hide-input"] timeout=5\nx = 1\n```\n\n'
        '```python {"tags": ["raises-exception"]}\n1 / 0\n```\n\n'
        "```text {.weird}\nnot a cell\n```\n"
    )
    (root / "wiki/cells.md").write_text(page(body), encoding="utf-8")
    assert check_wiki(root, select=["KB4"]) == []


def test_kb004_a_file_that_cannot_be_read(root: Path, check_wiki, page, monkeypatch) -> None:
    # Running as root reads every file, so the failure is simulated: one read raises.
    (root / "wiki/locked.md").write_text(page(), encoding="utf-8")
    real = open

    def opening(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path).endswith("locked.md"):
            raise PermissionError(13, "Permission denied")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(kbtool.stages.scan, "open", opening, raising=False)
    diagnostics = check_wiki(root, select=["KB0"])
    assert brief(diagnostics) == ["wiki/locked.md:1:1 KB004"]
    assert "Permission denied" in diagnostics[0].message
