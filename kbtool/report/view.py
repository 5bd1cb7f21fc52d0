"""What every output format of the diagnostics is given: one value, the same for all."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kbtool.diagnostics import Diagnostic, Summary


@dataclass(frozen=True)
class Report:
    diagnostics: list[Diagnostic]
    summary: Summary
    #: the repository root the paths are relative to (SARIF makes them Git-relative)
    root: Path
    #: one line per code (count and meaning) instead of each diagnostic, where the format has it
    statistics: bool = False
