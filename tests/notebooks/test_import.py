"""Importing notebooks: a folder of notebooks becomes pages that check clean and pass."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.execute_support import line_of, make_repo, run
from tests.parse.test_notebook_cells import jupytext_cells, kbtool_cells

pytest_plugins = ["pytester"]
pytest.importorskip("IPython")

NOTEBOOKS = Path(__file__).parent.parent / "fixtures" / "notebooks"
BOOK = sorted(p.stem for p in (NOTEBOOKS / "book").glob("*.ipynb"))


def imported_repo(tmp_path: Path, run_kbtool: Callable[..., Any], *args: object) -> Path:
    root = make_repo(tmp_path / "repo", {})
    shutil.copytree(NOTEBOOKS / "book", root / "wiki" / "book")
    result = run_kbtool("-C", root, "notebook", root / "wiki" / "book", "--to", "md", *args)
    assert result.code == 0, result.out
    assert f"{len(BOOK)} notebooks imported, 0 not" in result.out
    return root


@pytest.fixture
def book(tmp_path: Path, run_kbtool: Callable[..., Any]) -> Path:
    return imported_repo(tmp_path, run_kbtool)


def frontmatter_of(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    return dict(yaml.safe_load(text.split("---\n")[1]))


def test_a_folder_of_notebooks_becomes_pages_that_check_clean_and_pass(
    book: Path, run_kbtool: Callable[..., Any]
) -> None:
    pages = book / "wiki" / "book"
    assert sorted(p.stem for p in pages.glob("*.md")) == BOOK
    check = run_kbtool("-C", book, "check", "--format", "json")
    assert check.code == 0, check.out
    assert json.loads(check.out)["summary"]["errors"] == 0
    results = run(book)
    assert {path: r.status for path, r in results.items()} == {
        f"wiki/book/{stem}.md": "passed" for stem in BOOK
    }
    # The same cells as jupytext reads them, the region of 02-slicing included.
    for page in pages.glob("*.md"):
        text = page.read_text(encoding="utf-8")
        assert kbtool_cells(page.name, text) == jupytext_cells(text)
    assert len(results["wiki/book/02-slicing.md"].cells) == 1
    magics = results["wiki/book/01-magics.md"].cells
    assert magics[3].stdout.strip() == "shell says 15"
    assert len(magics[5].figures) == 1  # `%matplotlib inline` changed nothing: still collected


def test_frontmatter_has_the_required_keys(book: Path) -> None:
    meta = frontmatter_of(book / "wiki" / "book" / "01-magics.md")
    assert meta == {
        "type": "concept",
        "summary": "Line and cell magics, shell commands and display(), as Jupyter runs them.",
        "updated": date.today(),
    }
    assert "jupyter" not in (book / "wiki" / "book" / "01-magics.md").read_text(encoding="utf-8")


def test_a_saved_error_is_tagged_raises_exception(book: Path) -> None:
    text = (book / "wiki" / "book" / "03-errors.md").read_text(encoding="utf-8")
    assert '```python tags=["raises-exception"]\na + b\n```' in text
    cell = run(book)["wiki/book/03-errors.md"].cells[1]
    assert cell.status == "passed" and "could not be broadcast" in (cell.error or "")


def test_links_between_notebooks_point_at_the_new_pages(book: Path) -> None:
    text = (book / "wiki" / "book" / "01-magics.md").read_text(encoding="utf-8")
    assert "[next](03-errors.md#broadcasting-errors)" in text  # Jupyter's anchor -> the slug
    assert "[another one](04-rich-outputs.md)" in text
    assert ".ipynb" not in text


def test_the_type_comes_from_an_option(tmp_path: Path, run_kbtool: Callable[..., Any]) -> None:
    root = imported_repo(tmp_path, run_kbtool, "--type", "method")
    assert frontmatter_of(root / "wiki" / "book" / "02-slicing.md")["type"] == "method"
    bad = run_kbtool("-C", root, "notebook", root / "wiki" / "book", "--to", "md", "--type", "x")
    assert bad.code == 2 and "not one of the configured types" in bad.err


def test_one_notebook_and_an_existing_page_is_kept(
    tmp_path: Path, run_kbtool: Callable[..., Any]
) -> None:
    root = make_repo(tmp_path / "repo", {})
    notebook = root / "wiki" / "errors.ipynb"
    shutil.copy(NOTEBOOKS / "book" / "03-errors.ipynb", notebook)
    assert run_kbtool("-C", root, "notebook", notebook, "--to", "md").code == 0
    page = root / "wiki" / "errors.md"
    assert "raises-exception" in page.read_text(encoding="utf-8")
    page.write_text("my own edits\n", encoding="utf-8")
    again = run_kbtool("-C", root, "notebook", notebook, "--to", "md")
    assert again.code == 1 and "KB421" in again.out and "--force" in again.out
    assert page.read_text(encoding="utf-8") == "my own edits\n"
    assert run_kbtool("-C", root, "notebook", notebook, "--to", "md", "--force").code == 0
    assert "raises-exception" in page.read_text(encoding="utf-8")


def test_a_file_that_is_not_a_notebook_gets_a_diagnostic_and_nothing_is_written(
    tmp_path: Path, run_kbtool: Callable[..., Any]
) -> None:
    root = make_repo(tmp_path / "repo", {})
    folder = root / "wiki" / "bad"
    shutil.copytree(NOTEBOOKS / "bad", folder)
    result = run_kbtool("-C", root, "notebook", folder, "--to", "md")
    assert result.code == 1
    lines = [line for line in result.out.splitlines() if "KB421" in line]
    assert len(lines) == 2
    assert "not-json.ipynb:3:1: KB421 error" in lines[0] and "not valid JSON" in lines[0]
    assert "not-nbformat.ipynb:1:1: KB421 error" in lines[1] and "nbformat" in lines[1]
    assert "is not of type 'array'" in lines[1]  # the reason nbformat gives
    assert sorted(p.name for p in folder.iterdir()) == ["not-json.ipynb", "not-nbformat.ipynb"]
    single = run_kbtool("-C", root, "notebook", folder / "not-json.ipynb", "--to", "md")
    assert single.code == 1 and "not valid JSON" in single.out
    assert not (folder / "not-json.md").exists()


# -- compare-outputs --------------------------------------------------------------------------


def set_frontmatter(path: Path, key: str, value: str) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("---\n", f"---\n{key}: {value}\n", 1), encoding="utf-8")


def test_saved_outputs_match_with_addresses_ellipses_and_ignored_cells(
    book: Path, run_kbtool: Callable[..., Any]
) -> None:
    saved = json.loads((book / "wiki" / "book" / "05-compare.outputs.json").read_text("utf-8"))
    assert [c["stdout"] for c in saved["cells"]][:1] == ["hello\n"]
    result = run_kbtool("-C", book, "test", "--compare-outputs")
    assert result.code == 0, result.out


def test_an_output_that_differs_is_kb422_with_a_diff_at_the_cell(
    book: Path, run_kbtool: Callable[..., Any]
) -> None:
    sidecar = book / "wiki" / "book" / "05-compare.outputs.json"
    sidecar.write_text(sidecar.read_text("utf-8").replace('"hello\\n"', '"bye\\n"'), "utf-8")
    assert run_kbtool("-C", book, "test").code == 0  # compared only when asked
    page = book / "wiki" / "book" / "05-compare.md"
    set_frontmatter(page, "compare-outputs", "true")
    result = run_kbtool("-C", book, "test")
    assert result.code == 1
    line = line_of(book, "book/05-compare.md", "print('hello')")
    assert f"wiki/book/05-compare.md:{line}:1: KB422 error cell-1 failed" in result.out
    assert "-bye" in result.out and "+hello" in result.out


def test_a_bad_compare_outputs_value_or_missing_outputs_is_kb423(
    book: Path, run_kbtool: Callable[..., Any]
) -> None:
    page = book / "wiki" / "book" / "02-slicing.md"
    set_frontmatter(page, "compare-outputs", "maybe")
    result = run_kbtool("-C", book, "test", page)
    assert result.code == 1 and "wiki/book/02-slicing.md:2:1: KB423" in result.out
    page.write_text(page.read_text("utf-8").replace("maybe", "true"), "utf-8")
    (book / "wiki" / "book" / "02-slicing.outputs.json").unlink()
    result = run_kbtool("-C", book, "test", page)
    assert result.code == 1 and "no saved outputs" in result.out


# -- the same cells through pytest ------------------------------------------------------------


def test_the_imported_pages_pass_under_pytest(book: Path, pytester: pytest.Pytester) -> None:
    shutil.copytree(book / "wiki", pytester.path / "wiki")
    pytester.makefile(
        ".toml",
        pyproject="[tool.kbtool]\npreload = []\ncell-timeout = 20\n\n"
        '[tool.pytest.ini_options]\ntestpaths = ["wiki"]\n',
    )
    cells = sum(
        len(kbtool_cells(p.name, p.read_text("utf-8")))
        for p in (pytester.path / "wiki" / "book").glob("*.md")
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=cells)
    sidecar = pytester.path / "wiki" / "book" / "05-compare.outputs.json"
    sidecar.write_text(sidecar.read_text("utf-8").replace('"hello\\n"', '"bye\\n"'), "utf-8")
    result = pytester.runpytest("-p", "no:cacheprovider", "--kbtool-compare-outputs")
    result.assert_outcomes(passed=cells - 1, failed=1)
    result.stdout.fnmatch_lines(
        ["*wiki/book/05-compare.md:*:1: KB422 error cell-*failed: output differs*", "*-bye*"]
    )
