"""Page -> what the runner needs: which pages run, and each python cell as a plain instruction.

The decisions made here are static (nothing runs): the page's ``execute`` choice, its cell
options (tags, ``timeout``), its network permission and its declared ``inputs``. A page whose
options cannot be read is not run: it fails with the problem, so the author sees it.

Which pages run (``execute`` in ``[tool.kbtool]``):

- ``execute: false`` in the frontmatter always opts a page out;
- ``execute: true`` opts a page in, whatever the configuration;
- otherwise, with ``execute = "all"`` (the default), every wiki page with ``python`` cells runs.
  Source-archive pages keep copies of other people's code, so they run only when opted in.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any, Literal

from kbtool.config import Config
from kbtool.model import Cell, Page
from kbtool.parse.cells import cell_tags

CellMode = Literal["exec", "doctest", "skip"]

SKIP, RAISES = "skip-execution", "raises-exception"
#: Tags that only change how the site shows a cell; kept in results and notebooks.
DISPLAY_TAGS = ("hide-input", "hide-output", "remove-cell")


@dataclass(frozen=True, slots=True)
class CellPlan:
    """One python cell as the page process runs it."""

    index: int  # Cell.index: position among all fenced blocks of the page
    number: int  # 1-based position among the page's python cells: `cell-3`
    line: int  # file line of the first line of code
    source: str
    mode: CellMode
    raises: bool  # tagged raises-exception: passes only if it raises
    timeout: float

    def to_wire(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "number": self.number,
            "line": self.line,
            "source": self.source,
            "mode": self.mode,
            "raises": self.raises,
            "timeout": self.timeout,
        }


@dataclass(frozen=True, slots=True)
class PagePlan:
    path: str  # repository-relative
    cells: tuple[CellPlan, ...]
    network: bool
    inputs: tuple[str, ...]  # repository-relative files the cells read
    #: why the page cannot run as written (bad options, missing inputs); empty when fine
    problems: tuple[str, ...] = ()


def is_doctest(source: str) -> bool:
    return source.lstrip().startswith(">>>")


def not_run_reason(config: Config, page: Page) -> str | None:
    """Why ``page`` is not executed, or None when it is."""
    if not page.python_cells:
        return "no python cells"
    choice = page.meta.get("execute")
    if choice is False:
        return "execute: false"
    if choice is True:
        return None
    if config.execute == "opt-in":
        return 'not opted in (execute = "opt-in"; add `execute: true` to run it)'
    if page.kind != "wiki":
        return "source page (add `execute: true` to run it)"
    return None


def should_run(config: Config, page: Page) -> bool:
    """Whether ``page``'s cells are executed under ``config``."""
    return not_run_reason(config, page) is None


def plan_page(config: Config, page: Page) -> PagePlan:
    problems: list[str] = []
    cells = []
    bad_fences = {p.line: p.message for p in page.problems if p.code == "KB401"}
    for number, cell in enumerate(page.python_cells, start=1):
        if cell.fence_line in bad_fences:
            problems.append(
                f"cell-{number} (line {cell.fence_line}): {bad_fences[cell.fence_line]}"
            )
        plan, problem = _plan_cell(config, cell, number)
        cells.append(plan)
        if problem:
            problems.append(f"cell-{number} (line {cell.fence_line}): {problem}")
    meta = page.meta
    network = config.allow_network
    if "allow-network" in meta:
        if isinstance(meta["allow-network"], bool):
            network = network or meta["allow-network"]
        else:
            problems.append("`allow-network` must be true or false")
    if "execute" in meta and not isinstance(meta["execute"], bool):
        problems.append("`execute` must be true or false")
    inputs, input_problems = _inputs(page)
    return PagePlan(page.path, tuple(cells), network, inputs, tuple(problems + input_problems))


def _plan_cell(config: Config, cell: Cell, number: int) -> tuple[CellPlan, str | None]:
    tags = cell_tags(cell.options)
    problem = None
    timeout = cell.options.get("timeout", config.cell_timeout)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        problem = f"timeout must be a positive number of seconds, got {timeout!r}"
        timeout = config.cell_timeout
    mode: CellMode = "skip" if SKIP in tags else "doctest" if is_doctest(cell.source) else "exec"
    plan = CellPlan(
        cell.index, number, cell.line, cell.source, mode, RAISES in tags, float(timeout)
    )
    return plan, problem


def _inputs(page: Page) -> tuple[tuple[str, ...], list[str]]:
    """``inputs:`` entries as repository-relative paths; entries that leave it are refused."""
    raw = page.meta.get("inputs")
    if raw is None:
        return (), []
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        return (), ["`inputs` must be a list of paths relative to the page"]
    inputs, problems = [], []
    folder = posixpath.dirname(page.path)
    for item in raw:
        joined = posixpath.normpath(posixpath.join(folder, item.strip()))
        if item.strip().startswith("/") or joined == ".." or joined.startswith("../"):
            problems.append(f"input '{item}' is outside the repository (never read)")
        else:
            inputs.append(joined)
    return tuple(inputs), problems
