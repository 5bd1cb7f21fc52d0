"""Obsidian's callouts: a blockquote whose first line is ``[!type]``, with an optional fold
mark (``+`` open, ``-`` closed) and title.

    > [!tip]- Folded, with a *custom* title
    > The body, any Markdown, nested callouts included (``> > [!todo]``).

A core rule run between the block and the inline parse turns such a blockquote's tokens
into ``callout_open`` / ``callout_title_*`` / ``callout_body_*`` / ``callout_close``, so the
title and the body are then parsed as any inline text and any blocks are. Working on the
block tokens, not on the source, is why nesting costs nothing: markdown-it's own blockquote
rule has already found every quote, at every depth.

Our own rule rather than mdformat-obsidian's: that package pulls in mdformat and
mdformat-gfm for its one plugin, compiles its pattern at every line of every page, renders
folding with ``style="display: none"`` (which needs JavaScript to open) and does not know
Obsidian's aliases. This one is a pass over the tokens of the pages that have a blockquote.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from kbtool.model import Problem

#: Obsidian's callout types, each alias by the type it is shown as (Obsidian's help,
#: "Callouts", "Supported types").
CALLOUT_TYPES: dict[str, str] = {
    "note": "note",
    "abstract": "abstract",
    "summary": "abstract",
    "tldr": "abstract",
    "info": "info",
    "todo": "todo",
    "tip": "tip",
    "hint": "tip",
    "important": "tip",
    "success": "success",
    "check": "success",
    "done": "success",
    "question": "question",
    "help": "question",
    "faq": "question",
    "warning": "warning",
    "caution": "warning",
    "attention": "warning",
    "failure": "failure",
    "fail": "failure",
    "missing": "failure",
    "danger": "danger",
    "error": "danger",
    "bug": "bug",
    "example": "example",
    "quote": "quote",
    "cite": "quote",
}
#: The code of a callout whose type Obsidian does not know (shown as a note, as Obsidian does).
UNKNOWN_TYPE = "KB230"
_MARKER = re.compile(r"\[!([^\]\s]+)\]([+-]?)[ \t]*(.*)")


def callout_plugin(md: MarkdownIt) -> None:
    """Read blockquotes that start with ``[!type]`` as callouts."""
    md.core.ruler.after("block", "callout", _callouts)


def callout_problems(env: MutableMapping[str, Any]) -> list[Problem]:
    """What the parse of a page noticed about its callouts (kept in markdown-it's ``env``)."""
    problems: list[Problem] = env.setdefault("callout_problems", [])
    return problems


def _callouts(state: StateCore) -> None:
    tokens = state.tokens
    if not any(t.type == "blockquote_open" for t in tokens):
        return
    out: list[Token] = []
    open_quotes: list[bool] = []  # for each blockquote open now: whether it is a callout
    depth = 0  # callouts open now: what lies inside one is a level deeper
    index = 0
    while index < len(tokens):
        token = tokens[index]
        token.level += depth
        if token.type == "blockquote_open":
            marker = _marker(tokens, index)
            open_quotes.append(marker is not None)
            if marker is not None:
                index = _open_callout(state, tokens, index, marker, out)
                depth += 1
                continue
        elif token.type == "blockquote_close" and open_quotes.pop():
            depth -= 1
            body_close = Token("callout_body_close", "div", -1)
            body_close.level = token.level
            token.type, token.tag = "callout_close", ""
            token.level -= 1
            out += (body_close, token)
            index += 1
            continue
        out.append(token)
        index += 1
    state.tokens = out


def _marker(tokens: list[Token], index: int) -> re.Match[str] | None:
    """The ``[!type]`` line's match, if the quote at ``index`` starts with one."""
    if index + 2 >= len(tokens) or tokens[index + 1].type != "paragraph_open":
        return None
    first_line = tokens[index + 2].content.split("\n", 1)[0]
    return _MARKER.fullmatch(first_line.rstrip())


def _open_callout(
    state: StateCore, tokens: list[Token], index: int, marker: re.Match[str], out: list[Token]
) -> int:
    """Append the callout's opening and title tokens; return the index to go on from."""
    quote, paragraph, inline = tokens[index], tokens[index + 1], tokens[index + 2]
    written, fold, title = marker.group(1), marker.group(2), marker.group(3).strip()
    kind = CALLOUT_TYPES.get(written.lower())
    line = (quote.map[0] if quote.map else 0) + 1
    if kind is None:
        message = f"callout type '{written}' is not one of Obsidian's: it is shown as a note"
        callout_problems(state.env).append(Problem(UNKNOWN_TYPE, message, line, 1))
    level = quote.level
    callout = Token("callout_open", "", 1)
    callout.map, callout.level, callout.markup = quote.map, level, ">"
    callout.meta = {"kind": kind or "note", "written": written, "fold": fold}
    callout.attrs = dict(quote.attrs)  # a block id given to the quote
    title_open = Token("callout_title_open", "", 1)
    title_open.level = level + 1
    title_inline = Token("inline", "", 0)
    title_inline.content = title or written[:1].upper() + written[1:].lower()
    title_inline.map, title_inline.level, title_inline.children = [line - 1, line], level + 2, []
    title_close = Token("callout_title_close", "", -1)
    title_close.level = level + 1
    body_open = Token("callout_body_open", "div", 1)
    body_open.level = level + 1
    out += (callout, title_open, title_inline, title_close, body_open)
    rest = inline.content.split("\n", 1)[1] if "\n" in inline.content else ""
    if not rest:  # a title-only first paragraph: its three tokens are the title now
        return index + 4
    # The paragraph's other lines are the body's first paragraph.
    inline.content = rest
    if paragraph.map:
        paragraph.map = inline.map = [paragraph.map[0] + 1, paragraph.map[1]]
    return index + 1
