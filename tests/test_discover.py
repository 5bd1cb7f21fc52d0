"""wiki/ + sources/ -> the sorted Markdown files, symlinks followed only inside the repository."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kbtool.config import load_config
from kbtool.discover import discover
from kbtool.errors import ConfigError


def found(root: Path) -> list[tuple[str, str]]:
    pages, _ = discover(load_config(root))
    return [(item.path, item.kind) for item in pages]


def unreadable(root: Path) -> list[tuple[str, str]]:
    _, bad = discover(load_config(root))
    return [(item.path, item.problem.code) for item in bad]


def test_pages_sorted_with_their_kind(make_wiki) -> None:
    root = make_wiki(
        {
            "wiki/z.md": "",
            "wiki/a/b.md": "",
            "wiki/注意力 机制.md": "",
            "wiki/notes.txt": "",
            "wiki/.hidden.md": "",
            "wiki/.drafts/x.md": "",
            "wiki/image.MD": "",
            "sources/papers/p.md": "",
            "elsewhere/e.md": "",
            "README.md": "",
        }
    )
    assert found(root) == [
        ("sources/papers/p.md", "source"),
        ("wiki/a/b.md", "wiki"),
        ("wiki/z.md", "wiki"),
        ("wiki/注意力 机制.md", "wiki"),
    ]


def test_configured_folders_and_excludes(make_wiki) -> None:
    root = make_wiki(
        {
            "pyproject.toml": (
                '[tool.kbtool]\nwiki = "docs/wiki"\nsources = "archive"\n'
                'exclude = ["docs/wiki/drafts/*", "*/tmp-*.md"]\n'
            ),
            "docs/wiki/a.md": "",
            "docs/wiki/drafts/d.md": "",
            "docs/wiki/tmp-1.md": "",
            "archive/s.md": "",
            "wiki/ignored.md": "",
        }
    )
    assert found(root) == [("archive/s.md", "source"), ("docs/wiki/a.md", "wiki")]


def test_missing_sources_folder_is_fine_missing_wiki_folder_is_not(make_wiki) -> None:
    root = make_wiki({"wiki/a.md": ""})
    assert found(root) == [("wiki/a.md", "wiki")]
    (root / "pyproject.toml").write_text('[tool.kbtool]\nwiki = "pages"\n')
    with pytest.raises(ConfigError, match="wiki folder 'pages' does not exist"):
        discover(load_config(root))


def test_a_symlinked_alias_folder_does_not_take_the_pages_paths(make_wiki) -> None:
    # "alias" sorts before "concepts": walked first, it used to claim the pages as
    # wiki/alias/a.md, and wiki/concepts/ was then skipped as already visited.
    root = make_wiki({"wiki/concepts/a.md": "", "wiki/concepts/sub/b.md": ""})
    (root / "wiki/alias").symlink_to("concepts", target_is_directory=True)
    (root / "wiki/concepts/sub/alias2").symlink_to("..", target_is_directory=True)
    assert found(root) == [("wiki/concepts/a.md", "wiki"), ("wiki/concepts/sub/b.md", "wiki")]
    assert unreadable(root) == [("wiki/concepts/sub/alias2", "KB004")]


def test_a_symlinked_folder_inside_the_repository_is_walked(make_wiki) -> None:
    root = make_wiki({"wiki/a.md": "", "shared/pages/s.md": "", "shared/pages/deeper/t.md": ""})
    (root / "wiki/shared").symlink_to("../shared/pages", target_is_directory=True)
    assert found(root) == [
        ("wiki/a.md", "wiki"),
        ("wiki/shared/deeper/t.md", "wiki"),
        ("wiki/shared/s.md", "wiki"),
    ]
    assert unreadable(root) == []


def test_symlinked_files(make_wiki, tmp_path: Path) -> None:
    root = make_wiki({"wiki/a.md": "", "other/b.md": ""})
    outside = tmp_path / "outside.md"
    outside.write_text("")
    wiki = root / "wiki"
    (wiki / "inside.md").symlink_to("../other/b.md")
    (wiki / "out.md").symlink_to(outside)
    (wiki / "loop.md").symlink_to("loop.md")
    (wiki / "dangling.md").symlink_to("nothing.md")
    (wiki / "dangling-dir").symlink_to("nothing", target_is_directory=True)
    assert found(root) == [("wiki/a.md", "wiki"), ("wiki/inside.md", "wiki")]
    # A dangling link not named .md is neither a page nor a folder: nothing to say about it.
    assert unreadable(root) == [
        ("wiki/dangling.md", "KB004"),
        ("wiki/loop.md", "KB004"),
        ("wiki/out.md", "KB003"),
    ]


def test_a_wiki_folder_that_is_a_symlink_out_of_the_repository(make_wiki, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.md").write_text("# secret\n")
    root = make_wiki({"sources/s.md": ""})
    (root / "wiki").symlink_to(elsewhere, target_is_directory=True)
    assert found(root) == [("sources/s.md", "source")]
    assert unreadable(root) == [("wiki", "KB003")]


def test_a_wiki_folder_symlinked_inside_the_repository(make_wiki) -> None:
    root = make_wiki({"content/wiki/a.md": ""})
    (root / "wiki").symlink_to("content/wiki", target_is_directory=True)
    assert found(root) == [("wiki/a.md", "wiki")]


def test_a_name_that_is_not_utf8_is_reported_not_read(make_wiki, page, run_kbtool) -> None:
    """A file or folder whose name is not UTF-8 (which the store, the site and a terminal
    cannot take) is one KB004 with the name shown printably; the other pages are checked."""
    root = make_wiki({"wiki/a.md": page("# A\n")})
    wiki = os.fsencode(root / "wiki")
    with open(wiki + b"/b\xff.md", "wb") as f:
        f.write(page("# B\n").encode())
    os.mkdir(wiki + b"/folder\xfe")
    with open(wiki + b"/folder\xfe/c.md", "wb") as f:
        f.write(page("# C\n").encode())
    assert found(root) == [("wiki/a.md", "wiki")]
    assert unreadable(root) == [("wiki/b\\xff.md", "KB004"), ("wiki/folder\\xfe", "KB004")]
    result = run_kbtool("-C", root, "check")
    assert result.code == 1
    assert "wiki/b\\xff.md:1:1: KB004 error its name is not UTF-8" in result.out
    assert "1 page checked" in result.out
