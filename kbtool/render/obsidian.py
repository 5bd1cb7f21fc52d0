"""Render rules for what Obsidian shows beyond GitHub (the tokens of :mod:`kbtool.parse.obsidian`).

- A callout is ``<div class="callout callout-tip">`` with a title and a body; a foldable one
  (``[!tip]+`` open, ``[!tip]-`` closed) is ``<details>`` with the title as its ``<summary>``,
  so it folds and unfolds without JavaScript. The icon is drawn by the stylesheet
  (``.callout-icon``), one per type, so the page carries no SVG and fetches nothing.
- ``%%comments%%`` render as nothing; ``==highlights==`` are markdown-it's own ``<mark>``.
- ``![[name]]`` is an ``embed`` hole (filled in :mod:`kbtool.render.fill`): an image shown at
  its size, or, for now, a link to what it names.
- A code block, formula or HTML block given a block id is wrapped in a ``<div>`` with the id
  (:func:`wrap_block_id`); the other blocks carry it on their own tag.

The rules read the page context from ``env["kb"]`` (:class:`kbtool.render.markdown._Context`):
only its ``hole`` method.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape
from typing import Any

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

_Rule = Callable[[RendererHTML, Sequence[Token], int, OptionsDict, Any], str]


def _folds(token: Token) -> bool:
    return bool((token.meta or {}).get("fold"))


def _opening(tokens: Sequence[Token], idx: int, kind: str) -> Token:
    """The ``callout_open`` of the callout whose ``kind`` token is at ``idx``."""
    if kind == "title":  # callout_open, callout_title_open, inline, callout_title_close
        return tokens[idx - 3] if tokens[idx].nesting == -1 else tokens[idx - 1]
    level = tokens[idx].level
    for position in range(idx - 1, -1, -1):
        if tokens[position].type == "callout_open" and tokens[position].level == level:
            return tokens[position]
    return tokens[idx]  # never expected: the parser pairs them


def callout_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    token = tokens[idx]
    kind = str((token.meta or {}).get("kind", "note"))
    block_id = token.attrGet("id")
    id_attr = f' id="{escape(str(block_id))}"' if block_id else ""
    if not _folds(token):
        return f'<div class="callout callout-{kind}"{id_attr}>\n'
    opened = " open" if token.meta["fold"] == "+" else ""
    return f'<details class="callout callout-{kind}"{id_attr}{opened}>\n'


def callout_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    return "</details>\n" if _folds(_opening(tokens, idx, "callout")) else "</div>\n"


def callout_title_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    tag = "summary" if _folds(_opening(tokens, idx, "title")) else "p"
    icon = '<span class="callout-icon" aria-hidden="true"></span>'
    return f'<{tag} class="callout-title">{icon}<span class="callout-title-text">'


def callout_title_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    tag = "summary" if _folds(_opening(tokens, idx, "title")) else "p"
    return f"</span></{tag}>\n"


def callout_body_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    return '<div class="callout-body">\n'


def callout_body_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    return "</div>\n"


def obsidian_comment(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    token = tokens[idx]
    if not token.block:  # the lines it hides still count, for a diagnostic's line after it
        env["kb"].line += token.content.count("\n")
    return ""


def wikilink_embed(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    meta = tokens[idx].meta or {}
    size = (str(meta.get("width", "")), str(meta.get("height", "")))
    return str(
        env["kb"].hole("embed", str(meta.get("target", "")), str(meta.get("label", "")), *size)
    )


def obsidian_tag(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    # Marked, not linked: a note's body may be shown in a note of another folder (an embed),
    # and its tags are linked to their pages in the note's header.
    return f'<span class="tag inline-tag">#{escape(tokens[idx].content)}</span>'


def wrap_block_id(token: Token, html: str) -> str:
    """``html`` of a block with no tag of its own to carry an id, in a ``<div>`` that has it."""
    block_id = (token.meta or {}).get("block_id") if token.nesting == 0 else None
    if not block_id:
        return html
    return f'<div class="block" id="^{escape(str(block_id))}">\n{html}</div>\n'


def add_obsidian_rules(renderer: RendererHTML) -> None:
    """Give ``renderer`` the rules of Obsidian's tokens."""
    rules: dict[str, _Rule] = {
        "callout_open": callout_open,
        "callout_close": callout_close,
        "callout_title_open": callout_title_open,
        "callout_title_close": callout_title_close,
        "callout_body_open": callout_body_open,
        "callout_body_close": callout_body_close,
        "obsidian_comment": obsidian_comment,
        "wikilink_embed": wikilink_embed,
        "obsidian_tag": obsidian_tag,
    }
    for name, function in rules.items():
        renderer.rules[name] = function.__get__(renderer)
