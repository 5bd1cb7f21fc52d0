"""The page worker: one file's bytes -> its page, its body with holes, its search text and
its index terms, once.

A page is parsed once: the worker that parses it also takes its search text and its index
terms (:mod:`kbtool.search.page_terms`) and renders its body (when a build asks for bodies)
from the same tokens, and sends back compact records (a pickled page, the body and search
text as JSON, the terms as the index spells them), never tokens. A page that breaks the renderer
gets an empty body carrying a KB502 error, so one bad page never stops the others.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, NamedTuple

from kbtool.model import Page
from kbtool.store.codec import dump_page

if TYPE_CHECKING:
    from kbtool.diagnostics import Diagnostic
    from kbtool.render.markdown import PageBody
    from kbtool.search.text import SearchDoc

#: One file to parse: (path, bytes, page kind, content digest).
Work = tuple[str, bytes, str, str]


class Processed(NamedTuple):
    """What the worker sends back: the pickled page, and the body, search text and terms (for
    a build; the last two only for a site with a search index)."""

    page: bytes
    body: bytes | None = None
    doc: bytes | None = None
    terms: bytes | None = None


def process(
    work: Work, language: str | None, search: bool = True, flavor: str = "gfm"
) -> Processed:
    """Parse one file (as Markdown of ``flavor``, the setting) and, for a build (a
    ``language`` for the body's UI strings), render its body and (``search``: for a site with
    a search index) take its search text, from the same tokens."""
    from kbtool.parse.page import parse_page_tokens

    path, data, kind, digest = work
    page, tokens = parse_page_tokens(path, data, kind, digest, flavor)  # type: ignore[arg-type]
    if language is None:
        return Processed(dump_page(page))
    from kbtool.render.i18n import translator
    from kbtool.render.markdown import render_body
    from kbtool.search.page_terms import term_record
    from kbtool.search.text import search_doc

    try:
        doc = search_doc(page, tokens) if search else None  # before rendering changes tokens
        terms = term_record(doc) if doc else None
        rendered = render_body(page, tokens, translator(language))
    except Exception as error:  # a renderer bug on one page fails that page alone
        doc, rendered = _unrendered(page, error)
        terms = term_record(doc)
    return Processed(
        dump_page(page),
        json.dumps(rendered.to_json(), ensure_ascii=False).encode("utf-8"),
        json.dumps(doc.to_json(), ensure_ascii=False).encode("utf-8") if doc else None,
        terms,
    )


def process_chunk(
    work: tuple[list[Work], str | None, bool, str], indices: range
) -> list[Processed]:
    """:func:`process` for ``indices`` of the work list a pool's workers inherited."""
    files, language, search, flavor = work
    return [process(files[i], language, search, flavor) for i in indices]


def decode_body(data: bytes) -> PageBody:
    from kbtool.render.markdown import PageBody

    return PageBody.from_json(json.loads(data))


def decode_doc(data: bytes) -> SearchDoc:
    from kbtool.search.text import SearchDoc

    return SearchDoc.from_json(json.loads(data))


def renderer_failed(path: str, error: Exception) -> Diagnostic:
    """The KB502 error of a page that broke the renderer (at parse time or at assembly)."""
    from kbtool.diagnostics import Diagnostic

    message = f"page cannot be rendered ({type(error).__name__}: {error}); please report it"
    return Diagnostic(path, 1, 1, "KB502", "error", message)


def _unrendered(page: Page, error: Exception) -> tuple[SearchDoc, PageBody]:
    """An empty body carrying a KB502 error, and no search text, for a page that broke the
    renderer."""
    from kbtool.render.card import PageCard, Ref
    from kbtool.render.markdown import PageBody
    from kbtool.render.urls import page_output
    from kbtool.search.text import SearchDoc

    body = PageBody("", (), None, (renderer_failed(page.path, error),), False)
    ref = Ref(page.path, page_output(page.path), page.title, "")
    empty = SearchDoc(PageCard(ref, "", ()), (), "")
    return empty, body
