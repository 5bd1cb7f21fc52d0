"""``kbtool test``: a line per page, failures at their Markdown line, a summary, the exit code."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kbtool.execute import runner
from tests.execute_support import fixture_pages, line_of, make_repo

PAGES = {
    "ok.md": "# OK\n\n```python\nprint('hi')\n```\n\n"
    '```python tags=["skip-execution"]\nnope()\n```\n',
    "off.md": "---\nexecute: false\n---\n```python\nprint('never')\n```\n",
    "prose.md": "# Only prose\n",
    "failing.md": fixture_pages("pages")["failing.md"],
}
SUMMARY = re.compile(
    r"1 page passed, 1 failed, 1 not run; "
    r"2 cells passed, 1 failed, 1 skipped, 1 not run in \d+\.\d\ds"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", PAGES)


def test_text_report(repo: Path, run_kbtool: Callable[..., Any]) -> None:
    result = run_kbtool("-C", repo, "test", "-j", "2")
    assert result.code == 1
    lines = result.lines
    page_lines = sorted(line for line in lines if line.startswith(("PASS", "FAIL", "NOT RUN")))
    assert re.fullmatch(
        r"FAIL    wiki/failing\.md  1 passed, 1 failed, 0 skipped, 1 not run  \d+\.\d\ds",
        page_lines[0],
    )
    assert page_lines[1] == "NOT RUN wiki/off.md  (execute: false)"
    assert re.fullmatch(
        r"PASS    wiki/ok\.md  1 passed, 0 failed, 1 skipped  \d+\.\d\ds", page_lines[2]
    )
    call = line_of(repo, "failing.md", "check(total)")
    header = (
        f"wiki/failing.md:{call}:1: KB404 error cell-2 failed: AssertionError: expected 2, got 1"
    )
    assert header in lines
    traceback = lines[lines.index(header) + 1 :]
    assert traceback[0] == "    Traceback (most recent call last):"
    assert f'      File "wiki/failing.md", line {call}, in <module>' in traceback
    assert SUMMARY.fullmatch(lines[-1]), lines[-1]
    assert "prose.md" not in result.out


def test_paths_select_pages(repo: Path, run_kbtool: Callable[..., Any]) -> None:
    result = run_kbtool("-C", repo, "test", repo / "wiki" / "ok.md")
    assert result.code == 0
    assert [line.split()[1] for line in result.lines[:-1]] == ["wiki/ok.md"]
    assert result.lines[-1].startswith("1 page passed, 0 failed, 0 not run; 1 cell passed")


def test_json_report(repo: Path, run_kbtool: Callable[..., Any]) -> None:
    result = run_kbtool("-C", repo, "test", "--format", "json")
    assert result.code == 1
    data = json.loads(result.out)
    pages = {page["path"]: page for page in data["pages"]}
    assert {path: page["status"] for path, page in pages.items()} == {
        "wiki/failing.md": "failed",
        "wiki/off.md": "not-run",
        "wiki/ok.md": "passed",
    }
    cell = pages["wiki/failing.md"]["cells"][1]
    assert (cell["number"], cell["status"], cell["code"]) == (2, "failed", "KB404")
    assert data["summary"]["pages"] == {"passed": 1, "failed": 1, "not-run": 1}


def test_a_repeat_run_is_served_from_the_cache(
    repo: Path, run_kbtool: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "wiki" / "failing.md").unlink()
    assert run_kbtool("-C", repo, "test").code == 0
    monkeypatch.setattr(runner.subprocess, "Popen", None)  # starting a worker would raise
    again = run_kbtool("-C", repo, "test")
    assert again.code == 0
    assert "PASS    wiki/ok.md" in again.out and "(cached)" in again.out
    assert again.lines[-1].endswith("(1 cached)")


def test_no_cache_runs_again(repo: Path, run_kbtool: Callable[..., Any]) -> None:
    run_kbtool("-C", repo, "test")
    assert "(cached)" not in run_kbtool("-C", repo, "test", "--no-cache").out


def test_all_passing_exits_zero(tmp_path: Path, run_kbtool: Callable[..., Any]) -> None:
    root = make_repo(tmp_path / "repo", {"ok.md": PAGES["ok.md"]})
    assert run_kbtool("-C", root, "test").code == 0


def test_opt_in_mode_lists_pages_as_not_run(tmp_path: Path, run_kbtool: Callable[..., Any]) -> None:
    pages = {"in.md": "---\nexecute: true\n---\n" + PAGES["ok.md"], "out.md": PAGES["ok.md"]}
    root = make_repo(tmp_path / "repo", pages, execute="opt-in")
    result = run_kbtool("-C", root, "test")
    assert result.code == 0
    assert any(line.startswith("PASS    wiki/in.md") for line in result.lines)
    assert any(line.startswith("NOT RUN wiki/out.md  (not opted in") for line in result.lines)
    assert result.lines[-1].startswith("1 page passed, 0 failed, 1 not run;")
