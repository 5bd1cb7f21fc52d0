"""The Jinja2 environment: templates shipped in the package, autoescaped everywhere.

Every frontmatter value reaches HTML through a template variable, so autoescape is what keeps
a hostile title or summary inert; only HTML we produced ourselves (the rendered body, the
neighbourhood SVG, the table of contents) is passed in as :class:`markupsafe.Markup`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jinja2

RENDER_DIR = Path(__file__).parent
TEMPLATES_DIR = RENDER_DIR / "templates"
ASSETS_DIR = RENDER_DIR / "assets"


@cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
        autoescape=jinja2.select_autoescape(["html", "xml"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        auto_reload=False,  # templates are package files: no stat per page rendered
    )
