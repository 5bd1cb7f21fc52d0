"""The project's own rules (kbtool.rules): loaded from a file of the project or an entry point,
run as the built-in checks are, reused while their page and what they read are unchanged, and
a broken rule is one diagnostic naming it, never a crash."""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from kbtool.checks.deadline import PastDeadline, call_within
from kbtool.checks.project import decode_edit
from kbtool.codes import RULES
from kbtool.config import config_from_table
from kbtool.errors import ConfigError

REPO = Path(__file__).parent.parent
EXAMPLES = REPO / "docs" / "examples" / "wiki_rules.py"

HEAD = "---\ntype: {type}\nsummary: 一句话摘要\nupdated: {updated}\ntags: [{tags}]\n---\n"

#: a rule file whose rules count their calls in a file beside it (the module is reloaded)
COUNTING = """
from pathlib import Path
from kbtool.rules import Finding, rule

CALLS = Path(__file__).with_name("calls.txt")

def _count(page):
    with CALLS.open("a") as f:
        f.write(page.path + "\\n")

@rule("WIKI010", "warning", "a page says TODO")
def todo(page):
    _count(page)
    return [Finding("TODO left in the page", n, t.index("TODO") + 1) for n, t in page.lines()
            if "TODO" in t]

@rule("WIKI011", "warning", "a page shares a tag with a newer page", reads="facts")
def newer(page, facts):
    _count(page)
    for tag in page.tags:
        for other in facts.with_tag(tag):
            if other.updated > page.updated:
                yield Finding(f"{other.path} is newer", 1)
"""


def _page(
    body: str = "", type_: str = "concept", updated: str = "2020-01-01", tags: str = ""
) -> str:
    return HEAD.format(type=type_, updated=updated, tags=tags) + body


def _project(root: Path, rules: str, files: dict[str, str], extra: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    config = '[tool.kbtool]\nrules = ["wiki_rules.py"]\nignore = ["KB301", "KB303"]\n' + extra
    (root / "pyproject.toml").write_text(config)
    (root / "wiki_rules.py").write_text(rules)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _calls(root: Path) -> list[str]:
    path = root / "calls.txt"
    calls = sorted(path.read_text().split()) if path.exists() else []
    path.unlink(missing_ok=True)
    return calls


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    return _project(
        tmp_path / "repo",
        COUNTING,
        {
            "wiki/a.md": _page("# A\n\nTODO: write it\n", tags="x"),
            "wiki/b.md": _page("# B\n\n[A](a.md)\n", updated="2020-02-01", tags="x"),
            "wiki/c.md": _page("# C\n\n[A](a.md) [B](b.md)\n", tags="y"),
        },
    )


def test_a_project_rule_shows_in_every_format(wiki: Path, run_kbtool: Callable[..., object]):
    text = run_kbtool("-C", wiki, "check")
    assert "wiki/a.md:9:1: WIKI010 warning TODO left in the page" in text.lines  # type: ignore[attr-defined]
    assert "wiki/a.md:1:1: WIKI011 warning wiki/b.md is newer" in text.lines  # type: ignore[attr-defined]
    rows = json.loads(run_kbtool("-C", wiki, "check", "--format", "json").out)["diagnostics"]  # type: ignore[attr-defined]
    assert {(r["path"], r["code"], r["severity"]) for r in rows} >= {
        ("wiki/a.md", "WIKI010", "warning")
    }
    github = run_kbtool("-C", wiki, "check", "--format", "github").out  # type: ignore[attr-defined]
    assert "WIKI010" in github and "file=wiki/a.md,line=9" in github
    sarif = json.loads(run_kbtool("-C", wiki, "check", "--format", "sarif").out)  # type: ignore[attr-defined]
    driver = sarif["runs"][0]["tool"]["driver"]
    described = {r["id"]: r for r in driver["rules"]}
    assert described["WIKI010"]["shortDescription"]["text"] == "a page says TODO"
    assert described["WIKI010"]["defaultConfiguration"]["level"] == "warning"
    result = next(r for r in sarif["runs"][0]["results"] if r["ruleId"] == "WIKI010")
    assert driver["rules"][result["ruleIndex"]]["id"] == "WIKI010"
    stats = run_kbtool("-C", wiki, "check", "--statistics").out  # type: ignore[attr-defined]
    assert "WIKI010  warning  a page says TODO" in stats


def test_severity_ignore_and_select_take_project_codes(wiki: Path, run_kbtool):
    pyproject = wiki / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + 'severity = { WIKI010 = "error" }\n')
    result = run_kbtool("-C", wiki, "check", "--select", "WIKI010")
    assert result.code == 1
    assert result.lines[:-1] == ["wiki/a.md:9:1: WIKI010 error TODO left in the page"]
    assert run_kbtool("-C", wiki, "check", "--select", "WIKI011", "--ignore", "WIKI011").code == 0
    assert run_kbtool("-C", wiki, "check", "--select", "WIKX").code == 2  # a typo selects nothing
    pyproject.write_text(pyproject.read_text().replace("ignore = [", 'ignore = ["WIKX", '))
    result = run_kbtool("-C", wiki, "check", "--select", "KB605")
    assert result.lines[0] == (
        "pyproject.toml:1:1: KB605 error ignore: no project rule's code matches 'WIKX'"
    )
    pyproject.write_text(pyproject.read_text().replace("WIKI010", "WIKI"))
    assert run_kbtool("-C", wiki, "check", "--select", "WIKI010").code == 1


