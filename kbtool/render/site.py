"""What the site shows about each page beyond its own body, computed once from the wiki.

Titles of related pages and sources, backlinks, graph neighbours: each page's HTML depends
on these values of *other* pages, so they are also what its incremental-build key hashes.
"""

from __future__ import annotations

import hashlib
import marshal
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kbtool.link_status import Status
from kbtool.parse.fields import tags_of
from kbtool.render.card import PageCard, Ref, ref_of, text_of
from kbtool.render.vault import missing_note
from kbtool.report.graph import edges
from kbtool.wiki import ShownLink, Wiki


@dataclass(frozen=True, slots=True)
class Entry:
    """One ``related`` or ``sources`` item: the page it names, or its text when it names none."""

    text: str
    ref: Ref | None


@dataclass(frozen=True, slots=True)
class PageInfo:
    ref: Ref
    summary: str
    description: str
    updated: str
    tags: tuple[str, ...]
    related: tuple[Entry, ...]
    sources: tuple[Entry, ...]
    backlinks: tuple[Ref, ...]
    #: Pages one link away, either way, with the kinds of link that join them.
    neighbours: tuple[tuple[Ref, str], ...]
    #: (link target as written, title shown) for every other page its body links to.
    linked_titles: tuple[tuple[str, str], ...]

    def parts(self) -> tuple[Any, ...]:
        """Everything above as plain tuples and strings (for keys and records)."""

        def entries(items: tuple[Entry, ...]) -> tuple[tuple[str, tuple[str, ...] | None], ...]:
            return tuple((e.text, e.ref.parts() if e.ref else None) for e in items)

        return (
            self.ref.parts(),
            self.summary,
            self.description,
            self.updated,
            self.tags,
            entries(self.related),
            entries(self.sources),
            tuple(r.parts() for r in self.backlinks),
            tuple((r.parts(), kind) for r, kind in self.neighbours),
            self.linked_titles,
        )

    def record(self) -> list[Any]:
        """What a store record keeps: other pages by path only (their titles and types are
        theirs to say, so a record never shows an old one)."""

        def entries(items: tuple[Entry, ...]) -> list[tuple[str, str | None]]:
            return [(e.text, e.ref.path if e.ref else None) for e in items]

        return [
            self.summary,
            self.description,
            self.updated,
            self.tags,
            entries(self.related),
            entries(self.sources),
            [r.path for r in self.backlinks],
            [(r.path, kind) for r, kind in self.neighbours],
            self.linked_titles,
        ]

    @classmethod
    def from_record(cls, path: str, data: Any, refs: Mapping[str, Ref]) -> PageInfo:
        """The PageInfo of ``path`` from its :meth:`record` (as JSON gives it back), every
        page by its Ref in ``refs``; raises KeyError, ValueError, TypeError or IndexError for
        a record that names a page not there, or is not one."""
        summary, description, updated, tags, related, sources, back, around, linked = data

        def entries(items: Any) -> tuple[Entry, ...]:
            return tuple(Entry(str(text), refs[p] if p else None) for text, p in items)

        return cls(
            refs[path],
            str(summary),
            str(description),
            str(updated),
            tuple(map(str, tags)),
            entries(related),
            entries(sources),
            tuple(refs[p] for p in back),
            tuple((refs[p], str(kind)) for p, kind in around),
            tuple((str(target), str(title)) for target, title in linked),
        )

    def key_bytes(self) -> bytes:
        """:meth:`parts` as bytes, for the page's key: marshal of plain tuples and strings
        (a dataclass repr, or any repr of long Chinese text, is many times slower). Version 2:
        later versions write a reference for an object met twice, so equal values built
        differently (fresh, or read from a record) would give different bytes."""
        return marshal.dumps(self.parts(), 2)


