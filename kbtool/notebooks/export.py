"""Page <-> Jupyter notebook, through jupytext's Markdown format.

jupytext keeps the frontmatter (as a raw cell), the prose (as Markdown cells) and each
``python`` cell with its options (as cell metadata: tags, ``timeout``), and records in the
notebook's metadata how to write it back, so page -> notebook -> page gives the same bytes.
A notebook made from a page that has a current cached result also carries the cells' outputs
(text, values, figures, errors), for reading; they are not written back into the page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jupytext
import nbformat
from nbformat import NotebookNode

from kbtool.execute.results import CellResult, PageResult
from kbtool.model import Page

#: nbformat's constructor is untyped; this is its type, so the rest of the module is checked
_new_output: Callable[..., NotebookNode] = nbformat.v4.new_output
_KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}


def page_to_notebook(
    text: str, page: Page | None = None, result: PageResult | None = None
) -> NotebookNode:
    """The notebook of a page's text; with its parsed ``page`` and ``result``, with outputs."""
    notebook: NotebookNode = jupytext.reads(text, fmt="md")
    notebook.metadata.setdefault("kernelspec", dict(_KERNEL))  # not written back to the page
    if page is not None and result is not None:
        _attach_outputs(notebook, page, result)
    return notebook


def notebook_to_page(notebook: NotebookNode) -> str:
    return str(jupytext.writes(notebook, fmt="md"))


def notebook_text(notebook: NotebookNode) -> str:
    return str(jupytext.writes(notebook, fmt="ipynb"))


def read_notebook(text: str) -> NotebookNode:
    notebook: NotebookNode = jupytext.reads(text, fmt="ipynb")
    return notebook


def _attach_outputs(notebook: NotebookNode, page: Page, result: PageResult) -> None:
    """Give each code cell the outputs of the page cell with the same code, in order."""
    cells = list(zip(page.python_cells, result.cells, strict=False))
    position, count = 0, 0
    for code in (c for c in notebook.cells if c.cell_type == "code"):
        for offset, (cell, outcome) in enumerate(cells[position:]):
            if cell.source.rstrip("\n") == code.source.rstrip("\n"):
                position += offset + 1
                if outcome.status in ("passed", "failed"):
                    count += 1
                    code.execution_count = count
                    code.outputs = _outputs(outcome, count)
                break


def _outputs(cell: CellResult, count: int) -> list[NotebookNode]:
    outputs = []
    if cell.stdout:
        outputs.append(_new_output("stream", name="stdout", text=cell.stdout))
    if cell.stderr:
        outputs.append(_new_output("stream", name="stderr", text=cell.stderr))
    for bundle in cell.displays:
        outputs.append(_new_output("display_data", data=dict(bundle)))
    for svg in cell.figures:
        data: dict[str, Any] = {"image/svg+xml": svg, "text/plain": "<Figure>"}
        outputs.append(_new_output("display_data", data=data))
    if cell.value is not None:
        data = {**(cell.value_data or {}), "text/plain": cell.value}
        outputs.append(_new_output("execute_result", data=data, execution_count=count))
    if cell.error:
        traceback = cell.error.rstrip("\n").splitlines()
        name, _, value = (traceback[-1] if traceback else "Error").partition(": ")
        outputs.append(_new_output("error", ename=name, evalue=value, traceback=traceback))
    return outputs