def test_findings_are_reused_while_the_page_and_what_it_read_are_unchanged(wiki: Path, run_kbtool):
    run_kbtool("-C", wiki, "check")
    assert _calls(wiki) == ["wiki/a.md"] * 2 + ["wiki/b.md"] * 2 + ["wiki/c.md"] * 2
    run_kbtool("-C", wiki, "check")
    assert _calls(wiki) == []  # nothing changed
    # A body edit of c: only c again (nobody read anything of c that changed).
    (wiki / "wiki/c.md").write_text(_page("# C\n\nTODO too\n", tags="y"))
    result = run_kbtool("-C", wiki, "check")
    assert _calls(wiki) == ["wiki/c.md"] * 2
    assert "wiki/c.md:9:1: WIKI010 warning TODO left in the page" in result.lines
    # b older now: a, which read the pages tagged x, is checked again and no longer warned.
    (wiki / "wiki/b.md").write_text(_page("# B\n\n[A](a.md)\n", updated="2019-01-01", tags="x"))
    result = run_kbtool("-C", wiki, "check")
    assert _calls(wiki) == ["wiki/a.md"] * 2 + ["wiki/b.md"] * 2
    assert not [line for line in result.lines if line.startswith("wiki/a.md:1:1: WIKI011")]
    assert "wiki/b.md:1:1: WIKI011 warning wiki/a.md is newer" in result.lines


def test_editing_the_rule_file_or_a_module_it_imports_checks_every_page_again(
    wiki: Path, run_kbtool
):
    (wiki / "rule_words.py").write_text('WORD = "TODO"\n')
    rules = wiki / "wiki_rules.py"
    rules.write_text(
        rules.read_text().replace("from kbtool.rules", "import rule_words\nfrom kbtool.rules")
    )
    rules.write_text(rules.read_text().replace('"TODO"', "rule_words.WORD"))
    run_kbtool("-C", wiki, "check")
    _calls(wiki)
    (wiki / "rule_words.py").write_text('WORD = "[A]"\n')
    result = run_kbtool("-C", wiki, "check", "--select", "WIKI010")
    assert len(_calls(wiki)) == 6
    assert [line.split(":")[0] for line in result.lines[:-1]] == ["wiki/b.md", "wiki/c.md"]
    rules.write_text(rules.read_text() + "\n# a comment\n")
    run_kbtool("-C", wiki, "check")
    assert len(_calls(wiki)) == 6