@dataclass(frozen=True, slots=True)
class Listing:
    """What the indexes, the sitemap and the graph show of a page (a part of its PageInfo),
    and the digest of its whole PageInfo (for the page's key): small, so that a build reads
    every page's listing, never every PageInfo."""

    card: PageCard
    updated: str
    #: the paths of the pages that link to it
    backlinks: tuple[str, ...]
    info_digest: str
    #: the notes its links name that do not exist, as Obsidian would create them (a vault's
    #: notes not created yet, :func:`kbtool.render.vault.missing_note`)
    missing: tuple[str, ...] = ()

    @classmethod
    def of(cls, info: PageInfo) -> Listing:
        digest = hashlib.blake2b(info.key_bytes(), digest_size=16).hexdigest()
        backlinks = tuple(r.path for r in info.backlinks)
        card = PageCard(info.ref, info.summary, info.tags)
        return cls(card, info.updated, backlinks, digest, _missing_notes(info))

    def record(self) -> list[Any]:
        """What a store record keeps (its ref comes from the page, as for a PageInfo)."""
        card = self.card
        kept = [card.summary, self.updated, card.tags, self.backlinks, self.info_digest]
        return [*kept, self.missing] if self.missing else kept

    @classmethod
    def from_record(cls, ref: Ref, data: Any) -> Listing:
        """The listing from its :meth:`record`, its card holding ``ref`` itself; raises
        ValueError or TypeError for a record that is not one."""
        summary, updated, tags, backlinks, digest, *rest = data
        if not isinstance(digest, str) or len(rest) > 1:
            raise TypeError("not a listing record")
        card = PageCard(ref, str(summary), tuple(tags))
        missing = tuple(map(str, rest[0])) if rest else ()
        return cls(card, str(updated), tuple(backlinks), digest, missing)


def _missing_notes(info: PageInfo) -> tuple[str, ...]:
    """The notes ``info``'s links name that do not exist, each once, in order."""
    found: dict[str, None] = {}
    for written, _ in info.linked_titles:
        target, _, status = written.rpartition("\x00")
        if status == Status.MISSING.value and (name := missing_note(target)) is not None:
            found.setdefault(name, None)
    return tuple(found)


_KIND_BITS = {"link": 1, "related": 2, "source": 4}
#: "link+related", ... for each set of kinds, names in sorted order
_KIND_LABELS = {
    mask: "+".join(name for name, bit in sorted(_KIND_BITS.items()) if mask & bit)
    for mask in range(8)
}


def collect(wiki: Wiki) -> dict[str, PageInfo]:
    """Every page's :class:`PageInfo`, by path."""
    shown = (ShownLink.of(item) for item in wiki.links)
    return collect_pages(wiki, list(wiki.pages), edges(wiki), shown)


def collect_pages(
    wiki: Wiki,
    paths: Iterable[str],
    touching: Iterable[tuple[str, str, str]],
    links: Iterable[ShownLink],
    known: Mapping[str, Ref] | None = None,
) -> dict[str, PageInfo]:
    """The :class:`PageInfo` of ``paths``, from ``touching``, every edge (from, to, kind) that
    starts or ends at one of them, and ``links``, every resolved link of them; other pages'
    refs from ``known``, else from the pages."""
    refs: dict[str, Ref] = dict(known or {})

    def ref(path: str) -> Ref:
        if path not in refs:
            refs[path] = ref_of(wiki.pages[path])
        return refs[path]

    incoming: dict[str, set[str]] = defaultdict(set)
    outgoing: dict[str, set[str]] = defaultdict(set)
    # The kinds of link joining two pages, as bits: 175,000 pairs at 7,000 pages, so no sets.
    kinds: dict[tuple[str, str], int] = defaultdict(int)
    for frm, to, kind in touching:
        incoming[to].add(frm)
        outgoing[frm].add(to)
        bit = _KIND_BITS[kind]
        kinds[(frm, to)] |= bit
        kinds[(to, frm)] |= bit
    entries: dict[str, dict[str, list[Entry]]] = defaultdict(lambda: {"related": [], "source": []})
    linked: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for item in links:
        page_ref = ref(item.to) if item.to is not None else None
        if item.kind in ("related", "source"):
            entries[item.page][item.kind].append(Entry(item.target, page_ref))
        else:
            # A wikilink shows its target's title; any link's URL depends on where it leads.
            shown = page_ref.title if page_ref else ""
            linked[item.page].append((item.target + "\x00" + item.status.value, shown))

    infos: dict[str, PageInfo] = {}
    for path in paths:
        page = wiki.pages[path]
        meta = page.meta
        around = sorted(outgoing[path] | incoming[path])
        infos[path] = PageInfo(
            ref=ref(path),
            summary=text_of(meta.get("summary")),
            description=text_of(meta.get("description")),
            updated=text_of(meta.get("updated")),
            tags=tags_of(page),
            related=tuple(entries[path]["related"]),
            sources=tuple(entries[path]["source"]),
            backlinks=tuple(ref(p) for p in sorted(incoming[path])),
            neighbours=tuple((ref(p), _KIND_LABELS[kinds[(path, p)]]) for p in around),
            linked_titles=tuple(linked[path]),
        )
    return infos
