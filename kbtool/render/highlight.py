"""Code highlighting with Pygments, at build time; the colours live in one CSS file."""

from __future__ import annotations

from functools import lru_cache
from html import escape

from pygments import highlight as _highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

_LIGHT_STYLE = "friendly"
_DARK_STYLE = "github-dark"


@lru_cache(maxsize=256)
def _lexer(language: str) -> Lexer | None:
    if not language:
        return None
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@lru_cache(maxsize=1)
def _formatter() -> HtmlFormatter:
    return HtmlFormatter(nowrap=True)


@lru_cache(maxsize=4096)
def highlight(code: str, language: str) -> str:
    """``<pre class="highlight">`` for ``code``; unknown languages are shown escaped, as text.

    >>> highlight("x = 1", "python").startswith('<pre class="highlight" data-lang="python"><code>')
    True
    """
    lexer = _lexer(language.lower())
    body = _highlight(code, lexer, _formatter()) if lexer else escape(code, quote=False)
    lang = f' data-lang="{escape(language)}"' if language else ""
    return f'<pre class="highlight"{lang}><code>{body}</code></pre>'


#: Where the dark colours apply: the reader chose dark (``data-theme`` on ``<html>``, set by
#: ``assets/theme.js``), or chose nothing and the system is dark.
_DARK_CHOSEN = ':root[data-theme="dark"] .highlight'
_DARK_SYSTEM = ":root:not([data-theme]) .highlight"


def _dark_defs(selector: str) -> str:
    # Not get_style_defs(): its `pre` and line-number rules are not scoped to the selector.
    dark = HtmlFormatter(style=_DARK_STYLE)
    return "\n".join(dark.get_background_style_defs(selector) + dark.get_token_style_defs(selector))


def stylesheet() -> str:
    """Light colours, and dark ones for a reader who chose dark or whose system is dark.

    >>> css = stylesheet()
    >>> ':root[data-theme="dark"] .highlight .k ' in css and "prefers-color-scheme: dark" in css
    True
    """
    light = HtmlFormatter(style=_LIGHT_STYLE).get_style_defs(".highlight")
    system = "\n".join("  " + line for line in _dark_defs(_DARK_SYSTEM).splitlines())
    return (
        f"{light}\n{_dark_defs(_DARK_CHOSEN)}\n"
        f"@media (prefers-color-scheme: dark) {{\n{system}\n}}\n"
    )
