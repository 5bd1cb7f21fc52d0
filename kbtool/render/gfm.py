"""Render rules for what GitHub renders beyond CommonMark: alert titles and footnotes.

Task-list checkboxes come from markdown-it's own ``list_item_open`` (disabled, since
``tasklists_editable`` is off) and bare URLs are ordinary links; diagrams are in
:mod:`kbtool.render.diagrams`. The rules here are added to the page renderer by
:func:`add_gfm_rules`; the renderer's ``env["kb"].t`` gives the UI strings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape
from typing import Any

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import OptionsDict
from mdit_py_plugins.footnote import index as footnote

#: GitHub's five alert kinds, each with the key of its label in :mod:`kbtool.render.i18n`.
ALERT_KINDS = ("NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION")
_FOOTNOTE_RULES = (
    "footnote_ref",
    "footnote_block_open",
    "footnote_block_close",
    "footnote_open",
    "footnote_close",
    "footnote_anchor",
    "footnote_caption",
    "footnote_anchor_name",
)


def alert_title_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    """``<p class="markdown-alert-title">`` and the kind's label in the site's language."""
    opening = tokens[idx - 1] if idx > 0 else None
    kind = str((opening.meta or {}).get("kind", "NOTE")) if opening else "NOTE"
    if kind not in ALERT_KINDS:
        kind = "NOTE"
    label = env["kb"].t(f"alert_{kind.lower()}")
    if idx + 1 < len(tokens) and tokens[idx + 1].type == "inline":
        tokens[idx + 1].children = []  # markdown-it's English title: the label replaces it
    return f'<p class="markdown-alert-title">{escape(label)}'


def alert_title_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    return "</p>\n"


def add_gfm_rules(renderer: RendererHTML) -> None:
    """Give ``renderer`` the alert-title and footnote rules (the footnote plugin's own)."""
    rules: dict[str, Callable[..., str]] = {
        "alert_title_open": alert_title_open,
        "alert_title_close": alert_title_close,
    }
    rules.update({name: getattr(footnote, f"render_{name}") for name in _FOOTNOTE_RULES})
    for name, function in rules.items():
        renderer.rules[name] = function.__get__(renderer)
