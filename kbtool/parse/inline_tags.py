"""Obsidian's tags in a note's text: ``#reading``, nested ``#area/home``, ``#阅读``.

A tag starts at a ``#`` that begins a line or follows a space, and runs over letters (of any
script), digits, ``_``, ``-`` and ``/``; it holds at least one character that is not a digit
(``#2024`` is no tag), as Obsidian's help ("Tags") says. Not in code, not in a link's address,
not after another character (``a#b``, ``[[Note#Heading]]``). Each is an ``obsidian_tag``
token whose content is the tag without its ``#``.

>>> from markdown_it import MarkdownIt
>>> md = MarkdownIt().use(inline_tag_plugin)
>>> [tags_in(t) for t in md.parse("Read #later, #area/home and #2024; not a#b or `#code`.")
...  if t.type == "inline"]
[['later', 'area/home']]
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_inline.state_inline import StateInline
from markdown_it.token import Token

_TAG = re.compile(r"#([\w/-]+)")


def inline_tag_plugin(md: MarkdownIt) -> None:
    """``#tag`` becomes an ``obsidian_tag`` token."""
    md.inline.ruler.push("obsidian_tag", _tokenize)


def _tokenize(state: StateInline, silent: bool) -> bool:
    pos = state.pos
    if state.src[pos] != "#" or pos > 0 and not state.src[pos - 1].isspace():
        return False
    found = _TAG.match(state.src, pos)
    if found is None:
        return False
    tag = found.group(1).strip("/")
    if not tag or all(c.isdigit() or c in "/_-" for c in tag):
        return False
    if not silent:
        token = state.push("obsidian_tag", "", 0)
        token.content, token.markup = tag, "#"
    state.pos = found.end()
    return True


def tags_in(inline: Token) -> list[str]:
    """The tags of an ``inline`` token, in order."""
    return [child.content for child in inline.children or () if child.type == "obsidian_tag"]
