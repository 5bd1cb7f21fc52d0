"""Mermaid diagrams: the HTML a ```` ```mermaid ```` block becomes, and the library behind it.

The build does not draw diagrams: it writes each one's source, escaped, in a
``<pre class="mermaid-source">``, and a page with one loads ``assets/diagrams.js``, which loads
Mermaid (shipped in the package, never from a CDN) and draws them in the browser. So a page
whose diagram Mermaid cannot draw, or a site built without Mermaid, still shows the source.

Mermaid's minified file is not in the repository: ``make`` installs it with ``npm ci`` (pinned
by version and integrity hash in ``package-lock.json``) and copies it into ``vendor/``, and
the package build puts that folder in the wheel.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from kbtool.diagnostics import Diagnostic
from kbtool.model import Page
from kbtool.render.vendored import MERMAID, VENDOR_DIR

#: What marks a rendered body as holding a diagram (the page template looks for it).
MARKER = "mermaid-source"


def render_diagram(source: str) -> str:
    """The HTML of one diagram: its source, which the browser replaces with the drawing.

    >>> print(render_diagram("graph TD\\n  a --> b<script>"), end="")
    <figure class="diagram"><pre class="mermaid-source">graph TD
      a --&gt; b&lt;script&gt;</pre></figure>
    """
    source = escape(source, quote=False)
    return f'<figure class="diagram"><pre class="{MARKER}">{source}</pre></figure>\n'


def vendor_files() -> dict[str, bytes]:
    """The browser libraries installed into the package (``assets/vendor/...`` in the site)."""
    if not VENDOR_DIR.is_dir():
        return {}
    return {
        f"assets/vendor/{path.name}": path.read_bytes()
        for path in sorted(VENDOR_DIR.iterdir())
        if path.is_file() and not path.name.startswith(".")
    }


def diagram_lines(page: Page) -> tuple[int, ...]:
    """The lines of the page's Mermaid diagrams (of their fences)."""
    return tuple(cell.fence_line for cell in page.cells if cell.language == "mermaid")


def diagram_diagnostics(diagrams: Iterable[tuple[str, int]]) -> list[Diagnostic]:
    """One KB510 warning when pages have diagrams but Mermaid is not installed;
    ``diagrams``: each diagram's page and line, read only then."""
    if MERMAID.is_file():
        return []
    found = sorted(diagrams)
    if not found:
        return []
    path, line = found[0]
    count = len({p for p, _ in found})
    message = (
        f"{len(found)} Mermaid diagram(s) on {count} page(s) will show as source: Mermaid is not "
        "installed in kbtool/render/vendor/ (`make` runs `npm ci` and copies it there)"
    )
    return [Diagnostic(path, line, 1, "KB510", "warning", message)]
