"""Obsidian's block ids: ``… ^id`` at the end of a paragraph or list item, or ``^id`` on a
line of its own after a quote, list, table, code block or callout, names that block.

    The power of ten rule. ^rule

    > A quote.

    ^quote-of-the-day

The marker is taken out of the text before the inline parse (so no renderer, search text or
preview shows it) and the block gets the HTML id ``^id`` (``Note#^id`` lands on it). A
marker on a line of its own with no block before it stays text. Ids are letters, digits and
``-``, as Obsidian makes them. What was found is kept in markdown-it's ``env`` for
:func:`kbtool.parse.markdown.parse_body`, which makes the page's :class:`~kbtool.model.Block`
list of it; a second block with the same id keeps its marker hidden but gets no HTML id (a
link lands on the first) and a diagnostic.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Any, NamedTuple

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

_MARKER = re.compile(r"(?:^|\s)\^([A-Za-z0-9-]+)$")


class FoundBlock(NamedTuple):
    """A block id as the parse found it: 0-based line of the marker and the block's lines."""

    id: str
    marker_line: int
    first_line: int
    last_line: int


def block_id_plugin(md: MarkdownIt) -> None:
    """Hide trailing ``^id`` markers and give their blocks the id (after the callouts)."""
    md.core.ruler.before("inline", "block_ids", _block_ids)


def found_blocks(env: MutableMapping[str, Any]) -> list[FoundBlock]:
    """The block ids the parse of a page found, in the order written."""
    found: list[FoundBlock] = env.setdefault("block_ids", [])
    return found


def _block_ids(state: StateCore) -> None:
    tokens = state.tokens
    index = 0
    while index < len(tokens) - 1:
        paragraph, inline = tokens[index], tokens[index + 1]
        index += 1
        if paragraph.type != "paragraph_open" or "^" not in inline.content:
            continue
        match = _MARKER.search(inline.content)
        if match is None:
            continue
        marker_line = (paragraph.map[1] - 1) if paragraph.map else 0
        if match.start() == 0:  # `^id` alone: it names the block before it
            target = _block_before(tokens, index - 1)
            if target is None:
                continue
            del tokens[index - 1 : index + 2]
            index -= 1
        else:
            inline.content = inline.content[: match.start()].rstrip()
            before = tokens[index - 2] if index >= 2 else None
            in_item = before is not None and before.type == "list_item_open"
            target = before if in_item and before is not None else paragraph
        _name(state.env, target, match.group(1), marker_line)


def _block_before(tokens: list[Token], index: int) -> Token | None:
    """The opening token of the block that ends right before ``tokens[index]``, at its level."""
    if index == 0:
        return None
    level, last = tokens[index].level, tokens[index - 1]
    if last.level != level or last.nesting == 1 or not last.block:
        return None
    if last.nesting == 0:
        return last
    opening = last.type.removesuffix("_close") + "_open"
    for position in range(index - 2, -1, -1):
        token = tokens[position]
        if token.level == level and token.type == opening:
            return token
    return None


def _name(env: MutableMapping[str, Any], target: Token, block_id: str, marker_line: int) -> None:
    found = found_blocks(env)
    named: set[str] = env.setdefault("block_ids_named", set())
    lines = target.map or [marker_line, marker_line + 1]
    found.append(FoundBlock(block_id, marker_line, lines[0], max(lines[1] - 1, lines[0])))
    if block_id in named:
        return
    named.add(block_id)
    if target.nesting == 1:
        target.attrSet("id", f"^{block_id}")
    else:  # a code block, formula, rule or HTML block: the renderer wraps it
        target.meta = {**(target.meta or {}), "block_id": block_id}
