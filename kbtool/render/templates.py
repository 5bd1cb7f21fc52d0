"""The Jinja2 environment: templates shipped in the package, autoescaped everywhere.

Every frontmatter value reaches HTML through a template variable, so autoescape is what keeps
a hostile title or summary inert; only HTML we produced ourselves (the rendered body, the
neighbourhood SVG, the table of contents) is passed in as :class:`markupsafe.Markup`.

The compiled templates are kept between processes in Jinja's own per-user folder, which it
makes private and checks is the user's: a one-shot build loads them in 2 ms instead of
compiling them again (50 ms). Not in the project's cache folder, which a cloned project could
bring with compiled code planted in it.
"""

from __future__ import annotations

import contextlib
from functools import cache
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket

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
        bytecode_cache=_compiled_templates(),
    )


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Jinja's cache of compiled templates, each checked against its source and Jinja's and
    Python's versions when loaded; one that cannot be written costs only the compile."""

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def _compiled_templates() -> jinja2.BytecodeCache | None:
    try:
        return _CompiledTemplates()
    except RuntimeError:  # no private folder of the user's could be made in the temp folder
        return None
