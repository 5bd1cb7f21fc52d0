"""The render stage: what rendering a page hands back to the process that made the plan."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import kbtool.stages.render
from tests.stages.test_build import build, small_wiki, write


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, small_wiki())
    return root


def test_a_rendered_page_hands_back_its_files_names_not_their_text(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = kbtool.stages.render._render_pages
    handed: list[Any] = []

    def spying(work, items):  # type: ignore[no-untyped-def]
        done = real(work, items)
        handed.extend(rendered for _, rendered in done)
        return done

    monkeypatch.setattr(kbtool.stages.render, "_render_pages", spying)
    assert build(repo).published
    names = [name for rendered in handed for name in rendered.files]
    assert "wiki/concepts/transformer.html" in names
    # The text stays in the files written (a worker's result would carry every page's HTML).
    assert all(text == "" for rendered in handed for text in rendered.files.values())
    assert "Transformer" in (repo / "site/wiki/concepts/transformer.html").read_text()
