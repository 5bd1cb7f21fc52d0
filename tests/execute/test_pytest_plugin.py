"""The pytest plugin, through pytester: items per cell, Markdown lines, -k, -x, --lf, -n 2."""

from __future__ import annotations

import re

import pytest

pytest_plugins = ["pytester"]

PYPROJECT = """\
[tool.kbtool]
preload = []
cell-timeout = 10

[tool.pytest.ini_options]
testpaths = ["wiki"]
"""

GOOD = """\
# Good

```python
import os
x = 1
```

```python
x += 1
assert x == 2
```

```python tags=["skip-execution"]
raise RuntimeError("skipped")
```

```python
>>> x * 21
42
```
"""

BAD = """\
# Bad

```python
def check(value):
    assert value == 2, f"expected 2, got {value}"
```

```python
check(3)
```

```python
print("never runs")
```
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".toml", pyproject=PYPROJECT)
    (pytester.path / "wiki").mkdir()
    (pytester.path / "wiki" / "good.md").write_text(GOOD, encoding="utf-8")
    (pytester.path / "wiki" / "bad.md").write_text(BAD, encoding="utf-8")
    (pytester.path / "wiki" / "prose.md").write_text("# No cells\n", encoding="utf-8")
    return pytester


def test_one_item_per_python_cell(project: pytest.Pytester) -> None:
    result = project.runpytest("--collect-only", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert ids == [f"wiki/bad.md::cell-{n}" for n in (1, 2, 3)] + [
        f"wiki/good.md::cell-{n}" for n in (1, 2, 3, 4)
    ]


def test_outcomes_and_the_failure_at_its_markdown_line(project: pytest.Pytester) -> None:
    result = project.runpytest("-v", "-rs")
    result.assert_outcomes(passed=4, failed=1, skipped=2)
    result.stdout.fnmatch_lines(
        [
            "wiki/bad.md::cell-2 FAILED*",
            "wiki/bad.md::cell-3 SKIPPED (not run: cell-2: AssertionError: expect*",
            "wiki/good.md::cell-3 SKIPPED (skip-execution)*",
            "*_ wiki/bad.md::cell-2 (line 9) _*",
            "SKIPPED [1] wiki/bad.md:13: not run: cell-2: AssertionError: expected 2, got 3",
            "SKIPPED [1] wiki/good.md:14: skip-execution",
        ]
    )
    output = result.stdout.str()
    assert "wiki/bad.md:9:1: KB404 error cell-2 failed: AssertionError: expected 2, got 3" in output
    assert 'File "wiki/bad.md", line 5, in check' in output


def test_reportinfo_points_at_the_markdown_line(project: pytest.Pytester) -> None:
    items, _ = project.inline_genitems()
    locations = {item.nodeid: item.location for item in items}
    assert locations["wiki/good.md::cell-2"] == ("wiki/good.md", 8, "wiki/good.md::cell-2 (line 9)")


def test_k_selects_cells_and_the_page_still_runs_in_order(project: pytest.Pytester) -> None:
    result = project.runpytest("-k", "good and cell-2")
    result.assert_outcomes(passed=1, deselected=6)


def test_x_stops_at_the_first_failure(project: pytest.Pytester) -> None:
    result = project.runpytest("-x")
    result.assert_outcomes(passed=1, failed=1)  # bad.md's cell-1, then cell-2; good.md never


def test_last_failed_reruns_only_the_failing_cell(project: pytest.Pytester) -> None:
    project.runpytest().assert_outcomes(passed=4, failed=1, skipped=2)
    result = project.runpytest("--lf")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["collected 1 item", "run-last-failure: rerun previous 1 failure*"])


def test_xdist_keeps_each_page_on_one_worker(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("-n", "2", "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, failed=1, skipped=2)
    workers: dict[str, set[str]] = {}
    for match in re.finditer(
        r"\[(gw\d)\] .*?(?:PASSED|FAILED|SKIPPED) (wiki/\w+\.md)::", result.stdout.str()
    ):
        workers.setdefault(match.group(2), set()).add(match.group(1))
    assert set(workers) == {"wiki/good.md", "wiki/bad.md"}
    assert all(len(used) == 1 for used in workers.values()), workers


def test_only_the_configured_wiki_is_collected(project: pytest.Pytester) -> None:
    # A hostile page outside the wiki folder, in a fixture project of its own, never runs.
    fixture = project.path / "tests" / "fixtures" / "loop"
    (fixture / "wiki").mkdir(parents=True)
    (fixture / "pyproject.toml").write_text("[tool.kbtool]\n", encoding="utf-8")
    (fixture / "wiki" / "loop.md").write_text(
        "```python\nwhile True: pass\n```\n", encoding="utf-8"
    )
    (project.path / "notes.md").write_text("```python\nwhile True: pass\n```\n", encoding="utf-8")
    result = project.runpytest(".", "--collect-only", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert ids and all(line.startswith("wiki/") for line in ids)


def test_a_project_without_kbtool_configuration_is_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", pyproject='[tool.pytest.ini_options]\ntestpaths = ["wiki"]\n')
    (pytester.path / "wiki").mkdir()
    (pytester.path / "wiki" / "page.md").write_text(BAD, encoding="utf-8")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_a_page_that_fails_without_a_failing_cell(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", pyproject=PYPROJECT)
    (pytester.path / "wiki").mkdir()
    page = "# Bad option\n\n```python\nx = 1\n```\n\n```python timeout=-1\nx = 2\n```\n"
    (pytester.path / "wiki" / "option.md").write_text(page, encoding="utf-8")
    result = pytester.runpytest("-v")
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(
        ["*option.md::cell-1 FAILED*", "*KB402*timeout must be a positive number*"]
    )
