"""Page results -> what ``kbtool test`` prints: a line per page, the failures, a summary line.

Failures read like compiler output, at the Markdown line of the failing statement, followed
by the traceback (already in Markdown line numbers) and the tail of what the cell wrote to
stderr when that says more than the traceback (a crash in C code, for instance).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from kbtool.diagnostics import Diagnostic
from kbtool.execute.results import CellResult, PageResult, to_dict

_LABELS = {"passed": "PASS", "failed": "FAIL", "not-run": "NOT RUN"}
_STDERR_TAIL = 20


@dataclass(frozen=True, slots=True)
class Summary:
    pages: Counter[str]
    cells: Counter[str]
    cached: int
    seconds: float

    def format(self) -> str:
        pages = f"{_count(self.pages['passed'], 'page')} passed, {self.pages['failed']} failed"
        pages += f", {self.pages['not-run']} not run"
        cells = f"{_count(self.cells['passed'], 'cell')} passed, {self.cells['failed']} failed"
        cells += f", {self.cells['skipped']} skipped"
        if self.cells["not-run"]:
            cells += f", {self.cells['not-run']} not run"
        cached = f" ({self.cached} cached)" if self.cached else ""
        return f"{pages}; {cells} in {self.seconds:.2f}s{cached}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "pages": dict(self.pages),
            "cells": dict(self.cells),
            "cached": self.cached,
            "seconds": round(self.seconds, 3),
        }


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summarize(results: list[PageResult], seconds: float) -> Summary:
    pages = Counter({"passed": 0, "failed": 0, "not-run": 0})
    cells = Counter({"passed": 0, "failed": 0, "skipped": 0, "not-run": 0})
    for result in results:
        pages[result.status] += 1
        if result.status != "not-run":
            cells.update(cell.status for cell in result.cells)
    return Summary(pages, cells, sum(r.cached for r in results), seconds)


def page_line(result: PageResult) -> str:
    label = f"{_LABELS[result.status]:<7}"
    if result.status == "not-run":
        return f"{label} {result.path}  ({result.reason})"
    counts = Counter(cell.status for cell in result.cells)
    text = f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped"
    if counts["not-run"]:
        text += f", {counts['not-run']} not run"
    cached = " (cached)" if result.cached else ""
    return f"{label} {result.path}  {text}  {result.duration:.2f}s{cached}"


@dataclass(frozen=True, slots=True)
class CellFailure:
    """One failure of a page's cells: a diagnostic with its KB4xx code, at the Markdown line
    of the failing statement (or of the option that kept the page from running), and the
    lines that tell more (the traceback, the tail of stderr)."""

    diagnostic: Diagnostic
    details: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        return [self.diagnostic.format(), *("    " + text for text in self.details)]


def cell_failures(result: PageResult) -> list[CellFailure]:
    """Every failure of one page: the one form ``test``, ``build``, ``serve`` and the pytest
    plugin report it in."""
    found = [
        CellFailure(_error(result.path, problem["line"], problem["code"], problem["message"]))
        for problem in result.extra.get("problems", ())
    ]
    numbered = list(enumerate(result.cells, start=1))
    failed = [(number, cell) for number, cell in numbered if cell.status == "failed"]
    found += [_cell_failure(result.path, number, cell) for number, cell in failed]
    if result.status == "failed" and not found:  # the page did not run
        reason = result.reason or "the page did not run"
        found.append(CellFailure(_error(result.path, 1, result.code or "KB404", reason)))
    return found


def failure_lines(result: PageResult) -> list[str]:
    """Every failure of one page, compiler-style, each followed by its indented details."""
    return [line for failure in cell_failures(result) for line in failure.lines()]


def _error(path: str, line: int, code: str, message: str) -> Diagnostic:
    return Diagnostic(path, line, 1, code, "error", message)


def _cell_failure(path: str, number: int, cell: CellResult) -> CellFailure:
    line = cell.error_line or cell.line
    message = f"cell-{number} failed: {cell.reason or 'error'}"
    details = cell.error.rstrip("\n").splitlines() if cell.error else []
    stderr = cell.stderr.rstrip("\n")
    if stderr and (not cell.error or stderr not in cell.error):
        tail = stderr.splitlines()[-_STDERR_TAIL:]
        details += [f"--- stderr (last {len(tail)} lines) ---", *tail]
    return CellFailure(_error(path, line, cell.code or "KB404", message), tuple(details))


def format_text(results: list[PageResult], summary: Summary) -> str:
    """Everything after the page lines: failures, then the summary line."""
    failures = [line for result in results for line in failure_lines(result)]
    return "\n".join([*(["", *failures, ""] if failures else []), summary.format()])


def format_json(results: list[PageResult], summary: Summary) -> str:
    pages = []
    for result in results:
        data = to_dict(result)
        for number, cell in enumerate(data["cells"], start=1):
            cell["number"] = number
        pages.append(data)
    return json.dumps({"pages": pages, "summary": summary.to_dict()}, ensure_ascii=False, indent=2)
