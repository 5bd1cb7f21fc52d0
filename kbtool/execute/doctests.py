"""Doctest cells: a cell whose code starts with ``>>>`` compares each example's output.

The examples run in the page's namespace (names they define stay for later cells), and a
mismatch is reported with doctest's own Expected/Got text, at the example's Markdown line.
"""

from __future__ import annotations

import doctest
from dataclasses import dataclass
from typing import Any

from kbtool.execute.tracebacks import user_traceback


def _indent(text: str) -> str:
    return "".join(f"    {line}" for line in text.splitlines(keepends=True))


@dataclass(frozen=True, slots=True)
class DoctestOutcome:
    failed: bool
    report: str = ""
    line: int | None = None  # file line of the first failing example
    summary: str = ""


class _Runner(doctest.DocTestRunner):
    """Keeps the first failing example's line, to point the failure at it."""

    first_failure: int | None = None

    def _note(self, test: doctest.DocTest, example: doctest.Example) -> None:
        if self.first_failure is None and test.lineno is not None:
            self.first_failure = test.lineno + example.lineno + 1

    def report_failure(self, out: Any, test: Any, example: Any, got: str) -> None:
        self._note(test, example)
        super().report_failure(out, test, example, got)

    def report_unexpected_exception(self, out: Any, test: Any, example: Any, exc_info: Any) -> None:
        self._note(test, example)
        # As doctest words it, but without kbtool's frames (the patched socket module's).
        _, error, tb = exc_info
        text = user_traceback(error, tb)
        header = self._failure_header(test, example)  # type: ignore[attr-defined]
        out(f"{header}Exception raised:\n{_indent(text)}")


def run_doctest(
    source: str, namespace: dict[str, Any], path: str, line: int, name: str
) -> DoctestOutcome:
    """Run the examples of ``source`` (whose first line is file line ``line``)."""
    test = doctest.DocTestParser().get_doctest(source, {}, name, path, line - 1)
    test.globs = namespace  # DocTest copies the globals it is given; the page's must be shared
    runner = _Runner(verbose=False)
    chunks: list[str] = []
    result = runner.run(test, out=chunks.append, clear_globs=False)
    if not result.failed:
        return DoctestOutcome(False)
    summary = f"doctest: {result.failed} of {result.attempted} examples failed"
    return DoctestOutcome(True, "".join(chunks).strip("\n*"), runner.first_failure, summary)
