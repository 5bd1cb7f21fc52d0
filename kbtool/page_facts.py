"""The names of the facts of a page that a check of another page reads, recorded as read
(``Wiki.reads``) and compared after an edit: ``path:``, ``stat:``, ``stem:``, ``title:``,
``near:`` (which a page provides by its path and title), and for the project's rules
``page:``, ``type:`` and ``tag:`` (by its basics)."""

from __future__ import annotations

import re
from datetime import date
from typing import NamedTuple

from kbtool.model import Page
from kbtool.parse.fields import page_type, tags_of


class Basics(NamedTuple):
    """What a project rule may read of another page beyond its title: its frontmatter's
    basics."""

    type: str
    tags: tuple[str, ...]
    #: ``updated`` as an ISO date, or ""
    updated: str

    @classmethod
    def of(cls, page: Page) -> Basics:
        value = page.meta.get("updated")
        updated = value.isoformat() if isinstance(value, date) else ""
        if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
            updated = value.strip()
        return cls(page_type(page), tags_of(page), updated)


def near_fact(folder: str, start: str) -> str:
    """The fact a "did you mean" hint reads: the file names in ``folder`` that begin with
    ``start`` (its first two letters), which a page there so named provides."""
    return f"near:{folder}/{start}"


def basic_names(basics: Basics) -> set[str]:
    """The fact names a page's basics answer (besides ``page:PATH``)."""
    return {f"type:{basics.type}", *(f"tag:{tag}" for tag in basics.tags)}
