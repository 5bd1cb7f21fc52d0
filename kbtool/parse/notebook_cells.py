"""Which python fences are code cells: the ones jupytext reads as code cells of the notebook.

``kbtool test``, the pytest plugin, the site and ``kbtool notebook`` all take a page's cells
from :attr:`kbtool.model.Page.python_cells`, so that what runs is what Jupyter would run after
``kbtool notebook``. markdown-it finds the fences; jupytext's Markdown reader is line-based and
stricter, so a fence is a code cell only where jupytext agrees:

- it starts at column 0 with backticks and its language is written exactly ``python``
  (```` ``` python ```` with a space counts; ``~~~python``, ```` ```Python ````, a fence
  indented in a list item or quoted in a blockquote are Markdown to jupytext);
- it is not inside a ``<!-- #region -->`` … ``<!-- #endregion -->`` block (nor ``#md``,
  ``#markdown``, ``#raw``), which jupytext keeps as one Markdown (or raw) cell;
- its ``active`` metadata (or an ``active-…`` tag) includes ``ipynb``: other cells are inactive
  in a notebook (jupytext makes them raw cells and comments them out in scripts);
- it has no ``.noeval`` attribute.

``tests/parse/test_notebook_cells.py`` checks the agreement with jupytext itself on every fixture
page and every page of the bundled wiki.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

_START = re.compile(r"^```+\s*python(\s|$)")
_REGION = re.compile(r"^<!--\s*#(region|markdown|md|raw)(.*)-->\s*$")


def region_lines(lines: Sequence[str], fences: Sequence[tuple[int, int]]) -> set[int]:
    """0-based lines inside region blocks. ``fences``: markdown-it's (start, end) line maps of
    the fenced blocks; a region starts only outside them, and (as in jupytext) ends at the first
    end marker, wherever it is."""
    if not any(line.startswith("<!--") for line in lines):
        return set()
    in_fence: set[int] = set()
    for start, end in fences:
        in_fence.update(range(start, end))
    inside: set[int] = set()
    end_marker: re.Pattern[str] | None = None
    for number, line in enumerate(lines):
        if end_marker is not None:
            inside.add(number)
            if end_marker.match(line):
                end_marker = None
        elif number not in in_fence:
            match = _REGION.match(line)
            if match:
                end_marker = re.compile(rf"^<!--\s*#end{match.group(1)}\s*-->\s*$")
                inside.add(number)
    return inside


def is_code_cell(fence_text: str, options: dict[str, Any]) -> bool:
    """Whether jupytext reads a python fence whose first line is ``fence_text`` as a code
    cell that runs in a notebook (its position in a region is checked apart)."""
    if not _START.match(fence_text) or ".noeval" in options:
        return False
    return _active_in_notebooks(options)


def _active_in_notebooks(options: dict[str, Any]) -> bool:
    run_control = options.get("run_control")
    if isinstance(run_control, dict) and run_control.get("frozen") is True:
        return True
    tags = options.get("tags", [])
    for tag in tags if isinstance(tags, list) else []:
        if isinstance(tag, str) and tag.startswith("active-"):
            return "ipynb" in tag.split("-")
    active = options.get("active")
    if active is None:
        return True
    return isinstance(active, str) and "ipynb" in re.split(r"\.|,", active)
