"""A notebook from elsewhere (Jupyter, a book written as notebooks) -> a wiki page.

What importing adds to jupytext's plain conversion, so that the page checks and runs clean:

- a cell whose saved outputs contain an error is tagged ``raises-exception`` (a lesson that
  shows an error keeps showing it, and passes);
- frontmatter with the wiki's required keys: ``type`` (given), ``summary`` (the first
  paragraph of prose, one line) and ``updated`` (today), unless the notebook has frontmatter;
- links to other notebooks being imported (``02.06-x.ipynb#Some-Heading``) point at their new
  pages, with Jupyter's heading anchors turned into the wiki's heading slugs;
- each code cell's saved text output (what it printed, its value as text), for
  ``compare-outputs`` (see :mod:`kbtool.execute.compare`).

The notebook metadata (kernel, jupytext's own) stays out of the page's frontmatter.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import unquote

import nbformat
import yaml
from nbformat import NotebookNode
from nbformat.validator import iter_validate

from kbtool.notebooks.export import notebook_to_page

#: nbformat's functions are untyped; these are their types, so the rest is checked
_from_dict: Callable[[Any], NotebookNode] = nbformat.from_dict
_new_raw_cell: Callable[[str], NotebookNode] = nbformat.v4.new_raw_cell
_iter_validate: Callable[[Any], Iterator[BaseException]] = iter_validate
RAISES = "raises-exception"
_LINK = re.compile(r"(\]\(\s*<?|href=[\"'])([^)\s\"'<>]+?\.ipynb)(#[^)\s\"'<>]*)?")
_SUMMARY_LENGTH = 160


class NotebookProblem(Exception):
    """The file is not a notebook: not JSON, or not nbformat. ``line``: where, if known."""

    def __init__(self, reason: str, line: int = 1, col: int = 1) -> None:
        super().__init__(reason)
        self.reason, self.line, self.col = reason, line, col


@dataclass(frozen=True)
class Imported:
    page: str  # the page's text
    saved: list[dict[str, Any]]  # per code cell: source, stdout, value (saved text output)


def load_notebook(text: str) -> NotebookNode:
    """Parse and validate a notebook; NotebookProblem says why it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookProblem(f"not valid JSON: {error.msg}", error.lineno, error.colno) from None
    if not isinstance(data, dict):
        raise NotebookProblem("not a notebook: the file is JSON, but not a JSON object")
    try:  # the schema first: it says what is wrong, where converting would just fail
        for invalid in _iter_validate(data):
            raise NotebookProblem(f"not a valid notebook (nbformat): {_first_line(invalid)}")
        notebook: NotebookNode = nbformat.reads(text, as_version=4)  # type: ignore[no-untyped-call]
        nbformat.validate(notebook)
    except NotebookProblem:
        raise
    except Exception as error:  # nbformat raises several kinds on a bad notebook
        raise NotebookProblem(f"not a valid notebook (nbformat): {_first_line(error)}") from None
    return notebook


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def has_frontmatter(notebook: NotebookNode) -> bool:
    first = notebook.cells[0] if notebook.cells else None
    return bool(first and first.cell_type == "raw" and first.source.startswith("---"))


def import_notebook(
    notebook: NotebookNode,
    page_type: str,
    links: dict[str, str] | None = None,
    today: date | None = None,
    anchors: dict[str, dict[str, str]] | None = None,
) -> Imported:
    """The page for ``notebook``. ``links``: notebook path -> page path, both relative to the
    folder of this notebook; ``anchors``: per linked notebook, Jupyter anchor -> slug."""
    notebook = _from_dict(json.loads(json.dumps(notebook)))  # never change the input
    saved = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and links:
            cell.source = rewrite_links(cell.source, links, anchors or {})
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        tags = list(cell.metadata.get("tags", []))
        errored = any(o.get("output_type") == "error" for o in outputs)
        if errored and RAISES not in tags:
            cell.metadata["tags"] = [*tags, RAISES]
        saved.append({"source": cell.source, **_text_output(outputs), "error": errored})
    if not has_frontmatter(notebook):
        header = frontmatter(notebook, page_type, today or date.today())
        notebook.cells.insert(0, _new_raw_cell(header))
    # The kernel and jupytext's own metadata stay in the notebook, not in the page (a notebook
    # made by kbtool says so already).
    notebook.metadata.setdefault(
        "jupytext",
        {"notebook_metadata_filter": "-all", "cell_metadata_filter": "tags,timeout,active,-all"},
    )
    return Imported(notebook_to_page(notebook), saved)


