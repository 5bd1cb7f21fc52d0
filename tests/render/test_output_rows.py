"""Outputs as rows (``render/output_rows.py``): the Markdown beside each page and llms.txt,
and an output added the way a newcomer would (a function and a row), whose files are made
again exactly when what they read changed: incremental builds, one-shot and in a session,
give a clean build's site."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from kbtool.render import output_rows
from kbtool.render.output_rows import Content, PageRow, SiteView
from tests.stages.test_build_incremental import RandomWiki, build, edits_build_as_clean_builds


def card(view: SiteView, path: str) -> Content:
    """A JSON card of each page: its title, summary, and the other pages' titles it names."""
    title, _, summary, url = view.listed(path)
    text = view.text(path) or ""
    named = sorted(view.title(p) for p in view.paths() if p != path and view.title(p) in text)
    return json.dumps({"title": title, "summary": summary, "url": url, "names": named})


@pytest.fixture
def card_row(monkeypatch: pytest.MonkeyPatch) -> None:
    row = PageRow("card", lambda path: path.removesuffix(".md") + ".card.json", card)
    monkeypatch.setattr(output_rows, "PAGE_ROWS", (*output_rows.PAGE_ROWS, row))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("serving", [False, True], ids=["build", "serve"])
def test_an_added_output_is_made_again_exactly_when_what_it_read_changed(
    tmp_path: Path, seed: int, serving: bool, card_row: None
) -> None:
    wiki = RandomWiki(random.Random(seed))
    edits_build_as_clean_builds(wiki, tmp_path, serving, edits=10)
    assert list((tmp_path / "live/site").rglob("*.card.json"))


def test_each_page_has_its_markdown_beside_it_and_llms_txt_lists_them(tmp_path: Path) -> None:
    wiki = RandomWiki(random.Random(3))
    wiki.write(tmp_path)
    assert build(tmp_path)
    site = tmp_path / "site"
    for path in wiki.pages:
        assert (site / path).read_bytes() == (tmp_path / path).read_bytes()
        assert (site / path).with_suffix(".html").is_file()
    llms = (site / "llms.txt").read_text()
    assert llms.startswith("# ")
    for path in wiki.wiki_paths():
        assert f"]({path})" in llms


def test_llms_txt_groups_the_pages_by_what_the_site_calls_their_types(make_wiki, page) -> None:
    settings = '[tool.kbtool]\ntype-labels = { concept = "概念" }\n'
    root = make_wiki({"wiki/a.md": page("# A\n", type="concept"), "pyproject.toml": settings})
    pyproject = root / "pyproject.toml"
    assert build(root)
    assert "## 概念\n\n- [A](wiki/a.md)" in (root / "site/llms.txt").read_text()
    pyproject.write_text(pyproject.read_text().replace("概念", "Concepts"))
    assert build(root)  # a label changed: the map is made again
    assert "## Concepts\n" in (root / "site/llms.txt").read_text()
