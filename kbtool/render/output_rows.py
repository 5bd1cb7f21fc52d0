"""Outputs as rows: a function and where its file goes, run by the engine.

An output row makes one file of the site from what a :class:`SiteView` reads (every page's
path, kind, title, text, listing; the settings): each read recorded, so the output is made
again exactly when something it read changed, and its key is the digest of what it holds. A
**page row** makes a file for each page (``file(path)`` names it, ``make(view, path)`` gives
its bytes, or None for no file); a **site row** makes one file for the whole site. To add
one: write the function and add a row to ``PAGE_ROWS`` or ``SITE_ROWS``.

One row ships: ``llms.txt``, the site's map for language models (the llms.txt convention: a
title, a summary, then a list of links to each page's Markdown, which the page's HTML output
copies beside itself).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from kbtool.checks.wiki_view import WikiView
from kbtool.engine import WHOLE, Input, Query, Reads, Stored

#: what lists show of a page: its title, type, summary and URL from the site's root
LISTED: Input[tuple[str, str, str, str]] = Input("listed")
#: the site's title, for the site rows
SITE: Input[str] = Input("site title")
#: what the site calls each page type (``type-labels``), by type
TYPE_LABEL: Input[str] = Input("type label")


class SiteView(WikiView):
    """The wiki as an output reads it: a check's view, and what lists show of each page."""

    def listed(self, path: str) -> tuple[str, str, str, str]:
        """(title, type, summary, URL from the site's root) of a page."""
        return self._reads.input(LISTED, path) or ("", "", "", "")

    def site_title(self) -> str:
        return self._reads.input(SITE, WHOLE) or ""

    def type_label(self, name: str) -> str:
        """What the site calls page type ``name`` (its name where it has no label)."""
        return self._reads.input(TYPE_LABEL, name) or name


Content = str | bytes | None


@dataclass(frozen=True)
class PageRow:
    """An output of each page: its file's name, and what makes its content."""

    name: str
    file: Callable[[str], str]
    make: Callable[[SiteView, str], Content]

    @cached_property
    def query(self) -> Query[str]:
        return _query(self.name, lambda reads, path: self.make(SiteView(reads), path), self.make)


@dataclass(frozen=True)
class SiteRow:
    """An output of the whole site: its file's name, and what makes its content."""

    name: str
    file: str
    make: Callable[[SiteView], Content]

    @cached_property
    def query(self) -> Query[str]:
        return _query(self.name, lambda reads, _: self.make(SiteView(reads)), self.make)


def _query(
    name: str, make: Callable[[Reads, str], Content], function: Callable[..., Content]
) -> Query[str]:
    """A row's query: its value the digest of what the row makes ("" for no file), its code
    the row function's module."""

    def compute(reads: Reads, key: str) -> str:
        return digest_of(make(reads, key))

    return Query(f"output {name}", compute, Stored(str, str), str, function.__module__)


def digest_of(content: Content) -> str:
    if content is None:
        return ""
    data = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def llms_txt(view: SiteView) -> Content:
    """The site's map in the llms.txt convention: each page's title, linking its Markdown,
    and its summary, by type (pages without one last)."""
    paths = view.paths()
    by_type: dict[str, list[str]] = {}
    for path in paths:
        name, kind, summary, url = view.listed(path)
        markdown = url[: -len(".html")] + ".md" if url.endswith(".html") else url
        line = f"- [{_one_line(name) or path}]({markdown})"
        by_type.setdefault(kind, []).append(line + (f": {_one_line(summary)}" if summary else ""))
    lines = [f"# {_one_line(view.site_title())}", ""]
    lines += [f"> {len(paths)} pages, each linked as its Markdown; its HTML is beside it.", ""]
    for kind in sorted(by_type, key=lambda k: (k == "", k)):
        lines += [f"## {view.type_label(kind) if kind else 'Other'}", "", *by_type[kind], ""]
    return "\n".join(lines)


def _one_line(text: str) -> str:
    """A title or summary on one line, its brackets unable to end the link around it."""
    return " ".join(text.split()).replace("]", "\\]")


PAGE_ROWS: tuple[PageRow, ...] = ()
SITE_ROWS: tuple[SiteRow, ...] = (SiteRow("llms.txt", "llms.txt", llms_txt),)
