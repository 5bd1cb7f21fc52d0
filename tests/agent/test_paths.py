"""The paths a tool is given: normalised, kept inside the repository and its wiki folders,
never through a symbolic link; writes only with --write, the sources only if allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.agent.errors import Refused
from kbtool.agent.paths import normal_path, page_path, writable_path
from kbtool.agent.state import AgentWiki, Permissions
from kbtool.config import load_config
from tests.agent.support import small_wiki


def _wiki(tmp_path: Path, **permissions: bool) -> AgentWiki:
    return AgentWiki(load_config(small_wiki(tmp_path / "repo")), Permissions(**permissions))


def test_paths_are_normalised_inside_the_repository(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    root = wiki.config.root.as_posix()
    assert normal_path(wiki, "./wiki//concepts/a.md") == "wiki/concepts/a.md"
    assert normal_path(wiki, f"{root}/wiki/a.md") == "wiki/a.md"
    assert normal_path(wiki, "wiki\\concepts\\a.md") == "wiki/concepts/a.md"
    for bad in ("../x.md", "wiki/../../x.md", "wiki/a/../../../x.md"):
        with pytest.raises(Refused, match="leads out"):
            normal_path(wiki, bad)
    for bad in ("/etc/passwd", "", "wiki/a\x00.md"):
        with pytest.raises(Refused):
            normal_path(wiki, bad)
    assert page_path(wiki, "wiki/concepts/attention.md") == "wiki/concepts/attention.md"


def test_writes_need_write_and_a_page_path(tmp_path: Path) -> None:
    with pytest.raises(Refused, match="read-only"):
        writable_path(_wiki(tmp_path), "wiki/concepts/new.md")
    wiki = _wiki(tmp_path, write=True)
    assert writable_path(wiki, "wiki/concepts/new.md") == "wiki/concepts/new.md"
    for bad in ("wiki/concepts/new.txt", "wiki/.hidden/new.md", "pyproject.toml", "site/x.md"):
        with pytest.raises(Refused, match="not a page path"):
            writable_path(wiki, bad)
    with pytest.raises(Refused, match="sources folder"):
        writable_path(wiki, "sources/papers/new.md")
    allowed = _wiki(tmp_path, write=True, sources=True)
    assert writable_path(allowed, "sources/papers/new.md") == "sources/papers/new.md"


def test_a_folder_named_like_a_page_is_not_written(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path, write=True)
    (wiki.config.root / "wiki/concepts/folder.md").mkdir()
    with pytest.raises(Refused, match="not a regular file"):
        writable_path(wiki, "wiki/concepts/folder.md")
