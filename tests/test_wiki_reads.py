"""The facts view: what checking a page read of other pages is recorded by resolution and the
hints as they read it, not listed by the rules; an incremental check compares exactly those."""

from __future__ import annotations

from pathlib import Path

import pytest

import kbtool.wiki
from kbtool.checks import run_checks
from kbtool.config import load_config
from kbtool.stages.load import load_wiki

HEAD = "---\ntype: concept\nsummary: s\nupdated: 2020-01-01\n---\n"


def _wiki(root: Path, body: str) -> Path:
    (root / "wiki" / "notes").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.kbtool]\nignore = ["KB301", "KB303"]\n')
    (root / "wiki" / "a.md").write_text(HEAD + f"# A\n\n{body}\n")
    (root / "wiki" / "b.md").write_text(HEAD + "# Bee\n\n## Part\n")
    (root / "wiki" / "notes" / "attention.md").write_text(HEAD + "# Attention\n")
    return root


def _reads(root: Path) -> set[str]:
    wiki = load_wiki(load_config(root), jobs=1, use_store=False)
    run_checks(wiki)
    return wiki.reads("wiki/a.md")


def test_a_link_to_a_page_reads_that_page_and_nothing_else(tmp_path: Path) -> None:
    assert _reads(_wiki(tmp_path, "[b](b.md#part) and [web](https://example.com)")) == {
        "path:wiki/b.md"
    }


def test_a_link_to_a_file_reads_what_the_disk_says_of_it(tmp_path: Path) -> None:
    root = _wiki(tmp_path, "![figure](figure.png)")
    (root / "wiki" / "figure.png").write_bytes(b"\x89PNG")
    assert _reads(root) == {"path:wiki/figure.png", "stat:wiki/figure.png"}


def test_a_broken_link_reads_what_its_hint_compared(tmp_path: Path) -> None:
    found = _reads(_wiki(tmp_path, "[x](atention.md)"))
    # the page there, the disk, the pages of that stem and the names there that start alike
    assert found == {
        "path:wiki/atention.md",
        "stat:wiki/atention.md",
        "stem:atention",
        "near:wiki/at",
    }


def test_a_wikilink_reads_the_stem_and_title_it_names_and_the_page_it_found(tmp_path: Path) -> None:
    assert _reads(_wiki(tmp_path, "[[Bee]]")) == {"stem:bee", "title:bee", "path:wiki/b.md"}
    missing = _reads(_wiki(tmp_path / "other", "[[Nobody]]"))
    assert missing == {"stem:nobody", "title:nobody", "stems"}  # the hint compares every stem


def test_indexes_made_ahead_are_the_ones_resolution_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki = load_wiki(load_config(_wiki(tmp_path, "[[Attention]]")), jobs=1, use_store=False)
    wiki.make_indexes()

    def none_made_again(*_: object) -> None:
        raise AssertionError("an index made again")

    monkeypatch.setattr(kbtool.wiki, "_grouped", none_made_again)
    monkeypatch.setattr(wiki, "_by_folder", none_made_again)
    monkeypatch.setattr(wiki, "_by_folder_start", none_made_again)
    monkeypatch.setattr(wiki, "_by_basic", none_made_again)
    run_checks(wiki)  # resolves [[Attention]] by title, hints by stem and folder
    assert [p.path for p in wiki.pages_with_stem("x", "attention")] == ["wiki/notes/attention.md"]
    assert wiki.stems_in("x", "wiki", "b")[0] == {"a": "wiki/a.md", "b": "wiki/b.md"}
