"""Stage 5a, site facts: what the site shows of each page beyond its body (its ``PageInfo``:
title, type, tags, related and sources entries, backlinks, neighbours, linked titles) and the
small part of it that the indexes and the graph show (its ``Listing``), computed again only
for the pages an edit can change.

A page's PageInfo depends on its own file and on facts of the pages its links reach and that
reach it. So after an edit it is computed again for:

- the pages the check looked at again since the last build (their file changed, or they read
  a fact that changed), or that went: the check marks them *pending* in the store, with every
  page its link table joined them to before it changed (a build stopped at the gate leaves
  them marked for the next);
- every page such a page is joined to now (the check's link table): they show its title and
  type, or link to it; unless the page was marked *alone*, its title, type and links the same
  as before (text edited around its links): those pages show it as they did;
- any page without a valid record (its key holds the file's digest and the settings).

Everything else comes from records (or is reused), never by resolving the
links of the whole wiki: every page's listing, and a PageInfo only when its page is rendered.
Tests compare the result with a clean build on random edits.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from kbtool.model import Page
from kbtool.render import urls
from kbtool.render.card import Ref
from kbtool.render.site import Listing, PageInfo, collect, collect_pages
from kbtool.report.graph import merged_edges
from kbtool.reuse.lazy import Lazy
from kbtool.reuse.since import edited_since
from kbtool.reuse.values import WHOLE
from kbtool.stages.check import CheckRun
from kbtool.stages.facts import Facts
from kbtool.stages.reused import INFO_KEYS, INFOS, LISTINGS, REFS, SITE_STATE
from kbtool.stages.run import Run
from kbtool.stages.site_state import SiteState
from kbtool.store.db import Store
from kbtool.store.records import INFO, LISTING
from kbtool.wiki import ResolvedLink, ShownLink, Wiki


@dataclass(frozen=True)
class SiteFacts:
    """Every page's PageInfo (read when asked for) and listing, by path."""

    infos: Mapping[str, PageInfo]
    listings: dict[str, Listing]


def site_infos(run: Run, wiki: Wiki, checked: CheckRun) -> SiteFacts:
    """Every page's site facts, in the wiki's order."""
    settings, generation = run.config.fingerprint(), run.generation()
    held = None if generation is None else run.reuse.get(SITE_STATE, WHOLE, (settings, generation))
    run.reuse.drop(SITE_STATE, WHOLE)
    digests = run.snapshot.digests()
    edited = edited_since(held.digests, digests) if held is not None else None
    if held is not None and edited is not None:
        start = _patched(run, held, edited, checked, settings)
    else:
        keys = _keys(run, wiki.pages, settings)
        start = _Start(keys, None, {}, set())
    keys = start.keys
    marked, near, alone = run.store.pending()
    # A cold build, a new day, new settings: with most pages marked, one pass over the wiki's
    # links is cheaper than asking the link table page by page.
    most = 2 * len(marked) > len(wiki.pages)
    if most or not (run.use_store and checked.links_stored):
        fresh = _collect_all(wiki, checked)
        listings = _save(run, fresh, keys, marked)
        if run.use_store and checked.links_stored:
            in_order = {path: listings[path] for path in wiki.pages}
            state = SiteState(digests, keys, _refs(run, checked.facts), in_order)
            _hold(run, state, settings, generation)
        return SiteFacts(fresh, listings)
    refs = start.refs if start.refs is not None else _refs(run, checked.facts)
    if start.refs is not None:  # patched: every listing but the edited pages' is valid
        previous, invalid = start.listings, start.invalid
    else:
        previous = _previous(run, keys, refs)
        invalid = {path for path in wiki.pages if path not in previous}
    affected = marked | near | invalid
    for frm, to, _ in run.store.edges_touching(marked - alone):  # they show the marked
        affected.update((frm, to))
    fresh = _collect(run, wiki, checked, sorted(p for p in affected if p in wiki.pages), refs)
    made = _save(run, fresh, keys, marked)
    if start.refs is not None:
        listings = {**previous, **made}  # the same pages, in the same order
    else:
        listings = {path: made[path] if path in made else previous[path] for path in wiki.pages}
    _hold(run, SiteState(digests, keys, refs, listings), settings, generation)

    def make(path: str) -> PageInfo:  # a record that cannot be read: made again
        return _collect(run, wiki, checked, [path], refs)[path]

    infos = _stored_infos(run, fresh, keys, refs, make)
    return SiteFacts(infos, listings)


def _hold(run: Run, state: SiteState, settings: str, generation: int | None) -> None:
    """Hold ``state`` for the next build while the store is as this one leaves it (not when
    another process wrote during this one)."""
    if generation is not None and run.generation() == generation:
        run.reuse.put(SITE_STATE, WHOLE, (settings, generation), state)


@dataclass(frozen=True)
class _Start:
    """Every page's record key; patched from the build before: every page's ref and every
    listing still valid, and the pages whose listing is not (None: made from the records)."""

    keys: dict[str, str]
    refs: dict[str, Ref] | None
    listings: dict[str, Listing]
    invalid: set[str]


def _patched(
    run: Run, held: SiteState, edited: set[str], checked: CheckRun, settings: str
) -> _Start:
    """The keys, refs and valid listings of the build before, patched for the pages whose
    file changed: their key, their ref (a page's title and type change only with its file)
    and their listing, made again."""
    digests = run.snapshot.digests()
    keys = {**held.keys, **{p: INFO.key(digests[p], settings) for p in edited}}
    refs = dict(held.refs)
    for path in edited:
        facts = checked.facts.get(path)
        if facts is None:
            refs.pop(path, None)
        else:
            refs[path] = run.reuse.made(REFS, path, (facts.title, facts.type), _ref)
    return _Start(keys, refs, held.listings, set(edited))


