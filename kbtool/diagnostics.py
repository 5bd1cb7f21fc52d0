"""Diagnostics and their three output formats: text (compiler-style), json and github."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

from kbtool.codes import Level
from kbtool.config import Config


@dataclass(frozen=True, slots=True, order=True)
class Diagnostic:
    path: str
    line: int
    col: int
    code: str
    severity: Level
    message: str
    fix: str | None = None

    def format(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.severity} {self.message}"


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
    kept = []
    for d in diagnostics:
        if not enabled(d.code) or (
            folders and not any((d.path + "/").startswith(f) for f in folders)
        ):
            continue
        level = config.level(d.code)
        kept.append(d if level == d.severity else _with_severity(d, level))
    return sorted(kept)


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


def format_text(diagnostics: list[Diagnostic], summary: Summary) -> str:
    lines = [d.format() for d in diagnostics]
    lines.append(summary.format())
    return "\n".join(lines)


def format_json(diagnostics: list[Diagnostic], summary: Summary) -> str:
    return json.dumps(
        {"diagnostics": [asdict(d) for d in diagnostics], "summary": asdict(summary)},
        ensure_ascii=False,
        indent=2,
    )


def _escape_github(text: str, *, property_value: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def format_github(diagnostics: list[Diagnostic], summary: Summary) -> str:
    """GitHub Actions workflow commands: one annotation per diagnostic."""
    lines = []
    for d in diagnostics:
        command = "error" if d.severity == "error" else "warning"
        props = f"file={_escape_github(d.path, property_value=True)},line={d.line},col={d.col}"
        props += f",title={d.code}"
        lines.append(f"::{command} {props}::{_escape_github(d.message)}")
    lines.append(summary.format())
    return "\n".join(lines)


def _format_sarif(diagnostics: list[Diagnostic], summary: Summary) -> str:
    from kbtool.sarif import format_sarif  # imported here: it imports this module

    return format_sarif(diagnostics, summary)


FORMATTERS = {
    "text": format_text,
    "json": format_json,
    "github": format_github,
    "sarif": _format_sarif,
}
