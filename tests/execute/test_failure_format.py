"""One form of a cell failure: a diagnostic with its KB4xx code, printed by the one formatter,
whether ``kbtool test``, ``build`` or ``serve`` reports it."""

from __future__ import annotations

from kbtool.commands.build import format_cell_failures
from kbtool.commands.serve import cell_failures as served
from kbtool.execute.report import cell_failures, failure_lines
from kbtool.execute.results import CellResult, PageResult

TIMED_OUT = PageResult(
    "wiki/slow.md",
    "failed",
    (
        CellResult(0, 5, "passed"),
        CellResult(1, 9, "failed", reason="timed out after 2s", code="KB406", error_line=11),
        CellResult(2, 14, "not-run"),
    ),
)
RAISED = PageResult(
    "wiki/bad.md",
    "failed",
    (
        CellResult(
            0, 3, "failed", reason="ValueError: no", error="Traceback\n  line 4", error_line=4
        ),
    ),
)
NEVER_RAN = PageResult("wiki/dead.md", "failed", reason="the page process died", code="KB408")
OPTION = PageResult(
    "wiki/option.md",
    "failed",
    extra={"problems": [{"line": 7, "code": "KB402", "message": "timeout must be positive"}]},
)


def test_each_failure_is_a_diagnostic_with_its_code_at_its_line() -> None:
    found = [
        f.diagnostic.format()
        for r in (TIMED_OUT, RAISED, NEVER_RAN, OPTION)
        for f in cell_failures(r)
    ]
    assert found == [
        "wiki/slow.md:11:1: KB406 error cell-2 failed: timed out after 2s",
        "wiki/bad.md:4:1: KB404 error cell-1 failed: ValueError: no",
        "wiki/dead.md:1:1: KB408 error the page process died",
        "wiki/option.md:7:1: KB402 error timeout must be positive",
    ]


def test_test_build_and_serve_report_a_failure_alike() -> None:
    pages = [TIMED_OUT, RAISED, NEVER_RAN, OPTION]
    printed = format_cell_failures(pages).splitlines()
    assert printed == [line for page in pages for line in failure_lines(page)]
    headers = [line for line in printed if not line.startswith("    ")]
    assert headers == [d.format() for d in served(pages)]
    assert printed[2:4] == ["    Traceback", "      line 4"]  # the traceback, indented