BROKEN = """
import time
from kbtool.rules import Edit, Finding, rule

@rule("WIKI020", "warning", "raises on page b")
def raises(page):
    if page.path.endswith("b.md"):
        raise ValueError("no b here")
    return []

@rule("WIKI021", "warning", "loops forever on page b, swallowing what it can")
def loops(page):
    while page.path.endswith("b.md"):
        try:
            while True:
                pass
        except Exception:
            pass
    return []

@rule("WIKI022", "warning", "returns nonsense")
def nonsense(page):
    if page.path.endswith("a.md"):
        return "not findings"
    if page.path.endswith("b.md"):
        return [Finding("far away", 9999)]
    return [1, 2]

@rule("WIKI023", "warning", "a bad edit")
def bad_edit(page):
    return [Finding("edit", 1, 1, Edit(3, 1, 1, 1, "x"))]

@rule("WIKI024", "warning", "still runs")
def fine(page):
    return [Finding("fine", 1)]

@rule("KB999", "warning", "takes kbtool's prefix")
def kb(page):
    return []

@rule("wiki 1", "warning", "a malformed code")
def malformed(page):
    return []

@rule("WIKI024", "warning", "takes another rule's code")
def twice(page):
    return []
"""


def test_a_broken_rule_is_one_diagnostic_naming_it_and_the_page(tmp_path: Path, run_kbtool):
    root = _project(
        tmp_path / "repo",
        BROKEN,
        {"wiki/a.md": _page("# A\n"), "wiki/b.md": _page("# B\n"), "wiki/c.md": _page("# C\n")},
        extra="rule-timeout = 0.3\n",
    )
    result = run_kbtool("-C", root, "check", "--format", "json")
    found: dict[tuple[str, str], str] = {}
    for r in json.loads(result.out)["diagnostics"]:
        key = (r["path"], r["code"])
        found[key] = found.get(key, "") + r["message"] + "\n"
    assert "WIKI020" in found["wiki/b.md", "KB602"] and "wiki/b.md" in found["wiki/b.md", "KB602"]
    assert "ValueError: no b here" in found["wiki/b.md", "KB602"]
    assert ("wiki/a.md", "KB602") not in found
    assert "WIKI021" in found["wiki/b.md", "KB603"] and "0.3 s" in found["wiki/b.md", "KB603"]
    assert "returned str" in found["wiki/a.md", "KB604"]
    assert "line 9999" in found["wiki/b.md", "KB604"]
    assert "returned int" in found["wiki/c.md", "KB604"]
    assert found["wiki/c.md", "KB604"].count("WIKI023") == 1  # one per rule and page
    assert "an Edit whose range is not in the page" in found["wiki/c.md", "KB604"]
    assert all(("wiki/" + p, "WIKI024") in found for p in ("a.md", "b.md", "c.md"))
    assert not [key for key in found if key[1] in ("WIKI020", "WIKI021", "WIKI022", "WIKI023")]
    problems = [r for r in json.loads(result.out)["diagnostics"] if r["code"] == "KB605"]
    assert len(problems) == 3 and {p["path"] for p in problems} == {"wiki_rules.py"}
    assert any("KB is reserved" in p["message"] and "WIKI001" in p["message"] for p in problems)
    assert any("also fine's" in p["message"] for p in problems)


def test_a_rule_file_that_cannot_be_loaded(tmp_path: Path, run_kbtool):
    root = _project(
        tmp_path / "repo", "import no_such_module_here\n", {"wiki/a.md": _page("# A\n")}
    )
    result = run_kbtool("-C", root, "check")
    assert result.code == 1
    assert any(
        line.startswith("wiki_rules.py:1:1: KB601 error rules: 'wiki_rules.py' failed to import")
        and "ModuleNotFoundError" in line
        for line in result.lines
    )
    (root / "wiki_rules.py").unlink()
    result = run_kbtool("-C", root, "check")
    assert "pyproject.toml:1:1: KB601 error rules: 'wiki_rules.py' does not exist" in result.lines


