"""A CI matrix: ``kbtool test --shard K/N`` splits the pages, ``--junit-xml`` reports them the
way ``pytest --junitxml`` does, so that CI merges the shards' reports."""

from __future__ import annotations

import argparse
import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kbtool.execute.shard import in_shard, parse_shard
from tests.execute_support import fixture_pages, make_repo

pytest_plugins = ["pytester"]

PAGES = {
    **{f"p{i}.md": f"# Page {i}\n\n```python\nprint({i})\n```\n" for i in range(8)},
    "failing.md": fixture_pages("pages")["failing.md"],
    "skipping.md": '```python tags=["skip-execution"]\nnope()\n```\n\n```python\nx = 1\n```\n',
}


def test_shard_values() -> None:
    assert parse_shard("1/1") == (1, 1)
    assert parse_shard(" 3 / 4 ") == (3, 4)
    for bad in ("0/2", "3/2", "1", "a/b", "1/0", "-1/2"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_shard(bad)


def test_shards_split_the_pages_once_and_stay_put() -> None:
    paths = [f"wiki/page-{i}.md" for i in range(300)]
    shards = {k: {p for p in paths if in_shard(p, (k, 3))} for k in (1, 2, 3)}
    assert sum(len(s) for s in shards.values()) == len(paths)
    assert set().union(*shards.values()) == set(paths)
    assert all(60 < len(s) < 140 for s in shards.values()), [len(s) for s in shards.values()]
    # A page keeps its shard whatever else is added: membership depends on its path alone.
    assert all(in_shard(p, (k, 3)) for k, members in shards.items() for p in members)


def test_shards_of_a_run(tmp_path: Path, run_kbtool: Callable[..., Any]) -> None:
    root = make_repo(tmp_path, PAGES)
    ran: list[set[str]] = []
    for shard in ("1/2", "2/2"):
        result = run_kbtool("-C", root, "test", "--shard", shard, "--format", "json")
        ran.append({page["path"] for page in json.loads(result.out)["pages"]})
    assert ran[0] and ran[1] and not ran[0] & ran[1]
    assert ran[0] | ran[1] == {f"wiki/{name}" for name in PAGES}


def test_a_bad_shard_is_a_usage_error(tmp_path: Path, run_kbtool: Callable[..., Any]) -> None:
    result = run_kbtool("-C", make_repo(tmp_path, PAGES), "test", "--shard", "3/2")
    assert result.code == 2
    assert "expected K/N with 1 <= K <= N, got '3/2'" in result.err


def outcomes(report: Path) -> dict[tuple[str, str], str]:
    found = {}
    for case in ET.parse(report).iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        found[(case.get("classname", ""), case.get("name", ""))] = (kinds or ["passed"])[0]
    return found


def test_junit_report(tmp_path: Path, run_kbtool: Callable[..., Any]) -> None:
    root = make_repo(tmp_path / "repo", PAGES)
    report = tmp_path / "reports" / "kbtool.xml"
    assert run_kbtool("-C", root, "test", "--junit-xml", report).code == 1
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("13", "1", "2")
    found = outcomes(report)
    assert found[("wiki.p3.md", "cell-1")] == "passed"
    assert found[("wiki.skipping.md", "cell-1")] == "skipped"
    failure = next(
        case.find("failure") for case in suite.iter("testcase") if case.find("failure") is not None
    )
    assert failure is not None and (failure.get("message") or "").startswith("KB404 ")
    assert 'File "wiki/failing.md"' in (failure.text or "")


def test_kbtool_and_pytest_report_the_same_cells(
    pytester: pytest.Pytester, run_kbtool: Callable[..., Any]
) -> None:
    root = make_repo(pytester.path, PAGES)
    with (root / "pyproject.toml").open("a", encoding="utf-8") as f:
        f.write('\n[tool.pytest.ini_options]\ntestpaths = ["wiki"]\n')
    run_kbtool("-C", root, "test", "--no-cache", "--junit-xml", root / "kbtool.xml")
    pytester.runpytest_subprocess(
        "-n", "2", "-p", "no:cacheprovider", "--kbtool-no-cache", "--junitxml=pytest.xml"
    )
    assert outcomes(root / "kbtool.xml") == outcomes(root / "pytest.xml")
