"""The language server's session: what a keystroke reads, and which files it checks as pages.

A keystroke reuses what the check before it made (the store's known keys, the stored
diagnostics of the pages not checked again), and a file is a page in the editor exactly when
``kbtool check`` takes it for one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import kbtool.store.db
from kbtool.config import load_config
from kbtool.lsp.state import WikiState

HEAD = "---\ntype: concept\nsummary: s\nupdated: 2020-01-01\n---\n"
PYPROJECT = '[tool.kbtool]\nexclude = ["wiki/drafts/*"]\nignore = ["KB301", "KB303"]\n'


def _wiki(root: Path, pages: int = 12) -> Path:
    (root / "wiki" / "drafts").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    for i in range(pages):
        text = HEAD + f"# Page {i}\n\nSee [next](p{(i + 1) % pages}.md) and [gone](gone.md).\n"
        (root / "wiki" / f"p{i}.md").write_text(text)
    (root / "wiki" / "drafts" / "d.md").write_text(HEAD + "# Draft\n\n[x](nowhere.md)\n")
    return root


def _check_records_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the check records the store is asked for from now on."""
    read: list[str] = []
    some, every = kbtool.store.db.Store.some, kbtool.store.db.Store.all

    def some_of(self, kind, names):  # type: ignore[no-untyped-def]
        names = list(names)
        if kind.name == "check":
            read.extend(names)
        return some(self, kind, names)

    def all_of(self, kind):  # type: ignore[no-untyped-def]
        found = every(self, kind)
        if kind.name == "check":
            read.extend(found)
        return found

    monkeypatch.setattr(kbtool.store.db.Store, "some", some_of)
    monkeypatch.setattr(kbtool.store.db.Store, "all", all_of)
    return read


def test_a_keystroke_reads_no_stored_check_record_of_an_unchanged_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = WikiState.open(load_config(_wiki(tmp_path)))
    try:
        first = state.check()
        edited = "wiki/p3.md"
        for n in range(3):  # keystrokes: only the buffer changes
            state.buffers[edited] = (HEAD + f"# Page 3\n\nNow [broken{n}](missing.md).\n").encode()
            read = _check_records_read(monkeypatch)
            found = state.check()
            monkeypatch.undo()
            assert read == [], n
            assert [d.message for d in found[edited] if "missing.md" in d.message]
        # the other pages' diagnostics are the ones the first check found
        assert {p: v for p, v in found.items() if p != edited} == {
            p: v for p, v in first.items() if p != edited
        }
    finally:
        state.close()


@pytest.mark.parametrize("path", ["wiki/drafts/d.md", "wiki/drafts/new.md", "wiki/.hidden.md"])
def test_a_file_discovery_leaves_out_gets_no_page_diagnostics_in_the_editor(
    tmp_path: Path, path: str
) -> None:
    state = WikiState.open(load_config(_wiki(tmp_path)))
    try:
        assert state.kind_of(path) is None
        assert state.kind_of("wiki/p1.md") == "wiki"
        state.buffers[path] = (HEAD + "# Open\n\n[x](nowhere.md)\n").encode()
        found = state.check()
        assert path not in found
        assert path not in state.pages
        assert "wiki/p1.md" in found  # the pages are checked as ever
    finally:
        state.close()


def test_the_first_diagnostics_read_only_the_stored_pages_they_are_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kbtool.stages.stored_pages
    from kbtool.cli import main

    root = tmp_path / "repo"
    root.mkdir()
    _wiki(root, pages=30)
    (root / "wiki" / "p7.md").write_text(HEAD + "# Page 7\n\nAll is well here.\n")
    main(["-C", str(root), "check"])  # the store is warm, as after any kbtool command
    decoded: list[str] = []
    load_page = kbtool.stages.stored_pages.load_page

    def counting(data: bytes):  # type: ignore[no-untyped-def]
        page = load_page(data)
        decoded.append(page.path)
        return page

    monkeypatch.setattr(kbtool.stages.stored_pages, "load_page", counting)
    state = WikiState.open(load_config(root))
    try:
        found = state.check()
        assert "wiki/p7.md" not in found and "wiki/p3.md" in found
        assert len(decoded) == 0  # diagnostics come from the check's records
        assert "wiki/p7.md" not in state.pages_of(found)
        assert "wiki/p7.md" not in decoded
        assert state.wiki.pages["wiki/p7.md"].path == "wiki/p7.md"  # asked for: read then
    finally:
        state.close()


def test_the_first_check_leaves_the_state_the_next_one_patches_to_settling(
    tmp_path: Path,
) -> None:
    from kbtool.cli import main
    from kbtool.reuse.values import WHOLE
    from kbtool.stages.reused import CHECK_STATE

    root = tmp_path / "repo"
    root.mkdir()
    _wiki(root)
    main(["-C", str(root), "check"])  # the store is warm, as after any kbtool command
    state = WikiState.open(load_config(root))
    try:
        first = state.check()
        held = state.session.reuse.held(CHECK_STATE)[WHOLE][1]
        assert not isinstance(held.pages, dict)  # not every page's stand-in before the answer
        state.settle()  # once the answer is out
        held = state.session.reuse.held(CHECK_STATE)[WHOLE][1]
        assert all(isinstance(m, dict) for m in (held.facts, held.pages, held.basics))
        assert len(held.pages) == len(first) == 12
        state.buffers["wiki/p3.md"] = (HEAD + "# Page 3\n\nNow [x](missing.md).\n").encode()
        assert "missing.md" in str(state.check()["wiki/p3.md"])
    finally:
        state.close()
