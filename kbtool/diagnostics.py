"""Diagnostics: what a check found, where; which codes are reported, at which severity.

Their output formats are the :mod:`kbtool.report` package."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from kbtool.codes import Level
from kbtool.config import Config


class Diagnostic(NamedTuple):
    """What a check found, where. A tuple: a run makes, stores and reads back thousands (a
    tuple is made in C, and JSON writes it as the array :meth:`row` is)."""

    path: str
    line: int
    col: int
    code: str
    severity: Level
    message: str
    fix: str | None = None

    def format(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.severity} {self.message}"

    def row(self) -> list[Any]:
        """The one encoding of a diagnostic in the store and between processes: its fields
        in order, as JSON takes them (no deep copy: thousands of rows)."""
        return list(self)

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Diagnostic:
        """The diagnostic :meth:`row` encoded; TypeError or ValueError for a row of another
        shape (damaged, or written by another version)."""
        path, line, col, code, severity, message, fix = row
        if not (isinstance(line, int) and isinstance(col, int) and isinstance(message, str)):
            raise TypeError(f"not a diagnostic row: {row!r}")
        return cls(str(path), line, col, str(code), severity, message, fix)


def sort_key(d: Diagnostic) -> tuple[str, int, int, str, str, str, str]:
    """The order of :class:`Diagnostic`, as one tuple each: sorting thousands by comparing
    them makes two tuples per comparison."""
    return (d.path, d.line, d.col, d.code, d.severity, d.message, d.fix or "")


def _matches(code: str, patterns: Iterable[str]) -> bool:
    return any(code.startswith(p) for p in patterns)


def enabled_codes(
    config: Config, select: tuple[str, ...], ignore: tuple[str, ...]
) -> Callable[[str], bool]:
    """Whether a code is reported: selected (if a selection is given), not ignored, not off."""

    def enabled(code: str) -> bool:
        if select and not _matches(code, select):
            return False
        return not _matches(code, ignore + config.ignore) and config.level(code) != "off"

    return enabled


def filter_diagnostics(
    diagnostics: Iterable[Diagnostic],
    config: Config,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    paths: Iterable[str] = (),
) -> list[Diagnostic]:
    """Keep the enabled codes under ``paths``, at their configured severities, sorted."""
    enabled = enabled_codes(config, tuple(select), tuple(ignore))
    folders = tuple(p.rstrip("/") + "/" for p in paths)
    # each code's level once, None if it is not reported: a wiki can have 40,000 of one code
    levels: dict[str, str | None] = {}
    kept = []
    for d in diagnostics:
        if d.code not in levels:
            levels[d.code] = config.level(d.code) if enabled(d.code) else None
        level = levels[d.code]
        if level is None or (folders and not any((d.path + "/").startswith(f) for f in folders)):
            continue
        kept.append(d if level == d.severity else _with_severity(d, level))
    return sorted(kept, key=sort_key)


def _with_severity(d: Diagnostic, level: str) -> Diagnostic:
    return Diagnostic(d.path, d.line, d.col, d.code, level, d.message, d.fix)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Summary:
    errors: int
    warnings: int
    pages: int
    seconds: float

    def format(self) -> str:
        def plural(n: int, word: str) -> str:
            return f"{n} {word}{'' if n == 1 else 's'}"

        return (
            f"{plural(self.errors, 'error')}, {plural(self.warnings, 'warning')}, "
            f"{plural(self.pages, 'page')} checked in {self.seconds:.2f}s"
        )


def summarize(diagnostics: Iterable[Diagnostic], pages: int, seconds: float) -> Summary:
    diagnostics = list(diagnostics)
    errors = sum(d.severity == "error" for d in diagnostics)
    return Summary(errors, len(diagnostics) - errors, pages, seconds)
