"""Obsidian's comments, ``%%…%%``: in a line, or as lines of their own, shown to nobody.

    Text %%a note to myself%% goes on.

    %%
    A block of comments: paragraphs, lists, anything, until the closing %%.
    %%

Each becomes an ``obsidian_comment`` token that no renderer shows and search does not read
(its text is the token's ``content``, never a child). A ``%%`` that nothing closes stays text,
so nothing written is lost; code spans and code blocks are never comments.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline

_MARK = "%%"


def comment_plugin(md: MarkdownIt) -> None:
    """Hide ``%%…%%`` comments: a block rule for lines of their own, an inline one in text."""
    md.block.ruler.before(
        "table", "obsidian_comment", _comment_block, {"alt": ["paragraph", "blockquote", "list"]}
    )
    md.inline.ruler.before("backticks", "obsidian_comment", _comment_inline)


def _comment_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """Lines from one starting ``%%`` to the first ``%%`` after it that ends its line."""
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False  # an indented code block
    start = state.bMarks[start_line] + state.tShift[start_line]
    if not state.src.startswith(_MARK, start):
        return False
    line, search_from = start_line, start + len(_MARK)
    while line < end_line:
        line_end = state.eMarks[line]
        closing = state.src.find(_MARK, search_from, line_end)
        if closing >= 0:
            if state.src[closing + len(_MARK) : line_end].strip():
                return False  # text after the closing: a comment inside a paragraph
            break
        line += 1
        if line < end_line:
            search_from = state.bMarks[line] + state.tShift[line]
    else:
        return False  # never closed: text
    if silent:
        return True
    token = state.push("obsidian_comment", "", 0)
    token.block, token.map = True, [start_line, line + 1]
    token.content = state.src[start + len(_MARK) : closing]
    state.line = line + 1
    return True


def _comment_inline(state: StateInline, silent: bool) -> bool:
    start = state.pos
    if not state.src.startswith(_MARK, start):
        return False
    closing = state.src.find(_MARK, start + len(_MARK), state.posMax)
    if closing < 0:
        return False
    if not silent:
        token = state.push("obsidian_comment", "", 0)
        token.content = state.src[start + len(_MARK) : closing]
    state.pos = closing + len(_MARK)
    return True
