"""After an edit a one-shot ``kbtool check`` decodes the stored facts of the pages it reads
(the edited page's, the pages its links reach), not every page's, and says what a cold
check says; a page whose stored facts are damaged is checked again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import kbtool.stages.check_start
from kbtool.cli import main
from kbtool.stages.facts import decode_facts
from kbtool.store.db import open_store
from kbtool.store.records import FACTS
from tests.stages.calls import recorded
from tests.stages.test_build import page, write

PAGES = 40


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    files = {
        f"wiki/p{i:02}.md": page(f"# P{i}\n\n[next](p{(i + 1) % PAGES:02}.md#p{(i + 1) % PAGES})\n")
        for i in range(PAGES)
    }
    files["wiki/p05.md"] = page("# P5\n\n[a missing page](p99.md)\n")
    write(root, files)
    (root / "pyproject.toml").write_text('[tool.kbtool]\nlanguage = "en"\n')
    return root


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry each time a page's stored facts are decoded."""
    return recorded(monkeypatch, kbtool.stages.check_start, "decode_facts")


def check(root: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    main(["-C", str(root), "check"])
    return capsys.readouterr().out.splitlines()[:-1]  # without the timed summary


def test_an_edit_decodes_the_facts_of_the_pages_it_reads_and_finds_what_a_cold_check_finds(
    repo: Path, decoded: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    check(repo, capsys)
    edited = repo / "wiki/p10.md"
    added = "\nOne more sentence, [a link](p20.md#nowhere), [a missing page](p98.md).\n"
    edited.write_text(edited.read_text() + added)
    decoded.clear()
    found = check(repo, capsys)
    assert any(line.startswith("wiki/p10.md") and "KB208" in line for line in found)
    assert any(line.startswith("wiki/p10.md") and "KB207" in line for line in found)
    assert any(line.startswith("wiki/p05.md") and "KB207" in line for line in found)
    # The edited page's own record, and the pages its links reach (for their anchors); the
    # missing page's hint reads the pages' paths alone.
    assert 1 <= len(decoded) <= 3
    shutil.rmtree(repo / ".kbtool")
    assert check(repo, capsys) == found


def test_a_page_whose_stored_facts_are_damaged_is_checked_again(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check(repo, capsys)
    with open_store(repo / ".kbtool") as store, store.transaction():
        store.put(FACTS, [("wiki/p20.md", FACTS.key(), b"\xff\xfe not facts")])
    edited = repo / "wiki/p19.md"  # links to p20.md#p20: its anchor needs p20's facts
    edited.write_text(edited.read_text() + "\nOne more sentence.\n")
    found = check(repo, capsys)
    with open_store(repo / ".kbtool") as store:
        stored = store.some(FACTS, ["wiki/p20.md"])["wiki/p20.md"][1]
    assert decode_facts(stored) is not None  # the page was checked again, its facts kept
    shutil.rmtree(repo / ".kbtool")
    assert check(repo, capsys) == found
