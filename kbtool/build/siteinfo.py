"""Stage 5a, site facts: what the site shows of each page beyond its body (its ``PageInfo``:
title, type, tags, related and sources entries, backlinks, neighbours, linked titles),
computed again only for the pages an edit can change.

A page's PageInfo depends on its own file and on facts of the pages its links reach and that
reach it. So after an edit it is computed again for:

- the pages the check looked at again since the last build (their file changed, or they read
  a fact that changed), or that went: the check marks them *pending* in the store, with every
  page its link table joined them to before it changed (a build stopped at the gate leaves
  them marked for the next);
- every page such a page is joined to now (the check's link table): they show its title and
  type, or link to it;
- any page without a valid record (its key holds the file's digest and the settings).

Everything else comes from records (or from what ``serve`` kept), never by resolving the
links of the whole wiki. Tests compare the result with a clean build on random edits.
"""

from __future__ import annotations

from kbtool.build.check import CheckRun
from kbtool.build.run import Run
from kbtool.render.site import PageInfo, collect, collect_pages, ref_of
from kbtool.report.graph import EDGE_KINDS
from kbtool.store.records import INFO
from kbtool.wiki import ResolvedLink, Wiki


def site_infos(run: Run, wiki: Wiki, checked: CheckRun) -> dict[str, PageInfo]:
    """Every page's PageInfo, by path, in the wiki's order."""
    keys = _keys(run, wiki)
    marked, near = run.store.pending()
    # A cold build, a new day, new settings: with most pages marked, one pass over the wiki's
    # links is cheaper than asking the link table page by page.
    most = 2 * len(marked) > len(wiki.pages)
    if most or not (run.use_store and checked.links_stored):
        infos = collect(wiki)
        _save(run, infos, keys, marked)
        run.kept.infos = {path: (keys[path], info) for path, info in infos.items()}
        return infos
    previous = _previous(run, wiki, keys)
    affected = marked | near | {path for path in wiki.pages if path not in previous}
    for frm, to, _ in run.store.edges_touching(marked):
        affected.update((frm, to))
    affected = {path for path in affected if path in wiki.pages}
    links = [
        ResolvedLink(page, link, wiki.resolve(page, link))
        for page in (wiki.pages[path] for path in sorted(affected))
        for link in page.links
    ]
    touching = dict.fromkeys(
        (frm, to, EDGE_KINDS[kind]) for frm, to, kind in run.store.edges_touching(affected)
    )
    fresh = collect_pages(wiki, sorted(affected), touching, links)
    _save(run, fresh, keys, marked)
    infos = {path: fresh[path] if path in fresh else previous[path] for path in wiki.pages}
    run.kept.infos = {path: (keys[path], info) for path, info in infos.items()}
    return infos


def keep_infos(run: Run, wiki: Wiki) -> None:
    """Put every page's stored PageInfo that is still valid into :attr:`Run.kept`, without
    computing any (for a long-running process, before its first rebuild)."""
    keys = _keys(run, wiki)
    found = _previous(run, wiki, keys)
    run.kept.infos = {path: (keys[path], info) for path, info in found.items()}


def _keys(run: Run, wiki: Wiki) -> dict[str, str]:
    """Each page's site-facts record key: its file's digest and the settings."""
    settings = run.config.fingerprint()
    return {path: INFO.key(page.digest, settings) for path, page in wiki.pages.items()}


def _previous(run: Run, wiki: Wiki, keys: dict[str, str]) -> dict[str, PageInfo]:
    """The stored (or kept) PageInfo of each page whose record is still valid."""
    stored_keys = run.store.keys(INFO)
    kept = run.kept.infos
    found = {
        path: info
        for path, (key, info) in kept.items()
        if keys.get(path) == key and stored_keys.get(path) == key
    }
    wanted = [p for p, key in keys.items() if p not in found and stored_keys.get(p) == key]
    if not wanted:
        return found
    refs = {path: ref_of(page) for path, page in wiki.pages.items()}
    for path, (_, value) in run.store.some(INFO, wanted).items():
        try:
            found[path] = PageInfo.from_record(path, INFO.codec.decode(value), refs)
        except (KeyError, ValueError, TypeError, IndexError):  # damaged or foreign: made again
            continue
    return found


def _save(run: Run, infos: dict[str, PageInfo], keys: dict[str, str], marked: set[str]) -> None:
    """Store ``infos``, and take the marks of the pages they were made for."""
    rows = [(path, keys[path], INFO.codec.encode(info.record())) for path, info in infos.items()]
    with run.store.transaction():
        run.store.put(INFO, rows)
        run.store.clear_pending(marked)
