"""A page's link-preview data: what hovering a link to it shows (title, type, summary, its
opening lines, and each section's opening lines for a link to an ``#anchor``).

One small script per page, ``previews/<page path>.js``, calling
``__kbPreview(output, data)``: the site's ``preview.js`` loads it with a ``<script>`` tag when
a reader points at a link, which works over HTTP and from a folder opened in the browser
(``file://``, where ``fetch()`` of local files is refused). The data is taken from the page's
own body alone, so a page's preview changes only when its file (or the settings) does.

Everything is plain text, put on the page by ``preview.js`` with ``textContent``: nothing of a
page is ever parsed as HTML. A formula in the opening lines is a marker in the text and its
MathML a tree of lists beside it (``m``, :mod:`kbtool.render.preview_math`), which preview.js
builds element by element. The data is cut to fit :data:`LIMIT` bytes once gzip-compressed:
sections lose their opening lines first, then the last sections are left out.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from html import escape, unescape
from typing import Any

from kbtool.model import Page
from kbtool.parse.fields import page_type
from kbtool.render import urls
from kbtool.render.context import SiteContext
from kbtool.render.markdown import HOLE, PageBody
from kbtool.render.pages import Rendered
from kbtool.render.preview_math import Tree, math_tree

#: The largest a preview file may be, gzip-compressed.
LIMIT = 4096
OPENING = 240  # characters of the page's opening lines
#: characters of each section's opening lines, tried in turn until the data fits LIMIT
SECTION = (160, 100, 50, 0)

#: a formula in a preview's text: the number of its tree in ``m`` between two private-use
#: characters, which no page's text can hold as such (see :func:`_plain_html`)
_OPEN, _CLOSE = "\ue000", "\ue001"
_MARK = re.compile(f"{_OPEN}([0-9]+){_CLOSE}")
_DROP = re.compile(r"<(pre|script|style|svg|figure|details)\b.*?</\1\s*>", re.S | re.I)
_MATH = re.compile(r"<math\b.*?</math>", re.S)
_TEX = re.compile(r'<annotation encoding="application/x-tex">(.*?)</annotation>', re.S)
_HEADING = re.compile(r'<h([1-6])\b[^>]*?\bid="([^"]*)"[^>]*>(.*?)</h\1>', re.S)
_FOOTNOTES = re.compile(r'<hr class="footnotes-sep".*', re.S)
_BLOCK = re.compile(r"</?(?:p|li|ul|ol|div|tr|td|th|table|blockquote|h[1-6]|br|hr|dd|dt)\b[^>]*>")
_TAG = re.compile(r"<[^>]*>?")
#: an element a block id names: ``<p id="^para-1">``, ``<li id="^item-2">``
_BLOCK_ID = re.compile(r'<([a-z][a-z0-9]*)\b[^>]*?\bid="(\^[^"]*)"[^>]*>(.*?)</\1>', re.S)
#: how many blocks a preview shows, and how much of each
BLOCKS, BLOCK_TEXT = 40, 160
_SPACE = re.compile(r"\s+")


def preview_output(path: str) -> str:
    """The preview file of page ``path``: ``previews/wiki/concepts/x.js``."""
    return "previews/" + (path[:-3] if path.endswith(".md") else path) + ".js"


def preview_digest(common: bytes, digest: str) -> str:
    """What a page's preview depends on: its file (``digest``) and the settings (``common``:
    ``SiteContext.common_key_bytes``); not other pages, so an edit rewrites the previews of
    the pages edited alone."""
    key = hashlib.blake2b(common, digest_size=16)
    key.update(b"preview\x00" + digest.encode())
    return key.hexdigest()


def render_preview(site: SiteContext, path: str) -> Rendered:
    """The preview file of page ``path``, from its body."""
    page = site.wiki.pages[path]
    output = urls.page_output(path)
    data = preview_data(page, site.bodies[path], output, site.type_label(page_type(page)))
    return Rendered({preview_output(path): preview_script(output, data)})


def preview_script(output: str, data: dict[str, Any]) -> str:
    """The preview file's text: one call that hands ``data`` to the site's preview.js."""
    args = json.dumps([output, data], ensure_ascii=False, separators=(",", ":"))
    return f"__kbPreview({args[1:-1]});\n"


def preview_data(page: Page, body: PageBody, output: str, type_label: str) -> dict[str, Any]:
    """``t`` title, ``y`` type, ``s`` summary, ``o`` opening lines, ``h`` the sections as
    ``[anchor, heading, opening lines]``, ``m`` the formulas the opening lines show: cut to
    fit :data:`LIMIT` bytes of gzip."""
    maths: list[Tree] = []
    plain = _plain_html(body, maths)
    opening, sections = _sections(plain)
    sections = [(slug, _MARK.sub("", head), text) for slug, head, text in sections]
    summary = page.meta.get("summary")
    card: dict[str, Any] = {
        "t": page.title,
        "y": type_label,
        "s": _clip(" ".join(str(summary).split()), OPENING) if summary else "",
    }
    blocks = _blocks(plain)
    if blocks:  # a vault's note: what a link to one of its blocks shows
        card["b"] = blocks
    o = _clip(opening or (sections[0][2] if sections else ""), OPENING)
    for length in SECTION:
        h = [[slug, head, _clip(text, length)] for slug, head, text in sections]
        data = _numbered(card, o, h, maths)
        if _size(output, data) <= LIMIT:
            return data
    keep = len(sections)  # even without opening lines it is too big: fewer sections
    while keep and _size(output, data) > LIMIT:
        keep = keep * 3 // 4
        h = h[:keep]
        data = _numbered(card, o, h, maths)
    if _size(output, data) > LIMIT:  # the formulas make it too big: text without them
        data = _numbered(card, o, h, None)
    return data


def _numbered(
    card: dict[str, Any], o: str, h: list[list[str]], maths: list[Tree] | None
) -> dict[str, Any]:
    """The preview data: ``card``, the opening lines ``o`` and sections ``h``, with the
    formulas their markers name (numbered in ``maths``, the body's) as ``m``, numbered again
    as they come; ``maths`` None: without formulas."""
    order: dict[str, int] = {}

    def renumber(match: re.Match[str]) -> str:
        if maths is None:
            return ""
        return f"{_OPEN}{order.setdefault(match.group(1), len(order))}{_CLOSE}"

    data: dict[str, Any] = {**card, "o": _MARK.sub(renumber, o)}
    data["h"] = [[slug, head, _MARK.sub(renumber, text)] for slug, head, text in h]
    if order and maths is not None:
        data["m"] = [maths[int(n)] for n in order]
    return data


def _size(output: str, data: dict[str, Any]) -> int:
    return len(gzip.compress(preview_script(output, data).encode(), 6, mtime=0))


def _plain_html(body: PageBody, maths: list[Tree]) -> str:
    """The body's HTML with its holes filled as text, without code, drawings and figures,
    each formula as a marker of its tree, appended to ``maths``."""

    def fill(match: re.Match[str]) -> str:
        hole = body.holes[int(match.group(1))]
        return escape(hole[2] or hole[1], quote=False) if hole[0] == "wikilink" else ""

    html = HOLE.sub(fill, body.html)
    html = _FOOTNOTES.sub("", _DROP.sub(" ", html))
    html = html.replace(_OPEN, "").replace(_CLOSE, "")  # a page's own: never a marker

    def marker(match: re.Match[str]) -> str:
        maths.append(math_tree(match.group(0)))
        return f" {_OPEN}{len(maths) - 1}{_CLOSE} "

    return _MATH.sub(marker, html)


def _blocks(html: str) -> list[list[str]]:
    """``[id, text]`` of each block named by a ``^id`` (Obsidian's), the first
    :data:`BLOCKS`, each cut to :data:`BLOCK_TEXT` characters, formulas left out."""
    found = []
    for match in _BLOCK_ID.finditer(html):
        text = _MARK.sub("", _text(match.group(3)))
        found.append([unescape(match.group(2)), _clip(_SPACE.sub(" ", text).strip(), BLOCK_TEXT)])
        if len(found) == BLOCKS:
            break
    return found


def _sections(html: str) -> tuple[str, list[tuple[str, str, str]]]:
    """The text before the first heading, and (anchor, heading, text) of each section."""
    parts = _HEADING.split(html)
    opening = _text(parts[0])
    sections = [
        (unescape(parts[i + 1]), _text(parts[i + 2]), _text(parts[i + 3]))
        for i in range(1, len(parts) - 3, 4)
    ]
    # A heading straight above a subheading: its opening lines are the subsection's.
    for i in range(len(sections) - 2, -1, -1):
        if not sections[i][2]:
            sections[i] = (*sections[i][:2], sections[i + 1][2])
    return opening, sections


def _text(html: str) -> str:
    # Inline tags join what they split (Chinese has no spaces); blocks are set apart.
    return _SPACE.sub(" ", unescape(_TAG.sub("", _BLOCK.sub(" ", html)))).strip()


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    if not limit:
        return ""
    cut = text[: max(limit - 1, 0)]
    if cut.rfind(_OPEN) > cut.rfind(_CLOSE):  # not half a formula's marker
        cut = cut[: cut.rfind(_OPEN)]
    return cut.rstrip() + "…"
