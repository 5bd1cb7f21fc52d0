"""Obsidian's embeds and image sizes.

- ``![[name]]``, ``![[name|label]]``: a ``wikilink_embed`` token (the page's link list has it
  as the wikilink it is). An image shown by name may carry its size as the label:
  ``![[a.png|300]]`` is 300 pixels wide, ``![[a.png|300x200]]`` 300 by 200.
- ``![alt|300](a.png)``, ``![alt|300x200](a.png)``: the size at the end of a Markdown image's
  text is taken out of its alt text.

The size goes to the token's ``meta`` (``width``, ``height``) for the renderer.
"""

from __future__ import annotations

import posixpath
import re

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

#: ``[[target]]`` or ``[[target|label]]``; the same pattern as a wikilink's
#: (:data:`kbtool.parse.markdown.WIKILINK`), anchored at the embed's ``[[``.
_EMBED = re.compile(r"\[\[([^\[\]|\n]+?)(?:\|([^\[\]\n]*))?\]\]")
_SIZE = re.compile(r"([0-9]{1,5})(?:x([0-9]{1,5}))?")
_ALT_SIZE = re.compile(r"\|[ \t]*([0-9]{1,5})(?:x([0-9]{1,5}))?[ \t]*$")


def embed_plugin(md: MarkdownIt) -> None:
    """``![[…]]`` as an embed; sizes of embedded and Markdown images."""
    md.inline.ruler.before("image", "wikilink_embed", _embed)
    md.inline.ruler2.push("image_size", _image_sizes)


def size_of(label: str) -> dict[str, str] | None:
    """``{"width": "300"}`` or ``{"width": "300", "height": "200"}`` for a size label."""
    match = _SIZE.fullmatch(label.strip())
    if match is None:
        return None
    size = {"width": match.group(1)}
    if match.group(2):
        size["height"] = match.group(2)
    return size


def _embed(state: StateInline, silent: bool) -> bool:
    start = state.pos
    if not state.src.startswith("![[", start):
        return False
    match = _EMBED.match(state.src, start + 1, state.posMax)
    if match is None:
        return False
    if not silent:
        token = state.push("wikilink_embed", "", 0)
        token.content = match.group(0)
        label = (match.group(2) or "").strip()
        token.meta = {"target": match.group(1).strip(), "label": label, **(size_of(label) or {})}
    state.pos = match.end()
    return True


def _image_sizes(state: StateInline) -> None:
    for token in state.tokens:
        if token.type != "image" or "|" not in token.content:
            continue
        match = _ALT_SIZE.search(token.content)
        last = token.children[-1] if token.children else None
        if match is None or last is None or last.type != "text":
            continue
        in_text = _ALT_SIZE.search(last.content)
        if in_text is None:
            continue
        last.content = last.content[: in_text.start()].rstrip()
        token.content = token.content[: match.start()].rstrip()
        token.meta = {**(token.meta or {}), "width": match.group(1)}
        if match.group(2):
            token.meta["height"] = match.group(2)


def names_a_note(target: str) -> bool:
    """Whether an embed's target is a note (``Note``, ``Note.md``, with any ``#`` part), not
    another file."""
    return posixpath.splitext(target.split("#", 1)[0])[1].lower() in ("", ".md")


def embedded_notes(inline: Token) -> list[str]:
    """The targets of the embeds of notes (not of other files) in an inline token."""
    found = []
    for child in inline.children or ():
        if child.type == "wikilink_embed" and names_a_note(str(child.meta["target"])):
            found.append(str(child.meta["target"]))
    return found
