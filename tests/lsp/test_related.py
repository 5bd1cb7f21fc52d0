"""``kbtool related PAGE`` prints the pages most like PAGE that it does not link, and the
editor offers them first when completing a ``related:`` entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbtool.cli import main
from kbtool.config import load_config
from kbtool.lsp.complete import complete, resolve
from kbtool.lsp.state import WikiState
from kbtool.lsp.text import Lines
from kbtool.reuse.lazy import Lazy
from tests.stages.test_build import page, write


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    pages = {
        # a and twin link the same pages and share a tag; loner shares nothing with a
        "wiki/a.md": page("# A\n\n[X](x.md) [Y](y.md)\n", tags=["robot"]),
        "wiki/twin.md": page("# Twin\n\n[X](x.md) [Y](y.md)\n", tags=["robot"]),
        "wiki/cousin.md": page("# Cousin\n\n[X](x.md)\n"),
        "wiki/linked.md": page("# Linked\n\n[X](x.md) [Y](y.md) [A](a.md)\n"),
        "wiki/loner.md": page("# Loner\n"),
        "wiki/x.md": page("# X\n"),
        "wiki/y.md": page("# Y\n"),
    }
    write(root, pages)
    (root / "pyproject.toml").write_text('[tool.kbtool]\nlanguage = "en"\n')
    return root


def test_related_lists_the_pages_like_it_that_it_does_not_link(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["-C", str(repo), "related", "wiki/a.md", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    paths = [row["path"] for row in rows]
    assert paths[:2] == ["wiki/twin.md", "wiki/cousin.md"]  # more shared, first
    assert "wiki/linked.md" not in paths  # it links a: a link both ways already
    assert not {"wiki/loner.md", "wiki/x.md", "wiki/a.md"} & set(paths)
    assert rows[0]["link"] == "twin.md" and rows[0]["title"] == "Twin"
    assert main(["-C", str(repo), "related", "wiki/a.md", "-n", "1"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.split()[1:] == ["twin.md", "Twin"]


def test_related_without_the_store_s_link_table_checks_in_memory(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import dataclasses

    import kbtool.stages.check

    check_wiki = kbtool.stages.check.check_wiki
    stores: list[str] = []

    def unstored(run, *args, **kwargs):  # type: ignore[no-untyped-def]
        stores.append(type(run.store).__name__ if run.use_store else "memory")
        result = check_wiki(run, *args, **kwargs)
        return dataclasses.replace(result, links_stored=not run.use_store)

    monkeypatch.setattr(kbtool.stages.check, "check_wiki", unstored)
    assert main(["-C", str(repo), "related", "wiki/a.md", "--format", "json"]) == 0
    assert stores == ["Store", "memory"]  # the store's table is not this wiki's: a check apart
    paths = [row["path"] for row in json.loads(capsys.readouterr().out)]
    assert paths[:2] == ["wiki/twin.md", "wiki/cousin.md"]


def test_related_of_a_file_that_is_not_a_page_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "notes.md").write_text("# not in the wiki\n")
    assert main(["-C", str(repo), "related", "notes.md"]) == 2
    assert "is not a page of the wiki" in capsys.readouterr().err


def test_completing_a_related_entry_offers_the_pages_like_it_first(repo: Path) -> None:
    state = WikiState.open(load_config(repo))
    try:
        state.check()
        text = "---\ntype: concept\nrelated:\n  - \n---\n# A\n\n[X](x.md) [Y](y.md)\n"
        state.buffers["wiki/a.md"] = text.encode()
        state.check()
        answer = complete(state, "wiki/a.md", Lines.of(text), 4, 5)
        ordered = sorted(answer.items, key=lambda item: item.sort_text or "")
        assert [item.detail for item in ordered][:2] == ["twin.md", "cousin.md"]
    finally:
        state.close()


def test_completing_tags_offers_every_page_s_tags_as_the_editor_sees_them(repo: Path) -> None:
    state = WikiState.open(load_config(repo))
    try:
        text = "---\ntype: concept\ntags:\n  - \n---\n# Loner\n"
        state.buffers["wiki/x.md"] = "---\ntype: concept\ntags: [抓取]\n---\n# X\n".encode()
        state.buffers["wiki/loner.md"] = text.encode()
        state.check()
        answer = complete(state, "wiki/loner.md", Lines.of(text), 4, 5)
        assert sorted(item.label for item in answer.items) == ["robot", "抓取"]
    finally:
        state.close()


def test_completing_a_link_reads_no_page_it_lists(repo: Path) -> None:
    assert main(["-C", str(repo), "check"]) == 0  # the store warm, as the editor finds it
    state = WikiState.open(load_config(repo))
    try:
        state.check()
        assert isinstance(state.pages, Lazy)
        before = set(state.pages.at_hand())
        text = (repo / "wiki/loner.md").read_text() + "\n[x]("
        answer = complete(state, "wiki/loner.md", Lines.of(text), text.count("\n") + 1, 5)
        assert {item.detail for item in answer.items} >= {"twin.md", "x.md", "a.md"}
        # titles and kinds from the check's facts; only the page written in is read
        assert set(state.pages.at_hand()) <= before | {"wiki/loner.md"}
        (first,) = [item for item in answer.items if item.detail == "twin.md"]
        assert resolve(state, first).documentation == "一句话摘要"
    finally:
        state.close()
