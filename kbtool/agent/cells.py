"""``run_cells``: a page's cells, run as ``kbtool test`` runs them (a contained process of
their own, limits enforced from outside, results stored and reused), outputs and failures at
their Markdown lines."""

from __future__ import annotations

from kbtool.agent.errors import Refused
from kbtool.agent.models import CellOut, CellsAnswer
from kbtool.agent.paths import page_path
from kbtool.agent.state import AgentWiki

#: The most characters of one cell's stdout, stderr or traceback in an answer.
MAX_OUTPUT = 4_000


def _cut(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_OUTPUT:
        return text
    return text[:MAX_OUTPUT] + f"\n... ({len(text) - MAX_OUTPUT} more characters)"


def run_cells(wiki: AgentWiki, given: str, use_cache: bool = True) -> CellsAnswer:
    from kbtool.execute import run_pages

    path = page_path(wiki, given)
    state = wiki.checked()
    page = state.pages_of([path]).get(path)
    if page is None:
        raise Refused(f"{path} could not be read as a page; run check on it")
    if not page.python_cells:
        raise Refused(f"{path} has no python cells to run")
    notices: list[str] = []
    result = run_pages(
        wiki.config, [page], use_store=use_cache, on_notice=notices.append, store=state.store
    )[0]
    cells = [
        CellOut(
            line=cell.line,
            status=cell.status,
            stdout=_cut(cell.stdout) or "",
            stderr=_cut(cell.stderr) or "",
            value=_cut(cell.value),
            figures=len(cell.figures),
            reason=cell.reason,
            error=_cut(cell.error),
            error_line=cell.error_line,
        )
        for cell in result.cells
    ]
    return CellsAnswer(
        path=path,
        status=result.status,
        cached=result.cached,
        reason=result.reason,
        cells=cells,
        notices=notices,
    )
