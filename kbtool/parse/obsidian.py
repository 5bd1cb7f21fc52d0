"""What Obsidian reads beyond GitHub's Markdown, as one markdown-it plugin: the parser of
the ``flavor = "obsidian"`` setting (:func:`kbtool.parse.markdown.markdown_parser`).

Each piece is a module of its own: callouts (:mod:`~kbtool.parse.callouts`), ``%%comments%%``
(:mod:`~kbtool.parse.obsidian_comments`), ``==highlights==`` (:mod:`~kbtool.parse.highlights`),
block ids (:mod:`~kbtool.parse.block_ids`, after the callouts, whose body they may name),
embeds with image sizes (:mod:`~kbtool.parse.embeds`) and ``#tags`` in the text
(:mod:`~kbtool.parse.inline_tags`).
"""

from __future__ import annotations

from markdown_it import MarkdownIt

from kbtool.parse.block_ids import block_id_plugin
from kbtool.parse.callouts import callout_plugin
from kbtool.parse.embeds import embed_plugin
from kbtool.parse.highlights import highlight_plugin
from kbtool.parse.inline_tags import inline_tag_plugin
from kbtool.parse.obsidian_comments import comment_plugin

#: The flavors of Markdown kbtool reads (the ``flavor`` setting).
FLAVORS = ("gfm", "obsidian")


def obsidian_plugin(md: MarkdownIt) -> None:
    """Obsidian's syntax on top of the GitHub-flavoured parser."""
    md.use(comment_plugin).use(callout_plugin).use(block_id_plugin)
    md.use(highlight_plugin).use(embed_plugin).use(inline_tag_plugin)