def test_rules_of_an_installed_package(tmp_path: Path, run_kbtool, monkeypatch):
    site = tmp_path / "site"
    (site / "wikirules_pkg").mkdir(parents=True)
    (site / "wikirules_pkg" / "__init__.py").write_text(
        "from kbtool.rules import Finding, rule\n\n"
        '@rule("PKG001", "error", "every page is flagged")\n'
        "def flag(page):\n    return [Finding('flagged', 1)]\n"
    )
    info = site / "wikirules_pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: wikirules-pkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[kbtool.rules]\nwiki = wikirules_pkg\nbroken = no_such_pkg_here:rules\n"
    )
    monkeypatch.syspath_prepend(str(site))
    root = tmp_path / "repo"
    (root / "wiki").mkdir(parents=True)
    (root / "wiki/a.md").write_text(_page("# A\n"))
    result = run_kbtool("-C", root, "check")
    assert "wiki/a.md:1:1: PKG001 error flagged" in result.lines
    assert any(
        line.startswith("pyproject.toml:1:1: KB601 error entry point 'broken = no_such_pkg_here")
        for line in result.lines
    )


def test_the_rule_keys_are_validated_in_the_configuration(tmp_path: Path):
    for table in ({"rules": "wiki_rules.py"}, {"rules": ["../x.py"]}, {"rule-timeout": 0}):
        with pytest.raises(ConfigError):
            config_from_table(tmp_path, table)
    config = config_from_table(tmp_path, {"rules": ["r.py"], "severity": {"WIKI001": "error"}})
    assert config.rules == ("r.py",) and config.rule_timeout == 2.0
    with pytest.raises(ConfigError):  # KB codes are still checked at once
        config_from_table(tmp_path, {"severity": {"KB999": "error"}})


def test_the_time_limit_stops_a_loop_in_a_thread_other_than_the_main_one():
    stopped: list[bool] = []

    def loop() -> None:
        while True:
            pass

    def in_thread() -> None:
        try:
            call_within(0.1, loop)
        except PastDeadline:
            stopped.append(True)
        assert call_within(1.0, lambda: 42) == 42  # and nothing is left behind

    thread = threading.Thread(target=in_thread)
    thread.start()
    thread.join(10)
    assert stopped == [True] and not thread.is_alive()


def test_the_project_codes_are_outside_the_built_in_groups():
    assert {code for code in RULES if code.startswith("KB6")} == {
        "KB601",
        "KB602",
        "KB603",
        "KB604",
        "KB605",
    }


