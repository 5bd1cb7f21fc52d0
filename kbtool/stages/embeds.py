"""What each page's embeds show, as a query on the run's engine: the first of the build's
outputs to read another page's text, so that editing an embedded section renders again exactly
the pages that show it.

``embed-shown(path|n)``, one embed of a note by a page (its body's hole n), reads the page (its
file's digest), the site as the links show it (every listing's digest and the settings) and
the part of every note it shows, nested ones too: each a recorded read. ``embed-part(path|
anchor)`` is that part, cut from the note's body; its digest is of what the part shows. An
``embed-shown``'s value is what the embed shows (its HTML, what it reports, the files and notes
it shows), which the page's render takes as it is; it is held in memory only, its trace
stored. ``embeds(path)`` reads the page and each of its embeds: the digest of them all, which a
page's output key holds (the rest of its body is its own file's and the site's), the notes
they show, and which holes they are (the render asks for those). An edit to an embedded note
cuts its parts again; the parts it left as they were keep their digest (early cutoff), so the
embeds that show them are not made again and their pages render nothing again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from kbtool.engine import WHOLE, Engine, Input, Query, Reads, Stored, digest_of_repr
from kbtool.engine.persist import load
from kbtool.model import Page
from kbtool.parse.embeds import names_a_note
from kbtool.render.context import SiteContext
from kbtool.render.embeds import EmbedSource, PageEmbeds, Shown, cut, embed_key
from kbtool.render.fill import embed_shown
from kbtool.render.markdown import PageBody
from kbtool.stages.load import Loaded, fetch_bodies
from kbtool.stages.run import Run

#: a page, its digest its file's
PAGE: Input[Page] = Input("page")
#: a page's body as the page worker rendered it, its digest its file's
BODY: Input[PageBody] = Input("body")
#: the site as links show other pages, its digest every listing's and the settings'
SITE: Input[SiteContext] = Input("site")


def _embeds(reads: Reads, path: str) -> PageEmbeds:
    page = reads.input(PAGE, path)
    body = reads.input(BODY, path) if page is not None and page.embeds else None
    if body is None:
        return PageEmbeds("", (), ())
    digest = hashlib.blake2b(digest_size=16)
    notes: list[str] = []
    holes = [i for i, hole in enumerate(body.holes) if hole[0] == "embed" and names_a_note(hole[1])]
    for index in holes:
        shown = reads.get(SHOWN, embed_key(path, index))
        digest.update(_shown_digest(shown).encode() + b"\x00")
        notes += shown.notes if shown is not None else ()
    return PageEmbeds(digest.hexdigest(), tuple(dict.fromkeys(notes)), tuple(holes))


#: between a note's path and what follows it in a key: an anchor (a part's), the number of a
#: hole (an embed's, :func:`~kbtool.render.embeds.embed_key`)
_AT = "|"


def _shown(reads: Reads, key: str) -> Shown | None:
    """One embed of a page (``path|n``: its body's hole n): what it shows and reports, and
    the notes it shows, nested ones too."""
    path, _, index = key.rpartition(_AT)
    page, body = reads.input(PAGE, path), reads.input(BODY, path)
    site = reads.input(SITE, WHOLE)
    if page is None or body is None or site is None or int(index) >= len(body.holes):
        return None
    notes: list[str] = []

    def part_of(other: str, anchor: str | None) -> PageBody | None:
        notes.append(other)
        return reads.get(PART, f"{other}{_AT}{anchor or ''}")

    hole = body.holes[int(index)]
    shown = embed_shown(hole, page, site.wiki, site.t, EmbedSource(part_of))
    return replace(shown, notes=tuple(dict.fromkeys(notes)))


def _shown_digest(shown: Shown | None) -> str:
    if shown is None:
        return ""
    digest = hashlib.blake2b(digest_size=16)
    for part in [*shown.html, *(repr(d) for d in shown.diagnostics), *shown.notes]:
        digest.update(part.encode("utf-8", "surrogatepass") + b"\x00")
    return digest.hexdigest()


def _part(reads: Reads, key: str) -> PageBody | None:
    """The part of a note an embed shows (``path|anchor``; an anchor has no ``|``: that
    starts a link's label), as a body."""
    path, _, anchor = key.rpartition(_AT)
    return cut(reads.input(BODY, path), anchor or None)


def _part_digest(part: PageBody | None) -> str:
    # What the part shows: another section of the note edited leaves it as it was, and
    # the embeds that show it are not made again (early cutoff).
    return "" if part is None else digest_of_repr((part.html, part.holes_shown(), part.raw_html))


def _decode(value: Any) -> PageEmbeds:
    digest, notes, holes = value
    return PageEmbeds(str(digest), tuple(map(str, notes)), tuple(map(int, holes)))


PART: Query[PageBody | None] = Query("embed-part", _part, digest=_part_digest)
#: held in memory only (its trace is stored): the render of the page takes it from there
SHOWN: Query[Shown | None] = Query("embed-shown", _shown, digest=_shown_digest)
EMBEDS: Query[PageEmbeds] = Query("embeds", _embeds, Stored(list, _decode))


def embedded(run: Run, loaded: Loaded, site: SiteContext, listed: str) -> dict[str, PageEmbeds]:
    """Each page that embeds notes: the digest of what it shows, and the notes it shows.
    (Only Obsidian's flavor has embeds: elsewhere ``![[x]]`` is an image's ``!`` and a link.)"""
    if site.config.flavor != "obsidian":
        return {}
    engine = run.reuse.engine
    if run.use_store:
        load(engine, run.store, [EMBEDS, SHOWN, PART])
    digests = run.snapshot.digests()
    engine.set(SITE, WHOLE, site, f"{listed}.{site.common_key()!r}")
    current = _current(engine, run, loaded)
    # Only the pages new or changed since the engine's last run: at every save of a session
    # the rest are as set, and their loaders read this run's pages through ``current``.
    pages = {path: digests.get(path, "") for path in site.wiki.pages}
    for path in engine.differing(PAGE, pages):
        engine.set_lazy(PAGE, path, pages[path], partial(_page, current, path))
    for path in engine.differing(BODY, pages):
        engine.set_lazy(BODY, path, pages[path], partial(_body, current, path))
    found = engine.get_all(EMBEDS, site.wiki.pages)
    if not current.keeps(site.wiki.pages):  # pages went since: their values forgotten
        engine.retain(EMBEDS, site.wiki.pages)
        for query in (SHOWN, PART):  # keyed ``path|…``
            engine.retain_where(query, lambda key: key.rpartition(_AT)[0] in site.wiki.pages)
        current.kept = set(site.wiki.pages)
    return {path: value for path, value in found.items() if value.digest}


def shown_embeds(run: Run, site: SiteContext, paths: Sequence[str]) -> dict[str, Shown]:
    """The embeds of the pages ``paths``, by key: made when :func:`embedded` verified them (a
    session holds them), else made now."""
    keys = [
        embed_key(path, index)
        for path in paths
        if path in site.embeds
        for index in site.embeds[path].holes
    ]
    found = run.reuse.engine.get_all(SHOWN, keys)
    return {key: shown for key, shown in found.items() if shown is not None}


class _Current:
    """The run the pages' lazy inputs load from: one per engine, pointed at each run in turn,
    so that an input set in an earlier run (its file unchanged since) loads from this one and
    holds no earlier run's pages."""

    def __init__(self, run: Run, loaded: Loaded) -> None:
        self.run, self.loaded = run, loaded
        #: the pages whose values the engine was left with at the last run (None: not yet)
        self.kept: set[str] | None = None

    def keeps(self, pages: Mapping[str, object]) -> bool:
        """Whether the engine's values are of ``pages`` alone, as at the last run."""
        return (
            self.kept is not None and len(self.kept) == len(pages) and self.kept.issuperset(pages)
        )


#: the engine's :class:`_Current` (no query reads it: the loaders do)
CURRENT: Input[_Current] = Input("embeds-current")


def _current(engine: Engine, run: Run, loaded: Loaded) -> _Current:
    current = engine.input_entry(CURRENT, WHOLE)[1]
    if not isinstance(current, _Current):
        current = _Current(run, loaded)
        engine.set(CURRENT, WHOLE, current, "")
    current.run, current.loaded = run, loaded
    return current


def _page(current: _Current, path: str) -> Page:
    return current.loaded.pages[path]


def _body(current: _Current, path: str) -> PageBody:
    return fetch_bodies(current.run, current.loaded, [path])[path]
