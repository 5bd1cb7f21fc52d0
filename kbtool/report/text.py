"""``--format text``: one compiler-style line per diagnostic, then the summary line; with
``--statistics``, one line per code instead."""

from __future__ import annotations

from kbtool.report.statistics import format_statistics
from kbtool.report.view import Report


def format_text(report: Report) -> str:
    if report.statistics:
        table = format_statistics(report.diagnostics)
        return f"{table}\n{report.summary.format()}" if table else report.summary.format()
    lines = [d.format() for d in report.diagnostics]
    lines.append(report.summary.format())
    return "\n".join(lines)
