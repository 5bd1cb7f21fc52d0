"""Link rewriting, shared by ``kbtool mv`` and the language server's renames.

An edit replaces an exact span of one line of a file (the raw target of a link, as the page
model located it), so every other byte of the file is kept: line endings, quoting, the YAML
layout. :mod:`kbtool.edits.spans` applies edits to bytes; :mod:`kbtool.edits.moves` plans the
edits a move of pages or folders needs; :mod:`kbtool.edits.headings` those of a renamed
heading.
"""

from kbtool.edits.spans import TextEdit, apply_edits

__all__ = ["TextEdit", "apply_edits"]
