"""``--statistics``: one line per code with its count and its meaning, most frequent first.

The view a first run needs: on a wiki kbtool was never pointed at, thousands of lines of one
rule hide the few that matter.

>>> from kbtool.diagnostics import Diagnostic
>>> d = Diagnostic("wiki/a.md", 1, 1, "KB302", "warning", "one-way")
>>> print(format_statistics([d, d]))
2  KB302  warning  one-way `related`: the other page does not list this one
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from kbtool.codes import rule_of
from kbtool.diagnostics import Diagnostic


@dataclass(frozen=True, slots=True)
class CodeCount:
    code: str
    count: int
    severity: str
    meaning: str


def count_codes(diagnostics: Iterable[Diagnostic]) -> list[CodeCount]:
    """Counts per code, most frequent first (ties by code); the severity as reported."""
    counts: Counter[str] = Counter()
    severity: dict[str, str] = {}
    for d in diagnostics:
        counts[d.code] += 1
        # A code reported at both levels (a build's checks and its own) shows the worse one.
        if severity.get(d.code) != "error":
            severity[d.code] = d.severity
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [CodeCount(code, n, severity[code], _meaning(code)) for code, n in ordered]


def _meaning(code: str) -> str:
    rule = rule_of(code)  # a project rule's as a built-in one's
    return rule.summary if rule is not None else ""


def format_statistics(diagnostics: Iterable[Diagnostic]) -> str:
    rows = count_codes(diagnostics)
    width = max((len(str(row.count)) for row in rows), default=1)
    return "\n".join(
        f"{row.count:>{width}}  {row.code}  {row.severity:<7}  {row.meaning}" for row in rows
    )
