"""``compare-outputs``: each cell's text output against the output saved when it was imported.

nbval's idea, for pages imported from notebooks: ``kbtool notebook NB.ipynb --to md`` keeps each
code cell's saved text output (what it printed, displayed and its value, as text) in
``<page>.outputs.json`` beside the page. With ``compare-outputs: true`` in the page's
frontmatter (or ``kbtool test --compare-outputs``), a cell that ran and whose output differs
fails with KB422 and a diff, at the cell's line. The result itself (and its cache) is
unchanged: the comparison is made on every run, cached or not.

Outputs that vary from run to run:

- memory addresses (``at 0x7f3a…``) are never compared;
- ``...`` in the saved output matches any text (doctest's ELLIPSIS): edit the ``.outputs.json``;
- a cell tagged ``ignore-output`` is not compared at all.

Saved cells are matched to the page's cells by their code, in order, so a cell edited since the
import is not compared; cells whose saved output was an error are not compared either.
"""

from __future__ import annotations

import difflib
import doctest
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from kbtool.config import Config
from kbtool.execute.results import CellResult, PageResult
from kbtool.model import Cell, Page
from kbtool.parse.cells import cell_tags

KEY = "compare-outputs"
IGNORE = "ignore-output"
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
_CHECKER = doctest.OutputChecker()


def saved_outputs_path(page_file: Path) -> Path:
    """``wiki/x.md`` -> ``wiki/x.outputs.json``."""
    return page_file.with_name(page_file.stem + ".outputs.json")


def compare_outputs(config: Config, page: Page, result: PageResult, forced: bool) -> PageResult:
    """``result`` with the cells whose output differs from the saved one failed (KB422)."""
    wanted = page.meta.get(KEY)
    if wanted is not None and not isinstance(wanted, bool):
        return _page_problem(page, result, f"`{KEY}` must be true or false")
    if result.status == "not-run" or not (wanted or forced):
        return result
    sidecar = saved_outputs_path(config.root / page.path)
    try:
        saved = json.loads(sidecar.read_text(encoding="utf-8"))["cells"]
    except FileNotFoundError:
        if not wanted:
            return result  # --compare-outputs: pages that were not imported have nothing saved
        return _page_problem(page, result, f"no saved outputs to compare with ({sidecar.name})")
    except (OSError, ValueError, KeyError, TypeError) as error:
        return _page_problem(page, result, f"cannot read {sidecar.name}: {error}")
    cells = list(result.cells)
    for cell, expected in _matched(page.python_cells, saved):
        position = next((i for i, c in enumerate(cells) if c.index == cell.index), None)
        if position is None or cells[position].status != "passed":
            continue
        if IGNORE in cell_tags(cell.options) or expected.get("error"):
            continue
        diff = _difference(_text(expected), _text_of(cells[position]))
        if diff:
            cells[position] = replace(
                cells[position],
                status="failed",
                reason=f"output differs from the output saved at import ({KEY})",
                error=diff,
                error_line=cell.line,
                code="KB422",
            )
    first = next((c for c in cells if c.status == "failed"), None)
    if first is None or result.status == "failed":
        return replace(result, cells=tuple(cells))
    number = next(n for n, c in enumerate(page.python_cells, 1) if c.index == first.index)
    reason = f"cell-{number}: {first.reason}"
    return replace(result, status="failed", cells=tuple(cells), reason=reason, code=first.code)


def _matched(cells: tuple[Cell, ...], saved: list[Any]) -> list[tuple[Cell, dict[str, Any]]]:
    pairs, start = [], 0
    for entry in saved if isinstance(saved, list) else []:
        if not isinstance(entry, dict):
            continue
        source = str(entry.get("source", "")).rstrip("\n")
        for offset, cell in enumerate(cells[start:]):
            if cell.source.rstrip("\n") == source:
                pairs.append((cell, entry))
                start += offset + 1
                break
    return pairs


def _text(saved: dict[str, Any]) -> str:
    value, displays = saved.get("value"), saved.get("displays") or []
    shown = "".join(f"{text}\n" for text in displays if isinstance(text, str))
    return str(saved.get("stdout") or "") + shown + (f"{value}\n" if value is not None else "")


def _text_of(cell: CellResult) -> str:
    shown = "".join(
        f"{d['text/plain']}\n"
        for d in cell.displays
        if "text/plain" in d and not any(kind.startswith("image/") for kind in d)
    )
    return cell.stdout + shown + (f"{cell.value}\n" if cell.value is not None else "")


def _normal(text: str) -> str:
    lines = text.replace("\r\n", "\n").split("\n")
    return _ADDRESS.sub("0x…", "\n".join(line.rstrip() for line in lines).strip("\n")) + "\n"


def _difference(expected: str, got: str) -> str | None:
    """A unified diff, or None when ``got`` matches (``...`` matching anything)."""
    want, have = _normal(expected), _normal(got)
    if _CHECKER.check_output(want, have, doctest.ELLIPSIS):
        return None
    diff = difflib.unified_diff(
        want.splitlines(keepends=True),
        have.splitlines(keepends=True),
        "saved at import",
        "this run",
    )
    return "".join(diff)


def _page_problem(page: Page, result: PageResult, message: str) -> PageResult:
    line = page.frontmatter.line_of(KEY) if page.frontmatter else 1
    problems = [{"code": "KB423", "message": message, "line": line}]
    return replace(
        result,
        status="failed",
        reason=message,
        code="KB423",
        extra={**result.extra, "problems": problems},
    )
