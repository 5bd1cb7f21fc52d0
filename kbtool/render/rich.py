"""A cell's rich output (a MIME bundle, as Jupyter computes it) as HTML for the site.

The richest form the site can show safely wins, in Jupyter's order: HTML (cleaned by nh3, as
raw HTML in pages is: a DataFrame is a table, a ``<script>`` is gone), Markdown (rendered, then
cleaned), LaTeX (MathML, through the same converter as the pages' formulas), SVG, PNG and JPEG
(files beside the page, shown with ``<img>``, so an image can run no script), then text.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable
from html import escape

from kbtool.render.mathml import to_mathml
from kbtool.render.sanitize import sanitize_html

_IMAGES = {"image/svg+xml": "svg", "image/png": "png", "image/jpeg": "jpg"}


def file_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def render_bundle(
    bundle: dict[str, str],
    images: dict[str, bytes],
    file_src: Callable[[str], str],
    alt: str,
) -> str:
    """HTML for one bundle; image files to write are added to ``images`` (name -> bytes)."""
    if "text/html" in bundle:
        return f'<div class="cell-html">{sanitize_html(bundle["text/html"])}</div>'
    if "text/markdown" in bundle:
        from kbtool.parse.markdown import markdown_parser

        html = markdown_parser().render(bundle["text/markdown"])
        return f'<div class="cell-markdown">{sanitize_html(html)}</div>'
    if "text/latex" in bundle:
        formula = to_mathml(_tex(bundle["text/latex"]), True)
        if formula.error is None:
            return f'<div class="cell-math">{formula.html}</div>'
    for kind, extension in _IMAGES.items():
        if kind in bundle:
            data = _image_bytes(kind, bundle[kind])
            if data is not None:
                name = f"figures/{file_digest(data)}.{extension}"
                images[name] = data
                return (
                    f'<figure class="cell-figure"><img src="{escape(file_src(name))}" '
                    f'alt="{escape(alt)}" loading="lazy"></figure>'
                )
    text = bundle.get("text/plain", bundle.get("text/latex", ""))
    return f'<pre class="cell-value">{escape(text)}</pre>' if text else ""


def _tex(latex: str) -> str:
    """The formula inside Jupyter's ``$$…$$`` / ``$…$`` wrapping."""
    tex = latex.strip()
    for fence in ("$$", "$"):
        if tex.startswith(fence) and tex.endswith(fence) and len(tex) > 2 * len(fence):
            return tex[len(fence) : -len(fence)].strip()
    return tex


def _image_bytes(kind: str, text: str) -> bytes | None:
    if kind == "image/svg+xml":
        return text.encode("utf-8")
    try:
        return base64.b64decode(text, validate=False)
    except (binascii.Error, ValueError):
        return None
