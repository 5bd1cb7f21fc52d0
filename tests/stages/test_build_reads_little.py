"""After an edit a build reads only what the edit can change: the pages it renders or that
link to the edited one, never every page, PageInfo or index."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import kbtool.stages.check
import kbtool.stages.index_plan
import kbtool.stages.stored_pages
from kbtool.model import Page
from kbtool.render import diagrams
from kbtool.reuse.values import Reuse
from kbtool.stages.publish.stored_spare import FOLDER
from tests.stages.calls import recorded
from tests.stages.test_build import build, small_wiki, write


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, small_wiki())
    assert build(root).published
    return root


@pytest.fixture
def pages_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The path of every page record unpickled from now on."""
    return recorded(monkeypatch, kbtool.stages.stored_pages, "load_page", _path_of)


def _path_of(page: Page | None) -> str:
    return page.path if page is not None else "?"


@pytest.fixture
def indexes_made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry each time the index pages' and the graph's data are made."""
    return recorded(monkeypatch, kbtool.stages.index_plan, "_made")


def _append(repo: Path, path: str, text: str) -> None:
    file = repo / path
    file.write_text(file.read_text() + text)


def test_an_edit_to_a_sentence_reads_no_other_page_and_makes_no_index(
    repo: Path, pages_read: list[str], indexes_made: list[int]
) -> None:
    _append(repo, "wiki/entities/karpathy.md", "\nOne more sentence.\n")
    report = build(repo)
    assert report.rendered_outputs == [
        "page:wiki/entities/karpathy.md",
        "preview:wiki/entities/karpathy.md",
    ]
    # Only the page and the one it links to (whose backlinks show it) are read.
    assert set(pages_read) <= {"wiki/entities/karpathy.md", "wiki/concepts/transformer.md"}
    assert indexes_made == []


def test_an_edit_to_a_summary_renders_the_indexes_that_show_it(
    repo: Path, indexes_made: list[int]
) -> None:
    file = repo / "wiki/entities/karpathy.md"
    text = file.read_text()
    assert "summary:" in text
    file.write_text(text.replace("summary:", "summary: Newly summarised.", 1), encoding="utf-8")
    report = build(repo)
    assert indexes_made == [1]
    assert "types/entity.html" in report.rendered_outputs
    assert "Newly summarised." in (repo / "site/types/entity.html").read_text()


def test_an_index_missing_from_the_site_is_made_again_with_its_data(
    repo: Path, indexes_made: list[int]
) -> None:
    _append(repo, "wiki/entities/karpathy.md", "\nOne more sentence.\n")
    assert build(repo).published
    (repo / "site/types/entity.html").unlink()
    # The former site kept for this build holds the file still: without it, it must be made.
    shutil.rmtree(repo / ".kbtool" / FOLDER)
    _append(repo, "wiki/entities/karpathy.md", "\nAnd another.\n")
    report = build(repo)
    assert "types/entity.html" in report.rendered_outputs
    assert "Karpathy" in (repo / "site/types/entity.html").read_text()


def test_a_second_link_to_a_linked_page_makes_no_index(repo: Path, indexes_made: list[int]) -> None:
    """The page's own links changed, but no backlink, card or date any index shows."""
    _append(
        repo, "wiki/entities/karpathy.md", "\nAgain [注意力](../concepts/transformer.md#注意力).\n"
    )
    report = build(repo)
    assert "page:wiki/entities/karpathy.md" in report.rendered_outputs
    assert indexes_made == []


def test_a_new_link_between_pages_makes_the_indexes_again(
    repo: Path, indexes_made: list[int]
) -> None:
    """A backlink more: the graph and the pages listing backlinks show it."""
    _append(repo, "wiki/entities/karpathy.md", "\nSee [Mamba](../concepts/mamba.md).\n")
    assert build(repo).ok
    assert indexes_made == [1]


def test_without_mermaid_an_edit_warns_of_every_diagram_and_reads_no_other_page(
    repo: Path, pages_read: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """KB510 counts the diagrams of every page, as a cold build does, from their facts."""
    diagram = "\n```mermaid\ngraph TD\n  a-->b\n```\n"
    _append(repo, "wiki/concepts/mamba.md", diagram + "\nText.\n" + diagram)
    assert build(repo).published
    monkeypatch.setattr(diagrams, "MERMAID", repo / "absent.js")
    _append(repo, "wiki/entities/karpathy.md", "\nOne more sentence.\n")
    pages_read.clear()
    [warning] = [d for d in build(repo).diagnostics if d.code == "KB510"]
    assert set(pages_read) <= {"wiki/entities/karpathy.md", "wiki/concepts/transformer.md"}
    cold = build(repo, full=True)
    assert [d for d in cold.diagnostics if d.code == "KB510"] == [warning]
    assert (warning.path, warning.line) == ("wiki/concepts/mamba.md", 15)
    assert "2 Mermaid diagram(s) on 1 page(s)" in warning.message


def test_a_one_shot_build_holds_no_check_state_for_a_next_check_but_a_session_does(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The state a session's next check patches holds every page's stand-in: a one-shot
    build, after which no check comes, does not make it."""
    states = recorded(monkeypatch, kbtool.stages.check, "CheckState")
    _append(repo, "wiki/entities/karpathy.md", "\nOne more sentence.\n")
    assert build(repo).published and states == []
    _append(repo, "wiki/entities/karpathy.md", "\nAnd another.\n")
    assert build(repo, reuse=Reuse()).published and states == [1]
