"""Obsidian's highlights, ``==text==`` -> ``<mark>``.

A delimiter run of ``=`` pairs as ``~~`` does (markdown-it's strikethrough rule, marker
changed), with the CJK-friendly flanking of :mod:`kbtool.parse.cjk_emphasis`, so
``这是==重点==内容`` is highlighted as Obsidian highlights it. Pairs only: ``a = b`` and
``x === y`` stay text.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_inline.state_inline import Delimiter, StateInline

from kbtool.parse.cjk_emphasis import scan_delims

_EQUALS = 0x3D


def highlight_plugin(md: MarkdownIt) -> None:
    """``==text==`` becomes ``mark_open`` … ``mark_close``."""
    md.inline.ruler.after("strikethrough", "mark", _tokenize)
    md.inline.ruler2.after("strikethrough", "mark", _post_process)


def _tokenize(state: StateInline, silent: bool) -> bool:
    if silent or state.src[state.pos] != "=":
        return False
    scanned = scan_delims(state, state.pos, True)
    length = scanned.length
    if length != 2:  # `=`, `===`, …: text, consumed whole so that no pair is taken out of it
        if length < 2:
            return False
        state.push("text", "", 0).content = "=" * length
        state.pos += length
        return True
    state.push("text", "", 0).content = "=="
    state.delimiters.append(
        Delimiter(_EQUALS, 0, len(state.tokens) - 1, -1, scanned.can_open, scanned.can_close)
    )
    state.pos += length
    return True


def _post_process(state: StateInline) -> None:
    _pair(state, state.delimiters)
    for meta in state.tokens_meta:
        if meta and "delimiters" in meta:
            _pair(state, meta["delimiters"])


def _pair(state: StateInline, delimiters: list[Delimiter]) -> None:
    for start in delimiters:
        if start.marker != _EQUALS or start.end == -1:
            continue
        end = delimiters[start.end]
        opening, closing = state.tokens[start.token], state.tokens[end.token]
        opening.type, opening.tag, opening.nesting, opening.markup = "mark_open", "mark", 1, "=="
        closing.type, closing.tag, closing.nesting, closing.markup = "mark_close", "mark", -1, "=="
        opening.content = closing.content = ""
