"""Formulas written ``\\(…\\)`` and ``\\[…\\]``, as MathJax, KaTeX and language models write them.

The delimiters follow MathJax and Pandoc's ``tex_math_single_backslash``: ``\\(`` opens an
inline formula that the first ``\\)`` after it closes, ``\\[`` a display formula that ``\\]``
closes, and nothing in between is Markdown (an ``_`` is a subscript, not emphasis). A ``\\(``
with no ``\\)`` after it in the same paragraph (or only one inside a code span) is CommonMark's
escaped parenthesis, as before. The text between is read as TeX reads it, a backslash and
the next character together, so in ``\\(a \\\\) b\\)`` the ``\\\\`` is TeX's line break and
the formula ends at the last ``\\)``.

The tokens are the dollarmath plugin's, so every later stage (MathML, search text, KB501)
treats ``\\(x\\)`` as ``$x$``, ``\\[x\\]`` in running text as an inline ``$$x$$``
(``math_inline_double``), and ``\\[`` … ``\\]`` on lines of their own as a ``$$`` block
(``math_block``). That block may follow a line of text directly, as such formulas usually
do, and a formula line that looks like a list item (``- \\lambda …``) stays in the formula.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.escape import escape

_CLOSERS = {"(": ")", "[": "]"}
#: Keys of an inline state's cache under which a failed search for a closer is remembered:
#: where it started, and (at the key below) where the text it searched ended.
_NO_CLOSER = {"(": -1, "[": -3}
#: The block state's attribute remembering the last failed search for ``\\]``.
_FAILED = "_kbtool_display_failed"


def _closing(src: str, start: int, end: int, closer: str) -> int:
    """Where ``\\`` + ``closer`` first stands in ``src[start:end]``, read in TeX's pairs; -1."""
    pos = src.find("\\", start, end)
    while 0 <= pos < end - 1:
        if src[pos + 1] == closer:
            return pos
        pos = src.find("\\", pos + 2, end)
    return -1


def _empty(tex: str) -> bool:
    """No formula: only spaces and backslashes, as in CommonMark's ``\\[\\\\\\]`` (escapes)."""
    return not tex.strip(" \t\n\\")


def _escape_or_math(state: StateInline, silent: bool) -> bool:
    """markdown-it's ``escape`` rule, tried after a formula at the same ``\\``.

    One rule for both, in escape's place, rather than a rule of its own before it: the inline
    parser tries its rules in turn at every markup character of every paragraph, and the
    formula rule is then called only where there is a backslash, at no cost anywhere else.
    """
    if state.src[state.pos] != "\\":
        return False
    return _math_inline(state, silent) or escape(state, silent)


def _math_inline(state: StateInline, silent: bool) -> bool:
    src, pos, maximum = state.src, state.pos, state.posMax
    if pos + 2 >= maximum:
        return False
    opener = src[pos + 1]
    if opener not in _CLOSERS:
        return False
    # A search that found no closer from some point to the end of the text finds none from any
    # later point either: remembered, so that thousands of unpaired `\(` take linear time.
    # (The state's cache holds token ends at positions; these keys are below zero.)
    key = _NO_CLOSER[opener]
    if state.cache.get(key, maximum + 1) <= pos and maximum <= state.cache[key - 1]:
        return False
    end = _closing(src, pos + 2, maximum, _CLOSERS[opener])
    if end < 0:
        state.cache[key], state.cache[key - 1] = pos, maximum
        return False
    # Empty, or closed inside a code span (TeX has no use for a backtick): the escape rule
    # makes it a plain `(` or `[`.
    if _empty(src[pos + 2 : end]) or "`" in src[pos + 2 : end]:
        return False
    if not silent:
        token = state.push("math_inline" if opener == "(" else "math_inline_double", "math", 0)
        token.content = src[pos + 2 : end]
        token.markup = "\\" + opener
    state.pos = end + 2
    return True


def _math_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    # Tried at every line of every paragraph (it may interrupt one): the cheapest test first.
    begin = state.bMarks[start_line] + state.tShift[start_line]
    if state.src[begin : begin + 2] != "\\[" or state.is_code_block(start_line):
        return False
    where = (end_line, state.parentType, state.blkIndent)
    failed = getattr(state, _FAILED, None)
    if failed and failed[0] == where and failed[1] < start_line < failed[2]:
        return False  # a search from an earlier line failed at a later one: so would this
    found = _display(state, start_line, begin + 2, end_line)
    if isinstance(found, int):
        setattr(state, _FAILED, (where, start_line, found))
        return False
    if silent:
        return True
    line, tex = found
    state.line = line + 1
    token = state.push("math_block", "math", 0)
    token.block = True
    token.content = tex
    token.markup = "\\["
    token.map = [start_line, state.line]
    return True


def _display(state: StateBlock, start: int, begin: int, end: int) -> tuple[int, str] | int:
    """(closing line, TeX) of the display formula whose ``\\[`` ends at ``begin``, or the
    line where the search failed: a blank one (TeX allows none inside a formula), one
    outdented out of the container, one with text after ``\\]``, or ``end``."""
    line, pieces = start, []
    while line < end:
        text = state.src[begin if line == start else state.bMarks[line] : state.eMarks[line]]
        if line > start and (state.isEmpty(line) or state.sCount[line] < state.blkIndent):
            return line
        close = _closing(text, 0, len(text), "]")
        if close >= 0:
            if text[close + 2 :].strip():
                return line  # `\\[a\\] and more`: a formula in running text, the inline rule's
            pieces.append(text[:close])
            return line, "\n".join(pieces)
        pieces.append(text)
        line += 1
    return end


def backslash_math_plugin(md: MarkdownIt) -> None:
    """Parse ``\\(…\\)`` and ``\\[…\\]`` into the dollarmath plugin's math tokens."""
    md.inline.ruler.at("escape", _escape_or_math)
    md.block.ruler.before(
        "fence",
        "math_block_backslash",
        _math_block,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
