"""check, in process: the wiki, a page, a draft; a draft's errors elsewhere; the session as
the disk is again after a draft."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.agent.checking import check
from kbtool.agent.errors import Refused
from kbtool.agent.state import AgentWiki, Permissions
from kbtool.agent.writes import edit_section, write_page
from kbtool.config import load_config
from kbtool.parse.digest import content_digest
from tests.agent.support import ATTENTION, small_wiki

BROKEN = {"wiki/notes/bad.md": "---\ntype: concept\n---\n# Bad\n\n[x](nowhere.md)\n"}


def _wiki(tmp_path: Path, write: bool = False) -> AgentWiki:
    root = small_wiki(tmp_path / "repo", BROKEN)
    return AgentWiki(load_config(root), Permissions(write=write))


def test_the_wiki_a_page_and_a_folder(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    every = check(wiki)
    assert every.errors == 3  # two required keys, one link
    assert {d.path for d in every.diagnostics} == {"wiki/notes/bad.md"}
    assert check(wiki, "wiki/notes").errors == 3
    assert check(wiki, "wiki/concepts/attention.md").diagnostics == []
    assert all(d.fix for d in every.diagnostics)
    with pytest.raises(Refused, match="no page or folder"):
        check(wiki, "wiki/nope.md")


def test_a_draft_that_breaks_other_pages_is_told_so(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    renamed = ATTENTION.replace("## 多头注意力", "## Heads")
    draft = check(wiki, "wiki/concepts/attention.md", renamed)
    assert [(d.path, d.code) for d in draft.added] == [("wiki/methods/transformer.md", "KB208")]
    assert not (tmp_path / "repo/wiki/concepts/attention.md").read_text().count("Heads")
    # the next answer is of the wiki as written again
    assert check(wiki, "wiki/methods/transformer.md").diagnostics == []


def test_a_write_that_breaks_other_pages_is_refused(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path, write=True)
    page = tmp_path / "repo/wiki/concepts/attention.md"
    digest = content_digest(page.read_bytes())
    with pytest.raises(Refused, match="wiki/methods/transformer.md.*KB208"):
        edit_section(wiki, "wiki/concepts/attention.md", "多头注意力", "## Heads\n\nx\n", digest)
    assert page.read_text(encoding="utf-8") == ATTENTION
    # a write that fixes errors, or keeps those there were, lands
    fixed = write_page(
        wiki,
        "wiki/notes/bad.md",
        "---\ntype: concept\nsummary: s\nupdated: 2020-01-01\n---\n# Bad\n",
        content_digest((tmp_path / "repo/wiki/notes/bad.md").read_bytes()),
    )
    assert fixed.diagnostics == [] and check(wiki).errors == 0


def test_a_section_edit_keeps_the_rest(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path, write=True)
    page = tmp_path / "repo/wiki/concepts/attention.md"
    done = edit_section(
        wiki,
        "wiki/concepts/attention.md",
        "缩放点积注意力",
        "Scaled.\n",
        content_digest(page.read_bytes()),
    )
    text = page.read_text(encoding="utf-8")
    assert text == ATTENTION.replace("Softmax of QK^T over sqrt(d).", "Scaled.")
    assert done.digest == content_digest(page.read_bytes())
    assert page.stat().st_mode & 0o777 != 0o600  # not the temporary file's private mode


def test_a_block_edit_replaces_only_the_block(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path, write=True)
    page = tmp_path / "repo/wiki/concepts/attention.md"
    digest = content_digest(page.read_bytes())
    edit_section(wiki, "wiki/concepts/attention.md", "^heads", "Heads, edited. ^heads", digest)
    expected = ATTENTION.replace("Several heads attend at once. ^heads", "Heads, edited. ^heads")
    assert page.read_text(encoding="utf-8") == expected
