"""What a build tells: whether it published, its diagnostics and cells, what it rendered."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kbtool.diagnostics import Diagnostic

if TYPE_CHECKING:
    from kbtool.execute.results import PageResult


@dataclass
class BuildReport:
    ok: bool
    site_dir: Path
    diagnostics: list[Diagnostic] = field(default_factory=list)
    failed_cells: list[PageResult] = field(default_factory=list)
    pages: int = 0
    outputs: int = 0
    rendered: int = 0
    reused: int = 0
    #: names of the outputs rendered by this build ("page:<path>", "index.html", ...)
    rendered_outputs: list[str] = field(default_factory=list)
    #: False when every output was already up to date and ``site/`` was left alone
    published: bool = False
    seconds: dict[str, float] = field(default_factory=dict)
    #: of each stage's seconds, those its worker processes had work
    in_workers: dict[str, float] = field(default_factory=dict)
    search: Any = None

    @property
    def errors(self) -> int:
        return sum(d.severity == "error" for d in self.diagnostics)
