"""Bare URLs become links, as on GitHub, and stop where Chinese punctuation starts.

linkify-it-py finds the URL, but it counts full-width punctuation as part of it, so in
``见 https://github.com/lcm-proj/lcm/）。`` the link would end in ``）。``. This rule is
markdown-it's own ``linkify`` inline rule with one change: the text handed to linkify-it ends
before the first CJK or full-width punctuation mark (or any non-ASCII space), which no URL
written in running text contains.

linkify-it's "fuzzy" links would turn a file name such as ``model.py`` into
``http://model.py``, so they stay off. What GitHub links without a scheme is ``www.`` and a
domain (GFM's "extended www autolink"), which :func:`_www_links` finds in the text tokens after
inline parsing: at the start of a line, after a space, ``*``, ``_``, ``~`` or ``(`` as on
GitHub, and also right after a Chinese character, since Chinese puts no space before a URL.
The link ends where GitHub's does (at a space or ``<``, trailing punctuation and unbalanced
``)`` left out) or earlier, at the first CJK character or full-width punctuation mark.

The links both rules make carry ``markup="linkify"``; they are always external, so the link
checker passes over them.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.common.utils import isLinkClose, isLinkOpen
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline.state_inline import StateInline
from markdown_it.token import Token

#: The scheme just before ``://``, at the end of the text not yet flushed into a token.
_SCHEME = re.compile(r"(?:^|[^a-z0-9.+-])([a-z][a-z0-9.+-]*)$", re.IGNORECASE)
#: Where a bare URL in Chinese text ends at the latest: general punctuation (“”‘’…— and the
#: typographic spaces), CJK symbols and punctuation (、。「」《》【】 and U+3000), the
#: vertical and small forms, and the full-width ASCII punctuation (（），：；！？).
_STOP = re.compile(
    "[\u2000-\u206f\u3000-\u303f\ufe10-\ufe1f\ufe30-\ufe6f"
    "\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\uffe0-\uffee]"
)


def _linkify(state: StateInline, silent: bool) -> bool:
    pos, maximum, src = state.pos, state.posMax, state.src
    if state.linkLevel > 0 or pos + 3 > maximum or not src.startswith("://", pos):
        return False
    match = _SCHEME.search(state.pending)
    if not match or state.md.linkify is None:
        return False
    scheme = match.group(1)
    stop = _STOP.search(src, pos, maximum)
    end = stop.start() if stop else maximum
    link = state.md.linkify.match_at_start(src[pos - len(scheme) : end])
    if not link:
        return False
    url: str = link.url.rstrip("*")  # a trailing `*` closes emphasis, as in markdown-it
    full_url = state.md.normalizeLink(url)
    if not state.md.validateLink(full_url):
        return False
    if not silent:
        state.pending = state.pending[: -len(scheme)]
        token = state.push("link_open", "a", 1)
        token.attrs = {"href": full_url}
        token.markup, token.info = "linkify", "auto"
        state.push("text", "", 0).content = state.md.normalizeLinkText(url)
        token = state.push("link_close", "a", -1)
        token.markup, token.info = "linkify", "auto"
    state.pos += len(url) - len(scheme)
    return True


#: ``www.``, a domain (GFM: letters, digits, ``_`` and ``-`` between dots), then the path up
#: to a space, ``<``, or a CJK character or mark (from U+2E80, and the general punctuation).
_WWW = re.compile(r"www\.([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)[^\s<\u2000-\u206f\u2e80-\uffff]*")
#: What may stand right before ``www.``: GitHub's set, and any CJK character or mark.
_BEFORE = frozenset(" \t\n*_~(")
#: Tokens after which a text token's first character starts a word.
_OPENS_WORD = frozenset({"softbreak", "hardbreak", "em_open", "em_close", "strong_open"})
_OPENS_WORD |= {"strong_close", "s_open", "s_close"}
_TRAILING = "?!.,:*_~"
_ENTITY = re.compile(r"&[A-Za-z0-9]+;$")


def _www_end(text: str) -> str:
    """GFM's extended autolink path validation: trailing punctuation, an unbalanced ``)``
    and an entity-like ``&amp;`` at the end are not part of the link."""
    while text:
        if text[-1] in _TRAILING or text[-1] == ")" and text.count(")") > text.count("("):
            text = text[:-1]
        elif text[-1] == ";" and (entity := _ENTITY.search(text)):
            text = text[: entity.start()]
        else:
            return text
    return text


def _split_www(md: MarkdownIt, token: Token, word_start: bool) -> list[Token] | None:
    """``token`` (text) as text and link tokens, or None when it holds no ``www.`` link."""
    content, pos, out = token.content, 0, list[Token]()
    for match in _WWW.finditer(content):
        start = match.start()
        before = content[start - 1] if start else None
        if not (word_start if before is None else before in _BEFORE or before >= "\u2e80"):
            continue
        domain = match.group(1).split(".")
        if "_" in "".join(domain[-2:]):
            continue  # GFM: no underscore in the last two labels of the domain
        text = _www_end(match.group())
        href = md.normalizeLink("http://" + text)
        if text.count(".") == 0 or not md.validateLink(href):
            continue
        if start > pos:
            out.append(_text(token, content[pos:start]))
        opening = Token("link_open", "a", 1, attrs={"href": href}, markup="linkify", info="auto")
        closing = Token("link_close", "a", -1, markup="linkify", info="auto")
        out += [opening, _text(token, md.normalizeLinkText(text)), closing]
        pos = start + len(text)
    if not out:
        return None
    if pos < len(content):
        out.append(_text(token, content[pos:]))
    return out


def _text(like: Token, content: str) -> Token:
    return Token("text", "", 0, content=content, level=like.level)


def _www_links(state: StateCore) -> None:
    if "www." not in state.src:
        return
    for inline in state.tokens:
        if inline.type != "inline" or not inline.children or "www." not in inline.content:
            continue
        children, out, depth, previous = inline.children, list[Token](), 0, None
        for child in children:
            if child.type == "link_open" or (
                child.type == "html_inline" and isLinkOpen(child.content)
            ):
                depth += 1
            elif child.type == "link_close" or (
                child.type == "html_inline" and isLinkClose(child.content)
            ):
                depth -= 1
            parts = None
            if child.type == "text" and depth <= 0 and "www." in child.content:
                parts = _split_www(
                    state.md, child, previous is None or previous.type in _OPENS_WORD
                )
            out += parts or [child]
            previous = child
        inline.children = out


def autolink_plugin(md: MarkdownIt) -> None:
    """Link bare ``scheme://`` URLs (linkify-it-py) and ``www.`` domains, as GitHub does,
    stopping at CJK punctuation."""
    if md.linkify is None:  # pragma: no cover - linkify-it-py is a dependency
        raise ModuleNotFoundError("bare-URL links need linkify-it-py")
    md.linkify.set({"fuzzy_link": False, "fuzzy_email": False, "fuzzy_ip": False})
    md.inline.ruler.at("linkify", _linkify)
    md.inline.ruler.enable("linkify")
    md.core.ruler.push("www_links", _www_links)
