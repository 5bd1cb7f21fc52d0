"""What search knows of a page: a :class:`SearchDoc`, built from the page's parse.

The body text is taken from the markdown-it tokens of the page, so it is the text a reader
sees, not the Markdown source:

- paragraphs, list items, quotes: their inline text, one block per line; a table row is one
  line, its cells set apart by `` | `` (so an excerpt never runs two cells together);
- headings go to ``headings``, not to ``body`` (the first ``# Title`` is the title);
- fenced and indented code is kept (its identifiers and comments are worth finding), as a
  block of its own; ``mermaid`` diagrams keep their labels the same way;
- a formula, inline or display, is its TeX source, once, set apart by spaces (``$d_k$``
  finds ``d_k``). Math is recognised by its token type (``math_*``), whichever syntax
  (``$…$``, ``\\(…\\)``, ``$$…$$``, ``\\[…\\]``) produced it;
- a URL written in the text is reduced to its host name (``arxiv.org`` finds the pages that
  cite arXiv; the path and query of a link are noise), link targets are not text at all;
- raw HTML keeps its text and loses its tags; ``<script>``/``<style>`` contents are dropped.

Whitespace inside a block collapses to one space, so the text is compact and an excerpt of it
reads well. Search shows a page in its results by the page's card
(:class:`~kbtool.render.card.PageCard`, as the indexes show it), its title, summary and tags
cleaned as the body is (:func:`searched_card`). A :class:`SearchDoc` is small and plain
(strings and tuples of strings), so it pickles, and :meth:`SearchDoc.to_json` /
:meth:`SearchDoc.from_json` round-trip it, as one flat object.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from markdown_it.token import Token

from kbtool.model import Page
from kbtool.render.card import PageCard, Ref

_SPACE = re.compile(r"\s+")
_SURROGATE = re.compile("[\ud800-\udfff]")
_URL = re.compile(r"\b(?:https?|ftp)://([^\s/?#<>\"'）)]+)[^\s<>\"'）)]*", re.IGNORECASE)
_SCRIPT = re.compile(r"<(script|style)\b.*?(?:</\1\s*>|$)", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>?")
_ENTITY = re.compile(r"&(?:[a-zA-Z]+|#[0-9]+|#x[0-9a-fA-F]+);")
_INLINE_TEXT = frozenset({"text", "code_inline"})
_CELL = " | "


@dataclass(frozen=True)
class SearchDoc:
    """One page as search sees it: its card (path, URL, title, type, summary, tags; cleaned,
    :func:`searched_card`), the headings below its title and its body text."""

    card: PageCard
    headings: tuple[str, ...]
    body: str

    def to_json(self) -> dict[str, Any]:
        """The doc as one flat object (the layout of the stored records and the index's page
        files): ``path``, ``url``, ``title``, ``type``, ``summary``, ``tags``, ``headings``,
        ``body``."""
        card = self.card
        return {
            "path": card.path,
            "url": card.url,
            "title": card.title,
            "type": card.type,
            "summary": card.summary,
            "tags": list(card.tags),
            "headings": list(self.headings),
            "body": self.body,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SearchDoc:
        ref = Ref(str(data["path"]), str(data["url"]), str(data["title"]), str(data["type"]))
        return cls(
            card=PageCard(ref, str(data["summary"]), tuple(str(t) for t in data["tags"])),
            headings=tuple(str(h) for h in data["headings"]),
            body=str(data["body"]),
        )


def clean(text: str) -> str:
    """One line of text: whitespace collapsed, URLs reduced to their host.

    >>> clean("见  https://arxiv.org/abs/1706.03762 。")
    '见 arxiv.org 。'
    """
    text = _SURROGATE.sub("\ufffd", text)
    return _SPACE.sub(" ", _URL.sub(r"\1", text)).strip()


def searched_card(card: PageCard) -> PageCard:
    """``card`` as search shows it: its title, summary and tags :func:`clean`."""
    ref = replace(card.ref, title=clean(card.title))
    return PageCard(ref, clean(card.summary), tuple(clean(tag) for tag in card.tags))


def _html_text(html: str) -> str:
    """The text of a piece of raw HTML: tags and script/style bodies dropped."""
    return _ENTITY.sub(" ", _TAG.sub(" ", _SCRIPT.sub(" ", html)))


def _inline_text(token: Token) -> str:
    parts: list[str] = []
    for child in token.children or ():
        if child.type in _INLINE_TEXT:
            parts.append(child.content)
        elif child.type.startswith("math"):  # the formula's source, once, not glued to words
            parts.append(f" {child.content} ")
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "html_inline":
            parts.append(_html_text(child.content))
        elif child.type == "image":
            parts.append(" " + _inline_text(child) + " ")
        elif child.type == "obsidian_tag":  # a vault's #tag, as written
            parts.append("#" + child.content)
    return "".join(parts)


def _body(tokens: Sequence[Token]) -> tuple[list[str], list[str]]:
    """(headings, body blocks) of a token stream."""
    headings: list[str] = []
    blocks: list[str] = []
    row: list[str] | None = None  # the cells of the table row being read
    in_heading = False
    for token in tokens:
        kind = token.type
        text = ""
        if kind == "heading_open":
            in_heading = True
        elif kind == "heading_close":
            in_heading = False
        elif kind == "tr_open":
            row = []
        elif kind == "tr_close" and row is not None:
            text, row = _CELL.join(cell for cell in row if cell), None
        elif kind == "inline":
            text = clean(_inline_text(token))
            if in_heading:
                headings += [text] if text else []
                text = ""
            elif row is not None:
                row.append(text)
                text = ""
        elif kind in ("fence", "code_block") or kind.startswith("math"):
            text = clean(token.content)
        elif kind == "html_block":
            text = clean(_html_text(token.content))
        if text:
            blocks.append(text)
    return headings, blocks


def search_doc(page: Page, tokens: Sequence[Token]) -> SearchDoc:
    """The :class:`SearchDoc` of ``page``, whose body parsed to ``tokens`` (markdown-it)."""
    headings, blocks = _body(tokens)
    card = searched_card(PageCard.of(page))
    if headings and headings[0] == card.title:
        headings = headings[1:]  # the `# Title` heading is the title
    return SearchDoc(card, tuple(headings), "\n".join(blocks))
