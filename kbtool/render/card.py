"""A page as lists show it: its :class:`Ref` and its :class:`PageCard`.

The indexes, the sitemap, the graph and search's results all show a page the same way (its
title, type, where it is, its summary and tags), so they share one type for it: a
:class:`~kbtool.render.site.Listing` carries the card of its page, and a
:class:`~kbtool.search.text.SearchDoc` carries it too, cleaned for search
(:func:`~kbtool.search.text.searched_card`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kbtool.model import Page
from kbtool.parse.fields import page_type, tags_of
from kbtool.render import urls


@dataclass(frozen=True, slots=True)
class Ref:
    """A page as other pages show it: where it is, its title and type."""

    path: str
    output: str
    title: str
    type: str

    def parts(self) -> tuple[str, str, str, str]:
        return (self.path, self.output, self.title, self.type)


@dataclass(frozen=True, slots=True)
class PageCard:
    """The one description of a page as lists show it (indexes, sitemap, graph, search
    results): its :class:`Ref`, its summary and its tags. The Ref is held as it was given, one
    object, never made again: a page's key compares its similar pages' Refs as they are."""

    ref: Ref
    summary: str
    tags: tuple[str, ...]

    @property
    def path(self) -> str:
        """The repository-relative ``.md`` path."""
        return self.ref.path

    @property
    def url(self) -> str:
        """The page's output, relative to the site root."""
        return self.ref.output

    @property
    def title(self) -> str:
        return self.ref.title

    @property
    def type(self) -> str:
        return self.ref.type

    @classmethod
    def of(cls, page: Page) -> PageCard:
        return cls(ref_of(page), text_of(page.meta.get("summary")), tags_of(page))


def ref_of(page: Page) -> Ref:
    return Ref(page.path, urls.page_output(page.path), page.title, page_type(page))


def text_of(value: Any) -> str:
    """A frontmatter value as one line of text (dates may be strings or date objects)."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(text_of(v) for v in value)
    return " ".join(str(value).split())
