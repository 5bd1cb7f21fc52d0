"""What each page's embeds show, as a query on the run's engine: the first of the build's
outputs to read another page's text, so that editing an embedded section renders again exactly
the pages that show it.

``embeds(path)`` reads the page (its file's digest), and, if it embeds notes, the site as the
links show it (every listing's digest and the settings) and the body of every note it shows,
nested ones too: each a recorded read. Its value is the digest of what the page's embeds show
(the rest of its body is its own file's and the site's), and the notes they show; a page's
output key holds the digest, so an edit to another section of an embedded note (the same
digest: early cutoff) renders nothing again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from kbtool.engine import WHOLE, Input, Query, Reads, Stored
from kbtool.engine.persist import load
from kbtool.model import Page
from kbtool.render.context import SiteContext
from kbtool.render.embeds import EmbedSource
from kbtool.render.fill import embeds_shown
from kbtool.render.markdown import PageBody
from kbtool.stages.load import Loaded, fetch_bodies
from kbtool.stages.run import Run

#: a page, its digest its file's
PAGE: Input[Page] = Input("page")
#: a page's body as the page worker rendered it, its digest its file's
BODY: Input[PageBody] = Input("body")
#: the site as links show other pages, its digest every listing's and the settings'
SITE: Input[SiteContext] = Input("site")

#: (digest of what the page shows with its embeds filled in, the notes they show)
Embeds = tuple[str, tuple[str, ...]]


def _embeds(reads: Reads, path: str) -> Embeds:
    page = reads.input(PAGE, path)
    if page is None or not page.embeds:
        return "", ()
    site, body = reads.input(SITE, WHOLE), reads.input(BODY, path)
    if site is None or body is None:
        return "", ()
    shown: list[str] = []

    def body_of(other: str) -> PageBody | None:
        shown.append(other)
        return reads.input(BODY, other)

    html, found = embeds_shown(body, page, site.wiki, site.t, EmbedSource(body_of))
    digest = hashlib.blake2b(digest_size=16)
    for part in [*html, *(repr(d) for d in found)]:
        digest.update(part.encode("utf-8", "surrogatepass") + b"\x00")
    return digest.hexdigest(), tuple(dict.fromkeys(shown))


def _decode(value: Any) -> Embeds:
    digest, shown = value
    return str(digest), tuple(str(path) for path in shown)


EMBEDS: Query[Embeds] = Query("embeds", _embeds, Stored(list, _decode))


def embedded(run: Run, loaded: Loaded, site: SiteContext, listed: str) -> dict[str, Embeds]:
    """Each page that embeds notes: the digest of what it shows, and the notes it shows.
    (Only Obsidian's flavor has embeds: elsewhere ``![[x]]`` is an image's ``!`` and a link.)"""
    if site.config.flavor != "obsidian":
        return {}
    engine = run.reuse.engine
    if run.use_store:
        load(engine, run.store, [EMBEDS])
    digests = run.snapshot.digests()
    engine.set(SITE, WHOLE, site, f"{listed}.{site.common_key()!r}")
    pages = loaded.pages
    for path in site.wiki.pages:
        engine.set_lazy(PAGE, path, digests.get(path, ""), _getter(pages, path))
        engine.set_lazy(BODY, path, digests.get(path, ""), _body_getter(run, loaded, path))
    found = {path: engine.get(EMBEDS, path) for path in site.wiki.pages}
    engine.retain(EMBEDS, site.wiki.pages)
    return {path: value for path, value in found.items() if value[0]}


def _getter(pages: Mapping[str, Page], path: str) -> Callable[[], Page]:
    return lambda: pages[path]


def _body_getter(run: Run, loaded: Loaded, path: str) -> Callable[[], PageBody]:
    return lambda: fetch_bodies(run, loaded, [path])[path]