def frontmatter(notebook: NotebookNode, page_type: str, today: date) -> str:
    data = {"type": page_type, "summary": summary_of(notebook), "updated": today}
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=1000)
    return f"---\n{text}---"


def summary_of(notebook: NotebookNode) -> str:
    """The first paragraph of prose, as one line of plain text (or the first heading)."""
    from kbtool.parse.markdown import markdown_parser

    heading = ""
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        tokens = markdown_parser().parse(cell.source)
        for position, token in enumerate(tokens):
            if token.type == "inline" and position and tokens[position - 1].type == "heading_open":
                heading = heading or _plain(token)
            elif (
                token.type == "inline"
                and position
                and tokens[position - 1].type == "paragraph_open"
            ):
                text = _plain(token)
                if text:
                    return _shorten(text)
    return _shorten(heading) or "Imported notebook"


def _plain(inline: Any) -> str:
    parts = []
    for child in inline.children or ():
        if child.type in ("text", "code_inline", "math_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def _shorten(text: str) -> str:
    return text if len(text) <= _SUMMARY_LENGTH else text[: _SUMMARY_LENGTH - 1].rstrip() + "…"


def _text_output(outputs: list[Any]) -> dict[str, Any]:
    """What the cell printed (stdout), displayed as text and its value as text, as kbtool
    keeps them (images are not compared: figures and pictures are not text)."""
    stdout, displays, value = [], [], None
    for output in outputs:
        kind = output.get("output_type")
        data = output.get("data", {})
        if kind == "stream" and output.get("name") == "stdout":
            stdout.append(_joined(output.get("text", "")))
        elif kind == "display_data" and "text/plain" in data and not _has_image(data):
            displays.append(_joined(data["text/plain"]))
        elif kind == "execute_result":
            value = _joined(data.get("text/plain", "")) or None
    return {"stdout": "".join(stdout), "displays": displays, "value": value}


def _has_image(data: dict[str, Any]) -> bool:
    return any(kind.startswith("image/") for kind in data)


def _joined(text: str | list[str]) -> str:
    return text if isinstance(text, str) else "".join(text)


def rewrite_links(markdown: str, links: dict[str, str], anchors: dict[str, dict[str, str]]) -> str:
    """Links to imported notebooks -> links to their pages (and their headings' slugs)."""

    def replace(match: re.Match[str]) -> str:
        target = posixpath.normpath(unquote(match.group(2)))
        if target not in links:
            return match.group(0)
        anchor = match.group(3) or ""
        if anchor:
            name = unquote(anchor[1:])
            anchor = "#" + anchors.get(target, {}).get(name, name)
        return f"{match.group(1)}{links[target]}{anchor}"

    return _LINK.sub(replace, markdown)


def heading_anchors(notebook: NotebookNode) -> dict[str, str]:
    """Jupyter's anchor of each heading (its text, spaces as ``-``) -> the page's slug for it,
    as the wiki computes slugs (repeated headings numbered over the whole page)."""
    from kbtool.parse.markdown import parse_body

    prose = "\n\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    anchors: dict[str, str] = {}
    for heading in parse_body(prose, "notebook.md").headings:
        anchors.setdefault(heading.text.replace(" ", "-"), heading.slug)
    return anchors
