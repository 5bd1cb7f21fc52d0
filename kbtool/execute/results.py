"""What running a page's cells produces: the values the runner, the cache, the pytest plugin
and the site share. Plain frozen data, JSON-serialisable through :func:`to_dict`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

#: passed: ran and met its expectation; failed: raised (or did not raise under
#: ``raises-exception``) or its doctest differed; skipped: ``skip-execution``;
#: not-run: an earlier cell of the page failed, or the page did not run.
CellStatus = Literal["passed", "failed", "skipped", "not-run"]
#: passed / failed as for cells; not-run: the page is not executed (opt-in mode, or
#: ``execute: false``) — listed as such and never counted as passed.
PageStatus = Literal["passed", "failed", "not-run"]


@dataclass(frozen=True, slots=True)
class CellResult:
    index: int  # the Cell.index of the cell in Page.cells
    line: int  # file line of the cell's first line of code
    status: CellStatus
    duration: float = 0.0
    stdout: str = ""
    stderr: str = ""
    #: text form (repr) of the value of the cell's last expression, if it had one
    value: str | None = None
    #: matplotlib figures the cell produced, as SVG documents
    figures: tuple[str, ...] = ()
    #: one-line reason for a failure or a skip
    reason: str | None = None
    #: traceback (or doctest diff) with Markdown line numbers
    error: str | None = None
    #: file line of the failing statement
    error_line: int | None = None
    #: diagnostic code of a failure (KB4xx, see kbtool.codes)
    code: str | None = None
    #: the last expression's MIME bundle beyond text/plain, as Jupyter computes it (with
    #: IPython): {"text/html": ..., "image/png": base64 text, ...}
    value_data: dict[str, str] | None = None
    #: the MIME bundles of the cell's display() calls, in order
    displays: tuple[dict[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class PageResult:
    path: str
    status: PageStatus
    cells: tuple[CellResult, ...] = ()
    duration: float = 0.0
    reason: str | None = None
    cached: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    #: diagnostic code of the page's failure (KB4xx, see kbtool.codes)
    code: str | None = None

    def cell(self, index: int) -> CellResult | None:
        """The result of the cell whose Cell.index is ``index``."""
        for result in self.cells:
            if result.index == index:
                return result
        return None


def to_dict(result: PageResult) -> dict[str, Any]:
    return asdict(result)


def from_dict(data: dict[str, Any]) -> PageResult:
    cells = tuple(
        CellResult(
            **{
                **c,
                "figures": tuple(c.get("figures", ())),
                "displays": tuple(dict(d) for d in c.get("displays", ())),
            }
        )
        for c in data["cells"]
    )
    return PageResult(**{**data, "cells": cells})
