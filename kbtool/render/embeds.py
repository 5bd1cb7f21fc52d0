"""``![[Note]]``, ``![[Note#Heading]]``, ``![[Note#^block]]``: another note's body, one of its
sections or one of its blocks, shown in place with a link to where it comes from.

The part is cut from the embedded note's rendered body (its HTML with holes), so it shows what
that note's page shows; its holes are filled from that note's place in the wiki, its URLs made
from the embedding page's. Ids inside it are dropped: the embedding page's own headings and
blocks keep theirs. An embed inside an embedded part is shown too, up to ``DEPTH`` deep; a note
that embeds itself, directly or through others, shows a notice instead, and a diagnostic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from html import escape
from typing import NamedTuple

from kbtool.diagnostics import Diagnostic
from kbtool.render.markdown import PageBody

#: how many embeds deep a page shows
DEPTH = 4
_ID = re.compile(r'\sid="[^"]*"')
_HEADING = re.compile(r"<h([1-6])[\s>]")


@dataclass(frozen=True)
class Shown:
    """What one embed of a page shows, as its page's filler puts it in: the hole's text, then
    the HTML it put aside (which the text's markers number); what it reports; the files its
    parts link to; and the notes it shows, nested ones too."""

    html: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]
    files: frozenset[str]
    notes: tuple[str, ...] = ()


class PageEmbeds(NamedTuple):
    """What a page's embeds of notes show, for its key: the digest of them all, the notes
    they show (nested ones too), and the numbers of the body's holes that embed a note."""

    digest: str
    notes: tuple[str, ...]
    holes: tuple[int, ...]


def embed_key(path: str, index: int) -> str:
    """The key of one embed of a page: its path and the number of its body's hole (a path
    has no ``|``)."""
    return f"{path}|{index}"


@dataclass(frozen=True)
class EmbedSource:
    """Where an embed finds what it shows of a note: the part of its body (:func:`cut`) an
    anchor names, read when first asked for; None where there is no such note or part.
    ``shown(index)``: the embed at the page's hole ``index`` made already, or None."""

    part_of: Callable[[str, str | None], PageBody | None]
    shown: Callable[[int], Shown | None] = lambda index: None

    @classmethod
    def of_bodies(
        cls, body_of: Callable[[str], PageBody | None], shown: Callable[[int], Shown | None]
    ) -> EmbedSource:
        """The parts cut from the bodies ``body_of`` gives, the embeds made already from
        ``shown``."""
        return cls(lambda path, anchor: cut(body_of(path), anchor), shown)


def cut(body: PageBody | None, anchor: str | None) -> PageBody | None:
    """``body`` with only the part an embed names (:func:`part_of`) as its HTML."""
    part = part_of(body, anchor) if body is not None else None
    return None if body is None or part is None else replace(body, html=part)


def part_of(body: PageBody, anchor: str | None) -> str | None:
    """The HTML (with its holes) of the part of ``body`` an embed names: all of it, the
    section of the heading whose id is ``anchor``, or the block whose id is ``anchor``
    (``^id``); None if there is no such part."""
    if not anchor:
        return body.html
    start = body.html.find(f' id="{escape(anchor)}"')
    if start < 0:
        return None
    start = body.html.rfind("<", 0, start)
    tag = re.match(r"<([a-zA-Z0-9]+)", body.html[start:])
    if tag is None:
        return None
    name = tag.group(1).lower()
    if anchor.startswith("^") or not re.fullmatch(r"h[1-6]", name):
        end = _element_end(body.html, start, name)
        part = body.html[start:end]
        return f"<ul>{part}</ul>" if name == "li" else part  # a list item, in a list
    level = int(name[1])
    for heading in _HEADING.finditer(body.html, start + 1):
        if int(heading.group(1)) <= level:
            return body.html[start : heading.start()]
    return body.html[start:]


def _element_end(html: str, start: int, name: str) -> int:
    """Where the element that starts at ``start`` ends (after its closing tag)."""
    opening = re.compile(rf"<{name}[\s>/]|</{name}>", re.IGNORECASE)
    depth = 0
    for match in opening.finditer(html, start):
        depth += -1 if match.group().startswith("</") else 1
        if depth == 0:
            return match.end()
    return len(html)


def without_ids(html: str) -> str:
    """``html`` with its elements' ids dropped (they are the embedded page's)."""
    return _ID.sub("", html)


def framed(content: str, title: str, url: str | None) -> str:
    """An embedded part in its frame, titled with a link to its origin."""
    link = escape(title, quote=False)
    if url is not None:
        link = f'<a class="embed-origin" href="{escape(url)}">{link}</a>'
    return (
        f'<div class="embed"><div class="embed-title">{link}</div>'
        f'<div class="embed-body">{content}</div></div>'
    )


def notice(message: str) -> str:
    """What shows in place of an embed that cannot be shown."""
    return f'<div class="embed embed-missing">{escape(message, quote=False)}</div>'
