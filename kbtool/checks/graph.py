"""KB3xx: the link graph as a whole — orphans, one-way `related`, uncited sources."""

from __future__ import annotations

from collections.abc import Iterator

from kbtool.checks.base import diagnostic
from kbtool.diagnostics import Diagnostic
from kbtool.model import Span
from kbtool.wiki import Wiki


def check_orphans(wiki: Wiki) -> Iterator[Diagnostic]:
    linked = {to for _, to, _ in wiki.edges}
    for page in wiki.wiki_pages:
        if page.path not in linked:
            message = (
                "orphan page: no other page links to it (add it to a related page's `related`)"
            )
            yield diagnostic("KB301", Span(page.path), message)


def check_one_way_related(wiki: Wiki) -> Iterator[Diagnostic]:
    related = {(a, b) for a, b, kind in wiki.edges if kind == "related"}
    for item in wiki.links:
        if item.link.kind != "related" or item.target.page is None or item.target.page is item.page:
            continue
        pair = (item.page.path, item.target.page.path)
        if pair in related and (pair[1], pair[0]) not in related:
            message = f"'{item.link.target}' does not list this page in its `related`"
            yield diagnostic("KB302", item.link.span, message)


def check_uncited_sources(wiki: Wiki) -> Iterator[Diagnostic]:
    cited = {to for frm, to, _ in wiki.edges if wiki.pages[frm].kind == "wiki"}
    for page in wiki.pages.values():
        if page.kind == "source" and page.path not in cited:
            yield diagnostic("KB303", Span(page.path), "no wiki page cites this source")
