"""The runner: a page runs like a notebook, in a clean process of its own; its outputs are kept.

The pages of ``tests/fixtures/cells/pages/`` run once for the module, with the default preload
(numpy, matplotlib), as the bundled wiki does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.config import load_config
from kbtool.execute import PageResult, run_pages
from kbtool.stages.load import load_wiki
from tests.execute_support import fixture_pages, line_of, make_repo, run


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    preload = ["numpy", "matplotlib", "matplotlib.pyplot"]
    return make_repo(tmp_path_factory.mktemp("pages"), fixture_pages("pages"), preload=preload)


@pytest.fixture(scope="module")
def results(repo: Path) -> dict[str, PageResult]:
    return run(repo, jobs=2)


@pytest.fixture(scope="module")
def notebook(results: dict[str, PageResult]) -> PageResult:
    return results["wiki/notebook.md"]


def test_a_page_runs_its_python_cells_in_order(notebook: PageResult) -> None:
    assert notebook.status == "passed", notebook.reason
    statuses = [c.status for c in notebook.cells]
    assert statuses == ["passed"] * 4 + ["skipped"] + ["passed"] * 4  # the bash block is no cell


def test_output_and_the_last_expression_are_kept(notebook: PageResult, repo: Path) -> None:
    first = notebook.cells[0]
    assert (first.stdout, first.stderr, first.value) == ("to stdout\n", "to stderr\n", "42")
    assert first.line == line_of(repo, "notebook.md", "import os")
    assert notebook.cells[5].value is None  # an assignment has no value


def test_cells_share_a_namespace_as_main_in_a_fresh_folder_outside_the_wiki(
    notebook: PageResult, repo: Path
) -> None:
    folder = Path(notebook.cells[1].stdout.strip())
    assert folder.is_absolute()
    assert repo not in folder.parents
    assert not folder.exists()  # removed when the page ended


def test_doctest_cell(notebook: PageResult) -> None:
    assert notebook.cells[2].status == "passed"


def test_raises_exception_passes_when_the_cell_raises(notebook: PageResult, repo: Path) -> None:
    cell = notebook.cells[3]
    assert cell.status == "passed"
    line = line_of(repo, "notebook.md", "1 / 0")
    assert f'File "wiki/notebook.md", line {line}' in (cell.error or "")
    assert "ZeroDivisionError" in (cell.error or "")


def test_skip_execution_is_reported_as_skipped(notebook: PageResult) -> None:
    assert (notebook.cells[4].status, notebook.cells[4].reason) == ("skipped", "skip-execution")


def test_matplotlib_is_non_interactive_and_figures_are_kept_as_svg(notebook: PageResult) -> None:
    assert notebook.cells[6].value is not None and notebook.cells[6].value.lower() == "'agg'"
    [svg] = notebook.cells[7].figures
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "squares" in svg
    assert notebook.cells[8].value == "0"  # figures are closed after their cell


def test_a_failure_names_the_line_and_later_cells_do_not_run(
    results: dict[str, PageResult], repo: Path
) -> None:
    page = results["wiki/failing.md"]
    assert [c.status for c in page.cells] == ["passed", "failed", "not-run"]
    cell = page.cells[1]
    assert cell.code == "KB404"
    assert cell.reason == "AssertionError: expected 2, got 1"
    assert page.reason == "cell-2: AssertionError: expected 2, got 1"
    assert cell.error_line == line_of(repo, "failing.md", "check(total)")
    assert_line = line_of(repo, "failing.md", "assert value == 2")
    assert f'File "wiki/failing.md", line {cell.error_line}, in <module>' in (cell.error or "")
    assert f'File "wiki/failing.md", line {assert_line}, in check' in (cell.error or "")
    assert "kbtool" not in (cell.error or "").replace("wiki/failing.md", "")  # no frames of ours


def test_a_doctest_mismatch_shows_the_diff_at_the_example(
    results: dict[str, PageResult], repo: Path
) -> None:
    page = results["wiki/doctest_fail.md"]
    assert [c.status for c in page.cells] == ["failed", "not-run"]
    cell = page.cells[0]
    assert cell.reason == "doctest: 1 of 2 examples failed"
    assert cell.error_line == line_of(repo, "doctest_fail.md", ">>> sorted")
    assert "Expected:\n    [1, 2]\nGot:\n    [1, 2, 3]" in (cell.error or "")


def test_raises_exception_fails_when_nothing_is_raised(results: dict[str, PageResult]) -> None:
    page = results["wiki/raises_nothing.md"]
    assert (page.cells[0].status, page.cells[0].code) == ("failed", "KB405")


def test_pages_are_isolated_from_each_other(tmp_path: Path) -> None:
    body = (
        "```python\nimport json, os, random\nassert not hasattr(json, 'marker')\njson.marker = 1\n"
        "print(os.getpid(), random.random(), os.environ['OMP_NUM_THREADS'])\n```\n"
    )
    root = make_repo(tmp_path, {"a.md": body, "b.md": body, "c.md": body})
    results = run(root, jobs=1)
    lines = [results[f"wiki/{n}.md"].cells[0].stdout.split() for n in "abc"]
    assert all(r.status == "passed" for r in results.values())
    assert len({pid for pid, _, _ in lines}) == 3  # a process each
    assert len({number for _, number, _ in lines}) == 3  # reseeded, not the worker's state
    assert {threads for _, _, threads in lines} == {"1"}  # BLAS/OpenMP pinned


def test_future_imports_carry_over_to_later_cells(tmp_path: Path) -> None:
    first = "```python\nfrom __future__ import annotations\n```\n"
    body = first + "\n```python\ndef f(x: Undefined): pass\n```\n"
    assert run(make_repo(tmp_path, {"a.md": body}))["wiki/a.md"].status == "passed"


def test_per_cell_timeout_overrides_the_configured_one(tmp_path: Path) -> None:
    body = "```python timeout=0.5\nimport time\ntime.sleep(3)\n```\n"
    result = run(make_repo(tmp_path, {"a.md": body}, **{"cell-timeout": 30}))["wiki/a.md"]
    assert result.cells[0].code == "KB406"
    assert result.cells[0].reason and result.cells[0].reason.startswith("timed out after 0.5 s")


def test_bad_options_fail_the_page_without_running_it(tmp_path: Path) -> None:
    pages = {
        "timeout.md": "# T\n\n```python timeout=-1\nprint('ran')\n```\n",
        "execute.md": "---\nexecute: yes please\n---\n```python\nprint('ran')\n```\n",
        "inputs.md": "---\ninputs: [../../outside.csv]\n---\n```python\nprint('ran')\n```\n",
        "missing.md": "---\ninputs: [data.csv]\n---\n```python\nprint('ran')\n```\n",
    }
    results = run(make_repo(tmp_path, pages))
    codes = {path: (r.status, r.code) for path, r in results.items()}
    assert codes == {
        "wiki/timeout.md": ("failed", "KB402"),
        "wiki/execute.md": ("failed", "KB403"),
        "wiki/inputs.md": ("failed", "KB403"),
        "wiki/missing.md": ("failed", "KB403"),
    }
    assert all(c.status == "not-run" for r in results.values() for c in r.cells)
    assert "timeout must be a positive number" in (results["wiki/timeout.md"].reason or "")
    assert "outside the repository" in (results["wiki/inputs.md"].reason or "")
    assert "'wiki/data.csv' does not exist" in (results["wiki/missing.md"].reason or "")


def test_inputs_are_read_through_the_page_folder(tmp_path: Path) -> None:
    body = (
        "---\ninputs: [data.csv]\n---\n```python\nimport os, pathlib\n"
        "pathlib.Path(os.environ['KBTOOL_PAGE_DIR'], 'data.csv').read_text()\n```\n"
    )
    root = make_repo(tmp_path, {"a.md": body})
    (root / "wiki" / "data.csv").write_text("1,2\n")
    assert run(root)["wiki/a.md"].cells[0].value == "'1,2\\n'"


def test_results_come_back_in_page_order_with_not_run_pages_listed(tmp_path: Path) -> None:
    pages = {
        "a.md": "```python\nprint(1)\n```\n",
        "b.md": "---\nexecute: false\n---\n```python\nprint(2)\n```\n",
        "c.md": "# no cells\n",
    }
    root = make_repo(tmp_path, pages)
    config = load_config(root)
    wiki = load_wiki(config, jobs=1, use_store=False)
    seen: list[str] = []
    results = run_pages(
        config, wiki.pages.values(), use_store=False, on_result=lambda r: seen.append(r.path)
    )
    assert [(r.path, r.status, r.reason) for r in results] == [
        ("wiki/a.md", "passed", None),
        ("wiki/b.md", "not-run", "execute: false"),
        ("wiki/c.md", "not-run", "no python cells"),
    ]
    assert sorted(seen) == ["wiki/a.md", "wiki/b.md", "wiki/c.md"]
    assert [c.status for c in results[1].cells] == ["not-run"]


def test_a_cell_that_forks_does_not_run_the_page_twice(tmp_path: Path) -> None:
    first = "```python\nimport os\npid = os.fork()\nif pid:\n    os.waitpid(pid, 0)\n```\n"
    page = first + "\n```python\nprint('once')\n```\n"
    result = run(make_repo(tmp_path, {"a.md": page}))["wiki/a.md"]
    assert result.status == "passed"
    assert result.cells[1].stdout == "once\n"
