"""Bare URLs become links, as on GitHub, and stop where Chinese punctuation starts.

linkify-it-py finds the URL, but it counts full-width punctuation as part of it, so in
``见 https://github.com/lcm-proj/lcm/）。`` the link would end in ``）。``. This rule is
markdown-it's own ``linkify`` inline rule with one change: the text handed to linkify-it ends
before the first CJK or full-width punctuation mark (or any non-ASCII space), which no URL
written in running text contains.

Only URLs with a scheme (``https://…``) are linked: linkify-it's "fuzzy" links would turn a
file name such as ``model.py`` into ``http://model.py``. The links it makes carry
``markup="linkify"``; they are always external, so the link checker passes over them.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_inline.state_inline import StateInline

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


def autolink_plugin(md: MarkdownIt) -> None:
    """Link bare ``scheme://`` URLs (linkify-it-py), stopping at CJK punctuation."""
    if md.linkify is None:  # pragma: no cover - linkify-it-py is a dependency
        raise ModuleNotFoundError("bare-URL links need linkify-it-py")
    md.linkify.set({"fuzzy_link": False, "fuzzy_email": False, "fuzzy_ip": False})
    md.inline.ruler.at("linkify", _linkify)
    md.inline.ruler.enable("linkify")