def _bundled_wiki(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    shutil.copytree(REPO / "wiki", root / "wiki")
    shutil.copytree(REPO / "sources", root / "sources")
    shutil.copy(EXAMPLES, root / "wiki_rules.py")
    (root / "pyproject.toml").write_text('[tool.kbtool]\nrules = ["wiki_rules.py"]\n')
    return root


def test_the_examples_of_the_docs_on_the_bundled_wiki(tmp_path: Path, run_kbtool):
    root = _bundled_wiki(tmp_path)
    assert run_kbtool("-C", root, "check", "--select", "WIKI,KB6").lines[:-1] == []
    mamba = root / "wiki/concepts/mamba.md"
    text = mamba.read_text()
    text = text.replace("> **一句话定义**：", "> 定义：", 1).replace(
        "updated: 2026", "updated: 2025", 1
    )
    text = text.replace("## 为什么重要\n", "## 为什么重要\n\nMamba 是当前最强的线性序列模型。\n", 1)
    mamba.write_text(text)
    result = run_kbtool("-C", root, "check", "--select", "WIKI", "--format", "json")
    rows = {r["code"]: r for r in json.loads(result.out)["diagnostics"]}
    assert rows["WIKI001"]["path"] == "wiki/concepts/mamba.md"
    edit = decode_edit(rows["WIKI001"]["fix"])
    assert edit is not None and edit.new.startswith("\n> **一句话定义**：")
    assert rows["WIKI002"]["message"].startswith("'当前最强' in a page updated 2025-")
    lines = text.splitlines()
    assert "当前最强" in lines[rows["WIKI002"]["line"] - 1]


def test_kbtool_rules_is_importable_as_documented():
    assert sys.modules.get("kbtool.rules") is None or True
    from kbtool import rules

    assert {"rule", "Finding", "Edit", "RulePage", "FactsView", "OtherPage"} <= set(rules.__all__)


def test_rules_in_the_check_workers_of_a_cold_check(tmp_path: Path, run_kbtool):
    """Enough pages that a cold check forks its workers: the rules and their time limit work
    there as in the process itself, and the result is the one-process check's."""
    rules = (
        "from kbtool.rules import Finding, rule\n\n"
        '@rule("WIKI050", "warning", "loops on page 7, flags page 9")\n'
        "def odd(page):\n"
        '    while page.path.endswith("p0007.md"):\n'
        "        pass\n"
        '    return [Finding("nine", 1)] if page.path.endswith("p0009.md") else []\n'
    )
    files = {f"wiki/p{i:04d}.md": _page(f"# P{i}\n") for i in range(600)}
    root = _project(tmp_path / "repo", rules, files, extra="rule-timeout = 0.3\n")
    workers = run_kbtool("-C", root, "check", "-j", "2", "--select", "WIKI,KB6")
    assert workers.lines[:-1] == [
        "wiki/p0007.md:1:1: KB603 error project rule WIKI050 (odd, wiki_rules.py) ran past its "
        "time limit (0.3 s) on wiki/p0007.md",
        "wiki/p0009.md:1:1: WIKI050 warning nine",
    ]
    alone = run_kbtool("-C", root, "check", "-j", "1", "--no-cache", "--select", "WIKI,KB6")
    assert alone.lines[:-1] == workers.lines[:-1]


def test_a_rule_file_that_cannot_be_loaded_is_reported_whatever_pages_are_asked_for(
    tmp_path: Path, run_kbtool
):
    root = _project(tmp_path / "repo", "raise ImportError('nope')\n", {"wiki/a.md": _page("# A\n")})
    result = run_kbtool("-C", root, "check", root / "wiki/a.md")  # as pre-commit asks
    assert result.code == 1
    assert any(line.startswith("wiki_rules.py:1:1: KB601 error") for line in result.lines)


def test_no_entry_point_found_is_remembered_while_no_folder_of_the_path_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.metadata

    from kbtool import rule_loader

    looked: list[str] = []

    def entry_points(group: str) -> list[object]:
        looked.append(group)
        return []

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    assert rule_loader._looked_up(tmp_path) == []
    assert rule_loader._looked_up(tmp_path) == [] and len(looked) == 1  # remembered
    (tmp_path / "site").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path / "site"))  # a folder more: looked up again
    assert rule_loader._looked_up(tmp_path) == [] and len(looked) == 2


