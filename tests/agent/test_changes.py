"""changes_since, in process: the pages added, edited and removed since a revision or a date,
and the diagnostics that appeared and went."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.agent.changes import changes
from kbtool.agent.errors import Refused
from kbtool.agent.state import AgentWiki
from kbtool.config import load_config
from tests.agent.support import small_wiki
from tests.conftest import page_text
from tests.git_support import git


def test_what_changed_since_a_revision_or_a_day(tmp_path: Path) -> None:
    root = small_wiki(
        tmp_path / "repo",
        {"wiki/notes/bad.md": page_text("# Bad\n\n[x](nowhere.md)\n"), ".gitignore": ".kbtool/\n"},
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first", day="2026-03-01")
    (root / "wiki/notes/bad.md").write_text(page_text("# Bad\n\nFixed.\n"), encoding="utf-8")
    (root / "wiki/notes/new.md").write_text(page_text("# New\n\n[y](gone.md)\n"), encoding="utf-8")
    (root / "wiki/methods/transformer.md").unlink()
    wiki = AgentWiki(load_config(root))
    for since in ("HEAD", "main", "2026-03-02"):
        found = changes(wiki, since)
        assert (found.added, found.edited, found.removed) == (
            ["wiki/notes/new.md"],
            ["wiki/notes/bad.md"],
            ["wiki/methods/transformer.md"],
        )
        assert [(d.path, d.code) for d in found.appeared] == [("wiki/notes/new.md", "KB207")]
        assert [(d.path, d.code) for d in found.went] == [("wiki/notes/bad.md", "KB207")]
    before_any = changes(wiki, "2020-01-01")
    assert "wiki/concepts/attention.md" in before_any.added
    with pytest.raises(Refused, match="git rev-parse failed"):
        changes(wiki, "no-such-branch")
    with pytest.raises(Refused, match="not a revision"):
        changes(wiki, "--output=/tmp/x")
