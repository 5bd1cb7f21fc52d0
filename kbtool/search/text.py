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
reads well. A :class:`SearchDoc` is small and plain (strings and tuples of strings), so it
pickles, and :meth:`SearchDoc.to_json` / :meth:`SearchDoc.from_json` round-trip it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markdown_it.token import Token

from kbtool.model import Page
from kbtool.parse.fields import page_type, tags_of
from kbtool.render import urls

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
    """One page as search sees it. ``path`` is the repository-relative ``.md`` path, ``url``
    the output relative to the site root."""

    path: str
    url: str
    title: str
    type: str
    summary: str
    tags: tuple[str, ...]
    headings: tuple[str, ...]
    body: str

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "url": self.url,
            "title": self.title,
            "type": self.type,
            "summary": self.summary,
            "tags": list(self.tags),
            "headings": list(self.headings),
            "body": self.body,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SearchDoc:
        return cls(
            path=str(data["path"]),
            url=str(data["url"]),
            title=str(data["title"]),
            type=str(data["type"]),
            summary=str(data["summary"]),
            tags=tuple(str(t) for t in data["tags"]),
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
    title = clean(page.title)
    if headings and headings[0] == title:
        headings = headings[1:]  # the `# Title` heading is the title
    summary = page.meta.get("summary")
    return SearchDoc(
        path=page.path,
        url=urls.page_output(page.path),
        title=title,
        type=page_type(page),
        summary=clean(str(summary)) if isinstance(summary, str | int | float) else "",
        tags=tuple(clean(tag) for tag in tags_of(page)),
        headings=tuple(headings),
        body="\n".join(blocks),
    )
