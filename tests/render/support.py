"""A page's body as the site shows it, from its text: parse, render with holes, fill."""

from __future__ import annotations

from collections.abc import Callable

from kbtool.execute.results import PageResult
from kbtool.model import Page
from kbtool.parse.page import parse_page_tokens
from kbtool.render.fill import RenderedBody, fill_body
from kbtool.render.markdown import render_body
from kbtool.wiki import Wiki


def render_text(
    page: Page, text: str, wiki: Wiki, result: PageResult | None, t: Callable[..., str]
) -> RenderedBody:
    """``page``'s body (``text`` is its whole file) rendered and filled, as a build does."""
    parsed, tokens = parse_page_tokens(page.path, text.encode("utf-8"), page.kind)
    return fill_body(render_body(parsed, tokens, t), page, wiki, result, t)
