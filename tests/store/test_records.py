"""The registry of record kinds: keys hold the code that made a record, found from the code's
own imports; a removed page leaves no record behind; a build uses one store connection."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import kbtool
import kbtool.store.db
from kbtool.render import urls
from kbtool.store.code import closure
from kbtool.store.records import BODY, KINDS, PER_PAGE, RESULT, RecordKind
from tests.stages.test_build import build, page, small_wiki, write

PACKAGE = Path(kbtool.__file__).resolve().parent

CELL_PAGE = page("# Cells\n\n```python\nprint(1 + 1)\n```\n")


def test_a_bodys_code_is_everything_the_page_worker_imports() -> None:
    code = closure(BODY.producer)
    for module in ("gfm", "sanitize", "tex_commands", "rich", "diagrams", "urls", "markdown"):
        assert f"kbtool.render.{module}" in code
    assert "kbtool.search.text" in code and "kbtool.parse.page" in code
    assert "kbtool.execute.junit" not in code and "kbtool.stages.site" not in code


def test_each_kind_is_declared_once_with_a_producer_that_exists() -> None:
    names = [kind.name for kind in KINDS]
    assert len(names) == len(set(names))
    for kind in KINDS:
        assert len(kind.code) == 24  # computed: the producer's module exists
    assert RESULT in PER_PAGE and BODY in PER_PAGE


def _records(root: Path, kind: str) -> dict[str, str]:
    db = sqlite3.connect(root / ".kbtool" / "store.sqlite")
    try:
        return dict(db.execute("SELECT name, key FROM records WHERE kind = ?", (kind,)))
    finally:
        db.close()


def test_editing_a_renderer_module_in_a_copy_of_the_package_renders_bodies_again(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "copy" / "kbtool"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    repo = tmp_path / "repo"
    write(repo, small_wiki())
    env = {**os.environ, "PYTHONPATH": str(copy.parent)}

    def kbtool_build() -> str:
        done = subprocess.run(
            [sys.executable, "-m", "kbtool", "-C", str(repo), "build", "-j", "1"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    where = subprocess.run(
        [sys.executable, "-c", "import kbtool; print(kbtool.__file__)"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    ).stdout
    assert where.strip() == str(copy / "__init__.py")  # the copy is the one that runs
    kbtool_build()
    bodies = _records(repo, "body")
    assert len(bodies) == 4
    junit = copy / "execute" / "junit.py"
    junit.write_text(junit.read_text() + "\n# an edit the bodies do not depend on\n")
    # `kbtool test` writes JUnit files; the build never imports that module
    assert "up to date" in kbtool_build()
    assert _records(repo, "body") == bodies
    gfm = copy / "render" / "gfm.py"
    gfm.write_text(gfm.read_text() + "\n# an edit of the renderer\n")
    out = kbtool_build()
    after = _records(repo, "body")
    assert set(after) == set(bodies) and all(after[p] != bodies[p] for p in bodies)
    rendered = re.search(r"(\d+) outputs rendered", out)
    assert rendered is not None and int(rendered.group(1)) >= 4  # every page, at least


def test_a_removed_page_leaves_no_record_of_any_kind(repo_with_cells: Path) -> None:
    assert build(repo_with_cells).published
    gone = "wiki/concepts/cells.md"
    db = sqlite3.connect(repo_with_cells / ".kbtool" / "store.sqlite")
    kinds = {kind for (kind,) in db.execute("SELECT kind FROM records WHERE name = ?", (gone,))}
    assert {"page", "body", "search", "check", "facts", "result"} <= kinds
    db.close()
    (repo_with_cells / gone).unlink()
    assert build(repo_with_cells).published
    db = sqlite3.connect(repo_with_cells / ".kbtool" / "store.sqlite")
    try:
        assert db.execute("SELECT kind FROM records WHERE name = ?", (gone,)).fetchall() == []
        assert db.execute("SELECT * FROM deps WHERE page = ?", (gone,)).fetchall() == []
        for table, column in (("graph_pages", "path"), ("graph_edges", "src")):
            rows = db.execute(f"SELECT * FROM {table} WHERE {column} = ?", (gone,)).fetchall()
            assert rows == []
    finally:
        db.close()


def test_a_build_opens_one_store_connection(
    repo_with_cells: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[object] = []
    real = kbtool.store.db._connect

    def connect(path):  # type: ignore[no-untyped-def]
        opened.append(path)
        return real(path)

    monkeypatch.setattr(kbtool.store.db, "_connect", connect)
    report = build(repo_with_cells)
    # the cells ran and the graph was laid out: both keep records in the store
    assert report.published and urls.GRAPH_DATA in report.rendered_outputs
    assert _records(repo_with_cells, "result") and _records(repo_with_cells, "layout")
    assert len(opened) == 1


@pytest.fixture
def repo_with_cells(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {**small_wiki(), "wiki/concepts/cells.md": CELL_PAGE})
    return root


def test_an_index_written_by_other_code_gives_none_of_its_search_texts_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kbtool.config import load_config
    from kbtool.search import layout
    from kbtool.search.site import search_docs
    from kbtool.stages.load import load_wiki

    repo = tmp_path / "repo"
    write(repo, small_wiki())
    assert build(repo).published
    wiki = load_wiki(load_config(repo), jobs=1)
    asked: list[str] = []

    def fetch(paths: list[str]) -> dict[str, object]:
        asked.extend(paths)
        return {p: object() for p in paths}

    digests = {path: page.digest for path, page in wiki.pages.items()}
    search_docs(digests, repo / "site" / layout.FOLDER, fetch)  # type: ignore[arg-type]
    assert asked == []  # every text came from the live index
    monkeypatch.setattr(RecordKind, "code", property(lambda self: "other code"))
    search_docs(digests, repo / "site" / layout.FOLDER, fetch)  # type: ignore[arg-type]
    assert sorted(asked) == sorted(small_wiki())