def test_a_package_with_entry_points_is_seen_and_a_changed_working_folder_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build swaps the site in the working folder (first on the path under ``python -m``),
    which changes that folder's time but no entry point; installing a package that declares
    entry points does change them."""
    import importlib.metadata

    from kbtool import rule_loader

    looked: list[str] = []
    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda group: looked.append(group) or []
    )
    packages, cache = tmp_path / "packages", tmp_path / "cache"
    packages.mkdir(), cache.mkdir()
    monkeypatch.setattr(sys, "path", [str(packages), *sys.path])
    assert rule_loader._looked_up(cache) == [] and len(looked) == 1
    (packages / "site").mkdir()  # the working folder's time changes
    os.utime(packages, ns=(1, 1))
    assert rule_loader._looked_up(cache) == [] and len(looked) == 1
    metadata = packages / "kbtool_rules_x-1.0.dist-info"
    metadata.mkdir()
    (metadata / "entry_points.txt").write_text("[kbtool.rules]\nx = x\n", encoding="utf-8")
    assert rule_loader._looked_up(cache) == [] and len(looked) == 2
    (metadata / "entry_points.txt").write_text("[kbtool.rules]\nx = xy\n", encoding="utf-8")
    assert rule_loader._looked_up(cache) == [] and len(looked) == 3


def test_two_ways_of_starting_that_take_turns_are_both_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pre-commit's environment and the author's own shell have different paths: taking
    turns, neither looks up the entry points again."""
    import importlib.metadata

    from kbtool import rule_loader

    looked: list[str] = []
    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda group: looked.append(group) or []
    )
    (tmp_path / "hook").mkdir()
    plain = list(sys.path)
    with_hook = [str(tmp_path / "hook"), *plain]
    for path in (plain, with_hook, plain, with_hook):
        monkeypatch.setattr(sys, "path", path)
        assert rule_loader._looked_up(tmp_path) == []
    assert len(looked) == 2


FIXING = """
from kbtool.rules import Edit, Finding, rule

@rule("WIKI030", "warning", "TODO left in the page")
def todo(page):
    for n, text in page.lines():
        if "TODO" in text:
            at = text.index("TODO") + 1
            yield Finding("TODO left", n, at, Edit(n, at, n, at + 4, "DONE"))

@rule("WIKI031", "warning", "a concept opens with a definition")
def definition(page):
    for n, text in page.lines():
        if text.startswith("# ") and "## 定义" not in page.text:
            yield Finding("no definition", n, 1, Edit(n + 1, 1, n + 1, 1, "\\n## 定义\\n\\n待写。"))

@rule("WIKI032", "off", "an edit of a rule that is off")
def off(page):
    yield Finding("off", 1, 1, Edit(1, 1, 1, 1, "never"))

@rule("WIKI033", "warning", "an edit out of the page")
def outside(page):
    yield Finding("outside", 1, 1, Edit(999, 1, 999, 2, "never"))

@rule("WIKI034", "warning", "an edit of a line that a built-in fix changes")
def tags(page):
    for n, text in page.lines():
        if text.startswith("tags: x"):
            yield Finding("tags", n, 1, Edit(n, 1, n, 5, "never"))
"""


def test_fix_applies_the_edits_the_project_rules_offer(tmp_path: Path, run_kbtool) -> None:
    body = "# A\n\nTODO: write it\n\nMore TODO here\n"
    root = _project(
        tmp_path / "repo",
        FIXING,
        {
            "wiki/a.md": _page(body).replace("tags: []", "tags: x"),
            "wiki/b.md": _page("# B\n\n## 定义\n\nFine.\n"),
        },
    )
    before = (root / "wiki/a.md").read_text()
    shown = run_kbtool("-C", root, "fix", "--diff")
    assert "+DONE: write it" in shown.out and "+## 定义" in shown.out
    assert (root / "wiki/a.md").read_text() == before  # --diff writes nothing
    result = run_kbtool("-C", root, "fix")
    assert "wiki/a.md: fixed line 9: WIKI030" in result.out
    after = (root / "wiki/a.md").read_text()
    assert after == before.replace("tags: x", "tags:\n  - x").replace(
        "# A\n\nTODO: write it\n\nMore TODO here\n",
        "# A\n\n## 定义\n\n待写。\nDONE: write it\n\nMore DONE here\n",
    )
    # not the rule that is off, the edit out of the page, the line listify changed
    assert "never" not in after and "WIKI034" not in result.out
    assert (root / "wiki/b.md").read_text() == _page("# B\n\n## 定义\n\nFine.\n")
    codes = [
        d["code"]
        for d in json.loads(run_kbtool("-C", root, "check", "--format", "json").out)["diagnostics"]
    ]
    assert "WIKI030" not in codes and "WIKI031" not in codes
