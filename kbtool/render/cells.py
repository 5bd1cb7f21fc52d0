"""A fenced block on the site: its code, and under an executed cell what it really produced.

Jupyter Book's tags decide what shows: ``remove-cell`` shows nothing, ``remove-input`` /
``remove-output`` drop one half, ``hide-input`` / ``hide-output`` fold it into a
``<details>`` the reader can open. Figures are separate SVG files shown with ``<img>``, so
whatever a figure contains, it can run no script in the page. Rich outputs (``display()`` and
a value's MIME bundle) are shown by :mod:`kbtool.render.rich`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape

from kbtool.execute.results import CellResult
from kbtool.model import Cell
from kbtool.parse.cells import cell_tags
from kbtool.render import urls
from kbtool.render.highlight import highlight
from kbtool.render.rich import render_bundle


@dataclass
class CellOutputs:
    """What rendering a page's cells adds beside its HTML: figures (SVG) by digest, and image
    files of rich outputs by site-relative name."""

    figures: dict[str, str] = field(default_factory=dict)
    images: dict[str, bytes] = field(default_factory=dict)


def figure_digest(svg: str) -> str:
    return hashlib.blake2b(svg.encode("utf-8"), digest_size=12).hexdigest()


def _fold(summary: str, inner: str, css: str) -> str:
    return f'<details class="{css}"><summary>{escape(summary)}</summary>{inner}</details>'


def render_cell(cell: Cell, t: Callable[..., str], output_hole: str) -> str:
    """HTML for one fenced block, with ``output_hole`` where an executed cell's outputs go
    (filled in by :func:`render_outputs` once the page's results are known)."""
    tags = cell_tags(cell.options)
    if "remove-cell" in tags:
        return ""
    parts: list[str] = []
    if "remove-input" not in tags:
        code = highlight(cell.source, cell.language)
        parts.append(_fold(t("show_code"), code, "cell-input") if "hide-input" in tags else code)
    if cell.is_python and "remove-output" not in tags:
        parts.append(output_hole)
    css = "cell" if cell.is_python else "code-block"
    return f'<div class="{css}" data-line="{cell.line}">{"".join(parts)}</div>\n'


def render_outputs(
    cell: Cell,
    result: CellResult | None,
    t: Callable[..., str],
    file_src: Callable[[str], str],
    outputs: CellOutputs,
) -> str:
    """What a cell produced, as shown under its code (folded for ``hide-output``).
    ``file_src(name)`` gives the relative URL of a site file."""
    shown = _outputs(cell, result, t, file_src, outputs)
    if not shown:
        return ""
    inner = f'<div class="cell-output" aria-label="{escape(t("output"))}">{shown}</div>'
    if "hide-output" in cell_tags(cell.options):
        return _fold(t("show_output"), inner, "cell-output-fold")
    return inner


def _outputs(
    cell: Cell,
    result: CellResult | None,
    t: Callable[..., str],
    file_src: Callable[[str], str],
    outputs: CellOutputs,
) -> str:
    if result is None:
        return ""
    if result.status == "skipped":
        return f'<p class="cell-note">{escape(t("cell_skipped"))}</p>'
    if result.status == "not-run":
        return f'<p class="cell-note">{escape(t("cell_not_run"))}</p>'
    parts: list[str] = []
    if result.stdout:
        parts.append(f'<pre class="cell-stdout">{escape(result.stdout)}</pre>')
    if result.error:
        label = t("cell_raised") if result.status == "passed" else ""
        note = f'<p class="cell-note">{escape(label)}</p>' if label else ""
        parts.append(f'{note}<pre class="cell-error">{escape(result.error)}</pre>')
    alt = t("figure_alt", n=1, line=cell.line)
    for bundle in result.displays:
        parts.append(render_bundle(bundle, outputs.images, file_src, alt))
    if result.value_data:
        bundle = {**result.value_data, "text/plain": result.value or ""}
        parts.append(render_bundle(bundle, outputs.images, file_src, alt))
    elif result.value is not None:
        parts.append(f'<pre class="cell-value">{escape(result.value)}</pre>')
    for number, svg in enumerate(result.figures, 1):
        digest = figure_digest(svg)
        outputs.figures[digest] = svg
        src = escape(file_src(urls.figure_output(digest)))
        alt = escape(t("figure_alt", n=number, line=cell.line))
        parts.append(
            f'<figure class="cell-figure"><img src="{src}" alt="{alt}" loading="lazy"></figure>'
        )
    return "".join(parts)
