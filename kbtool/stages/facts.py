"""A page's facts: what the checks of other pages may read of it (its kind, title, heading
slugs, ingestion date; for the project's rules, its type, tags and `updated`), and what a
build needs of a page it does not read (its type, whether it runs cells, its diagrams'
lines). A stand-in page made of them answers link resolution as the page would. Every run
reads every page's facts, so their record is a few strings joined by NUL.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from kbtool.checks.stale import source_date_of
from kbtool.checks.wiki_view import Card, card_digest
from kbtool.config import Config
from kbtool.execute.plan import should_run
from kbtool.model import Page
from kbtool.obsidian_links import link_anchors
from kbtool.page_facts import Basics, basic_names, near_fact
from kbtool.parse.fields import aliases_of
from kbtool.render.diagrams import diagram_lines


@dataclass(frozen=True)
class Facts:
    """What the checks of other pages may read of a page (its type, tags and `updated` only
    the project's rules read); and, not compared (no check reads them), what a build needs
    of a page it does not read: whether it runs cells, where its diagrams are."""

    kind: str
    title: str
    slugs: tuple[str, ...]
    #: a source page's ingestion date (``source-date``), ISO, or ""
    ingested: str = ""
    type: str = ""
    runs_cells: bool = field(default=False, compare=False)
    tags: tuple[str, ...] = ()
    #: ``updated``, ISO, or ""
    updated: str = ""
    #: the page's `aliases` (no link resolves by them: read by the upkeep checks only)
    aliases: tuple[str, ...] = field(default=(), compare=False)
    #: the lines of its Mermaid diagrams (a build without Mermaid warns of them, KB510)
    diagrams: tuple[int, ...] = field(default=(), compare=False)

    @classmethod
    def of(cls, config: Config, page: Page, read: Callable[[], bytes]) -> Facts:
        """``read()``: the page's bytes (read only for a body field with its source date)."""
        found = source_date_of(config, page, read)
        ingested = found.when.isoformat() if found is not None and found.when else ""
        slugs = tuple(sorted(link_anchors(page)))  # a vault's block ids among them, `^id`
        runs = should_run(config, page)
        basics = Basics.of(page)
        return cls(
            page.kind,
            page.title,
            slugs,
            ingested,
            basics.type,
            runs,
            basics.tags,
            basics.updated,
            aliases_of(page),
            diagram_lines(page),
        )

    @property
    def basics(self) -> Basics:
        return Basics(self.type, self.tags, self.updated)

    @cached_property
    def card(self) -> tuple[Card, str]:
        """What the checks of many pages know the page by, with its digest (made once: a
        session's check compares every page's at each keystroke)."""
        card = (self.kind, self.title, self.aliases)
        return card, card_digest(card)

    def same_links(self, other: Facts) -> bool:
        """Whether links to the page resolve the same with ``other`` (all but the basics)."""
        return (self.kind, self.title, self.slugs, self.ingested) == (
            other.kind,
            other.title,
            other.slugs,
            other.ingested,
        )

    def changed_names(self, other: Facts, path: str) -> set[str]:
        """The fact names whose answer differs when the page at ``path`` has ``other`` for
        these facts. A link to the page reads ``path:`` for its kind and slugs, so a new title
        or new headings change that and the titles alone (not its file name's ``stem:`` or
        ``near:``, which an agent's drafts of one page would otherwise recheck each time)."""
        names: set[str] = set()
        if self.basics != other.basics or (self.kind, self.title) != (other.kind, other.title):
            # a rule reads the pages of a type or tag whole: kind, title and basics
            names |= self.provided_basics(path) | other.provided_basics(path)
        if (self.kind, self.ingested) != (other.kind, other.ingested):
            names |= self.provided(path) | other.provided(path)
        elif not self.same_links(other):
            names |= (self.provided(path) ^ other.provided(path)) | {f"path:{path}"}
        return names

    def shown(self) -> tuple[str, str, str]:
        """What other pages show of this one (its kind, title and type)."""
        return (self.kind, self.title, self.type)

    def stand_in(self, path: str) -> Page:
        """A page that answers link resolution as the real one would, and nothing more."""
        return Page(path, self.kind, "", self.title, None, slugs=frozenset(self.slugs))  # type: ignore[arg-type]

    def provided(self, path: str) -> set[str]:
        """The fact names this page's existence and facts answer."""
        folder, name = posixpath.split(path)
        stem = name.removesuffix(".md")
        return {
            f"path:{path}",
            f"stem:{stem.lower()}",
            f"title:{self.title.lower()}",
            near_fact(folder, stem[:2]),
        }

    def provided_basics(self, path: str) -> set[str]:
        """The fact names this page's type, tags and `updated` answer (the project rules')."""
        return {f"page:{path}", *basic_names(self.basics)}


def decode_facts(data: bytes) -> Facts | None:
    """Facts stored as their fields joined by NUL, which no title or slug holds: every run
    reads the facts of every page, so they must decode fast."""
    try:
        kind, title, ingested, type_, runs, tags, updated, aliases, diagrams, *slugs = data.decode(
            "utf-8"
        ).split("\x00")
    except (UnicodeDecodeError, ValueError):
        return None
    lines = _lines(diagrams)
    if lines is None:
        return None
    tagged = tuple(tags.split("\x01")) if tags else ()
    names = tuple(aliases.split("\x01")) if aliases else ()
    return Facts(
        kind, title, tuple(slugs), ingested, type_, runs == "1", tagged, updated, names, lines
    )


def facts_intact(data: bytes) -> bool:
    """Whether :func:`decode_facts` decodes ``data``, told without making the facts (a check
    after an edit decodes those of the few pages it reads)."""
    try:
        fields = data.decode("utf-8").split("\x00", 9)
    except UnicodeDecodeError:
        return False
    return len(fields) >= 9 and _lines(fields[8]) is not None


def _lines(field: str) -> tuple[int, ...] | None:
    """The line numbers a record's field holds; None if it is damaged."""
    numbers = field.split("\x01") if field else []
    return tuple(map(int, numbers)) if all(n.isdecimal() for n in numbers) else None


def encode_facts(facts: Facts) -> bytes:
    runs = "1" if facts.runs_cells else ""
    tags = "\x01".join(tag.replace("\x00", "").replace("\x01", "") for tag in facts.tags)
    aliases = "\x01".join(a.replace("\x01", "") for a in facts.aliases)
    fields = [facts.kind, facts.title, facts.ingested, facts.type, runs, tags, facts.updated]
    fields += [aliases, "\x01".join(map(str, facts.diagrams)), *facts.slugs]
    return "\x00".join(fields).encode("utf-8")