def _collect_all(wiki: Wiki, checked: CheckRun) -> dict[str, PageInfo]:
    """Every page's PageInfo; from the links the check resolved when it checked every page
    (a cold build: in its workers), so that this process resolves none of them again."""
    if len(checked.shown) != len(wiki.pages):
        return collect(wiki)
    shown = [item for path in wiki.pages for item in checked.shown[path]]
    edges = merged_edges(edge for item in shown if (edge := item.edge()) is not None)
    return collect_pages(wiki, list(wiki.pages), edges, shown)


def _collect(
    run: Run, wiki: Wiki, checked: CheckRun, paths: list[str], refs: dict[str, Ref]
) -> dict[str, PageInfo]:
    """The PageInfo of ``paths``, from the link table and their links: as the check resolved
    them when it checked the page now, else resolved by the check's wiki (whose other pages
    are stand-ins: no other page is read)."""
    resolver, pages = checked.wiki, wiki.pages

    def shown(page: Page) -> Iterable[ShownLink]:
        if page.path in checked.shown:
            return checked.shown[page.path]
        return (
            ShownLink.of(ResolvedLink(page, ln, resolver.resolve(page, ln))) for ln in page.links
        )

    links = [item for path in paths for item in shown(pages[path])]
    touching = merged_edges(run.store.edges_touching(set(paths)))
    return collect_pages(wiki, paths, touching, links, refs)


def _stored_infos(
    run: Run,
    fresh: dict[str, PageInfo],
    keys: dict[str, str],
    refs: Mapping[str, Ref],
    make: Callable[[str], PageInfo],
) -> Lazy[PageInfo, str]:
    """Every page's PageInfo: the ones made now, the others (each with its record's key)
    reused, read from the store, or else made, when first asked for."""

    def get(batch: dict[str, str]) -> dict[str, PageInfo]:
        found = {}
        for path, key in batch.items():
            held = run.reuse.get(INFOS, path, key)
            if held is not None:
                found[path] = held
        rest = [p for p in batch if p not in found]
        stored = _decoded(run.store, rest, keys, refs)
        for path in rest:
            found[path] = stored.get(path) or make(path)
            run.reuse.put(INFOS, path, batch[path], found[path])
        return found

    return Lazy(get, fresh, keys, keys)


def _decoded(
    store: Store, paths: list[str], keys: dict[str, str], refs: Mapping[str, Ref]
) -> dict[str, PageInfo]:
    """The stored PageInfo of each of ``paths`` whose record is valid and can be read."""
    found = {}
    for path, (stored_key, value) in store.some(INFO, paths).items():
        if stored_key == keys.get(path):
            with contextlib.suppress(KeyError, ValueError, TypeError, IndexError):
                found[path] = PageInfo.from_record(path, INFO.codec.decode(value), refs)
    return found


def _keys(run: Run, paths: Iterable[str], settings: str) -> dict[str, str]:
    """Each page's site-facts record key: its file's digest and the settings (reused while
    the digest and settings it was made of are the same)."""
    digests = run.snapshot.digests()
    made_of = ((path, (digests[path], settings)) for path in paths)
    return run.reuse.made_all(INFO_KEYS, made_of, lambda _, made: INFO.key(*made))


def _refs(run: Run, facts: Mapping[str, Facts]) -> dict[str, Ref]:
    """Each page as other pages show it, from its facts (no page is read); reused while the
    title and type it was made of are the same."""
    return run.reuse.made_all(REFS, ((p, (f.title, f.type)) for p, f in facts.items()), _ref)


def _ref(path: str, title_and_type: tuple[str, str]) -> Ref:
    return Ref(path, urls.page_output(path), *title_and_type)


def _previous(run: Run, keys: dict[str, str], refs: Mapping[str, Ref]) -> dict[str, Listing]:
    """The reused (or stored) listing of each page whose record is still valid: a listing is
    reused under its record's key and the page as other pages show it."""
    stored_keys = run.store.keys(LISTING)
    valid = (p for p, key in keys.items() if stored_keys.get(p) == key)
    found = run.reuse.got(LISTINGS, ((p, (keys[p], refs[p])) for p in valid))
    wanted = [p for p, key in keys.items() if p not in found and stored_keys.get(p) == key]
    records = run.store.some_of(LISTING, wanted, len(keys))  # all of them in a new process
    for path in wanted:
        if (record := records.get(path)) is None:
            continue
        try:
            found[path] = Listing.from_record(refs[path], LISTING.codec.decode(record[1]))
        except (KeyError, ValueError, TypeError):  # damaged or foreign: made again
            continue
        run.reuse.put(LISTINGS, path, (keys[path], refs[path]), found[path])
    return found


def _save(
    run: Run, infos: dict[str, PageInfo], keys: dict[str, str], marked: set[str]
) -> dict[str, Listing]:
    """Store ``infos`` and their listings (reused too), and take the marks of the pages they
    were made for; the listings."""
    listings = {path: Listing.of(info) for path, info in infos.items()}
    info_rows = [(p, keys[p], INFO.codec.encode(info.record())) for p, info in infos.items()]
    rows = [(p, keys[p], LISTING.codec.encode(item.record())) for p, item in listings.items()]
    with run.store.transaction():
        run.store.put(INFO, info_rows)
        run.store.put(LISTING, rows)
        run.store.clear_pending(marked)
    for path, info in infos.items():
        run.reuse.put(INFOS, path, keys[path], info)
        run.reuse.put(LISTINGS, path, (keys[path], listings[path].card.ref), listings[path])
    return listings
