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
from kbtool.model import Cell, Page, Problem
from kbtool.parse.cells import cell_tags

CellMode = Literal["exec", "doctest", "skip"]

SKIP, RAISES = "skip-execution", "raises-exception"


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
    #: why the page cannot run as written (bad options, bad inputs); empty when fine
    problems: tuple[Problem, ...] = ()


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
    problems: list[Problem] = []
    cells = []
    bad_fences = {p.line: p.message for p in page.problems if p.code == "KB401"}
    for number, cell in enumerate(page.python_cells, start=1):
        where = f"cell-{number}"
        if cell.fence_line in bad_fences:
            message = f"{where}: {bad_fences[cell.fence_line]}"
            problems.append(Problem("KB401", message, cell.fence_line))
        plan, problem = _plan_cell(config, cell, number)
        cells.append(plan)
        if problem:
            problems.append(Problem("KB402", f"{where}: {problem}", cell.fence_line))
    meta = page.meta
    network = config.allow_network
    for key in ("execute", "allow-network"):
        if key in meta and not isinstance(meta[key], bool):
            problems.append(_frontmatter_problem(page, key, f"`{key}` must be true or false"))
    if meta.get("allow-network") is True:
        network = True
    inputs, problem_text = _inputs(page)
    if problem_text:
        problems.append(_frontmatter_problem(page, "inputs", problem_text))
    return PagePlan(page.path, tuple(cells), network, inputs, tuple(problems))


def _frontmatter_problem(page: Page, key: str, message: str) -> Problem:
    line = page.frontmatter.line_of(key) if page.frontmatter else 1
    return Problem("KB403", message, line)


def _plan_cell(config: Config, cell: Cell, number: int) -> tuple[CellPlan, str | None]:
    tags = cell_tags(cell.options)
    problem = None
    timeout = cell.options.get("timeout", config.cell_timeout)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        problem = f"timeout must be a positive number of seconds, got {timeout!r}"
        timeout = config.cell_timeout
    mode: CellMode = "skip" if SKIP in tags else "doctest" if is_doctest(cell.source) else "exec"
    raises = RAISES in tags
    return CellPlan(
        cell.index, number, cell.line, cell.source, mode, raises, float(timeout)
    ), problem


def _inputs(page: Page) -> tuple[tuple[str, ...], str | None]:
    """``inputs:`` entries as repository-relative paths; entries that leave it are refused."""
    raw = page.meta.get("inputs")
    if raw is None:
        return (), None
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        return (), "`inputs` must be a list of paths relative to the page"
    inputs = []
    folder = posixpath.dirname(page.path)
    for item in raw:
        joined = posixpath.normpath(posixpath.join(folder, item.strip()))
        if item.strip().startswith("/") or joined == ".." or joined.startswith("../"):
            return (), f"input '{item}' is outside the repository (never read)"
        inputs.append(joined)
    return tuple(inputs), None
