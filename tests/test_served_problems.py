"""The diagnostics ``kbtool serve`` gives each served page for its panel."""

from __future__ import annotations

import json
import threading
import time

from kbtool.diagnostics import Diagnostic
from kbtool.served_problems import SHOWN, ServedProblems

WARNING = Diagnostic("wiki/概念/a.md", 3, 1, "KB111", "warning", "`summary` is empty")
ERROR = Diagnostic("wiki/b.md", 1, 1, "KB103", "error", "frontmatter is not valid YAML")


def test_a_page_gets_only_its_own_diagnostics() -> None:
    problems = ServedProblems()
    problems.update([WARNING, ERROR], None, [])
    mine = json.loads(problems.for_url("/wiki/%E6%A6%82%E5%BF%B5/a.html"))
    assert [d["code"] for d in mine["diagnostics"]] == ["KB111"]
    assert mine["diagnostics"][0]["line"] == 3 and mine["blocked"] is None
    assert json.loads(problems.for_url("/"))["diagnostics"] == []


def test_a_build_that_stopped_is_shown_on_every_page() -> None:
    problems = ServedProblems()
    problems.update([ERROR], "not published: 1 error(s)", [ERROR])
    for url in ("/", "/wiki/b.html", "/tags/x.html"):
        blocked = json.loads(problems.for_url(url))["blocked"]
        assert blocked["summary"] == "not published: 1 error(s)"
        assert [d["path"] for d in blocked["errors"]] == ["wiki/b.md"]


def test_the_stopping_errors_sent_are_capped() -> None:
    problems = ServedProblems()
    many = [Diagnostic(f"wiki/p{i:03}.md", 1, 1, "KB103", "error", "x") for i in range(SHOWN + 3)]
    problems.update(many, "not published", many)
    blocked = json.loads(problems.for_url("/"))["blocked"]
    assert len(blocked["errors"]) == SHOWN and blocked["more"] == 3


def test_update_says_whether_what_is_shown_changed() -> None:
    problems = ServedProblems()
    assert not problems.update([], None, [])
    assert problems.update([WARNING], None, [])
    assert not problems.update([WARNING], None, [])
    assert problems.update([WARNING], "not published", [])


def test_a_page_asking_while_its_build_ends_waits_for_that_builds_diagnostics() -> None:
    problems = ServedProblems()
    problems.update([], None, [])
    problems.pend()  # a new site is swapped in; its build still ends
    later = threading.Timer(0.3, problems.update, ([WARNING], None, []))
    started = time.monotonic()
    later.start()
    mine = json.loads(problems.for_url("/wiki/%E6%A6%82%E5%BF%B5/a.html"))
    assert [d["code"] for d in mine["diagnostics"]] == ["KB111"]
    assert time.monotonic() - started >= 0.25
    started = time.monotonic()
    problems.for_url("/")  # nothing pending: at once
    assert time.monotonic() - started < 0.25


def test_a_page_waits_no_longer_than_it_is_told() -> None:
    problems = ServedProblems()
    problems.pend()  # a build that never ends (it failed)
    assert json.loads(problems.for_url("/", wait=0.1))["diagnostics"] == []
