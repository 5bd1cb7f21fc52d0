"""``search``: the site's ranked, CJK-exact engine (:mod:`kbtool.search.engine`, as
``kbtool search`` and the browser run it) over an index kept as the wiki is now.

The server starts from the built site's index. After a page changes (a write of this server,
or an edit the watcher saw), the next search updates it by the build's own update: only the
changed pages go into a segment (:mod:`kbtool.search.update`), written into a folder of the
server's own under the cache folder, so the site is never touched.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from kbtool.agent.errors import Refused
from kbtool.agent.models import SearchAnswer, SearchHit
from kbtool.agent.state import AgentWiki

if TYPE_CHECKING:  # imported when first asked for: the server answers `initialize` sooner
    from kbtool.search.engine import IndexFiles

#: the index's folder and main table in a site (as kbtool.search.layout names them)
_SEARCH, _TABLE = "search", "pages.json"

#: The most hits one answer lists.
MAX_HITS = 50
#: The server's index folders, under the cache folder: ``<pid>-a/search/``, ``<pid>-b/...``.
FOLDER = "mcp-search"


class SearchIndex:
    """The index of the wiki as it is now: the site's while that is up to date, else one of
    two folders of the server's, each update written into the one not in use (which holds a
    former index of the same main part: the update leaves its main files in place, as serve's
    spare site does)."""

    def __init__(self, wiki: AgentWiki) -> None:
        self.wiki = wiki
        #: the folder that holds ``search/``: the site's, until a page differs from it
        self.home: Path = wiki.config.site_path
        #: the wiki's generation the index is of (-1: not compared with the files yet)
        self._generation = -1
        self._mine = wiki.config.cache_path / FOLDER
        self._slots = (self._mine / f"{os.getpid()}-a", self._mine / f"{os.getpid()}-b")
        #: (the link table's version, each page's in-links): the ranking's prior
        self._links: tuple[str, dict[str, int]] = ("", {})
        _forget_dead(self._mine)

    def index(self) -> IndexFiles:
        from kbtool.search.engine import IndexFiles, IndexMissing

        self.wiki.take_changes()  # what the watcher saw since, counted in the generation
        if self._generation != self.wiki.generation or not self._has_index(self.home):
            self._update()
        try:
            return IndexFiles(self.home / _SEARCH)
        except IndexMissing:
            raise Refused("the wiki has no search index yet: run `kbtool build` once") from None

    @staticmethod
    def _has_index(home: Path) -> bool:
        return (home / _SEARCH / _TABLE).is_file()

    def _in_links(self) -> dict[str, int]:
        store = self.wiki.checked().store
        version = store.links_version()
        if self._links[0] != version or not version:
            counts = {path: len(set(sources)) for path, sources in store.backlinks().items()}
            self._links = (version, counts)
        return self._links[1]

    def _update(self) -> None:
        """Bring the index up to the wiki as it is now, unless it is."""
        from kbtool.search.page_terms import Terms
        from kbtool.search.site import build_search
        from kbtool.stages.load import fetch_search_docs, fetch_term_records, load_pages
        from kbtool.stages.run import new_run

        state = self.wiki.checked()
        generation = self.wiki.generation
        snapshot = state.snapshot()
        digests = snapshot.digests()
        if self._has_index(self.home) and _indexed(self.home) == digests:
            self._generation = generation
            return
        run = new_run(self.wiki.config, state.store, snapshot=snapshot, reuse=state.session.reuse)

        def fetch(paths: list[str]) -> dict[str, object]:
            loaded = load_pages(run, with_bodies=True, only=paths)
            return fetch_search_docs(run, loaded, paths)  # type: ignore[return-value]

        staging = self._slots[1] if self.home == self._slots[0] else self._slots[0]
        staging.mkdir(parents=True, exist_ok=True)
        terms = Terms(lambda paths: fetch_term_records(run, paths))
        labels = self.wiki.config.type_labels
        links = self._in_links()
        flavor = self.wiki.config.flavor
        build_search(digests, staging, self.home, fetch, labels, links, terms, flavor)  # type: ignore[arg-type]
        self.home = staging
        self._generation = generation

    def close(self) -> None:
        for slot in self._slots:
            shutil.rmtree(slot, ignore_errors=True)


def _indexed(home: Path) -> dict[str, str] | None:
    """path -> the content digest each page of the index in ``home`` was made from."""
    from kbtool.search.origins import read_origins

    origins = read_origins(home / _SEARCH)
    return None if origins is None else origins.digests()


def _forget_dead(folder: Path) -> None:
    """Remove the index folders of servers no longer running."""
    with contextlib.suppress(OSError):
        for entry in folder.iterdir():
            pid = entry.name.split("-")[0]
            if pid.isdigit() and not _alive(int(pid)):
                shutil.rmtree(entry, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def search(
    index: SearchIndex,
    query: str,
    type: str | None = None,
    tag: str | None = None,
    folder: str | None = None,
    offset: int = 0,
    limit: int = 10,
) -> SearchAnswer:
    from kbtool.search.engine import Ranked, hits, rank
    from kbtool.search.excerpt import plain_text

    filters = [f"type:{type}"] if type else []
    filters += [f"tag:{tag}"] if tag else []
    text = " ".join([query, *filters]).strip()
    if not text:
        raise Refused('the query is empty: give words, CJK text, a "phrase", type:T or tag:T')
    files = index.index()
    ranked = rank(files, text)
    if folder:
        prefix = folder.strip("/") + "/"
        kept = []
        for doc_id in ranked.docs:
            part = files.doc_part(doc_id)
            if part is not None and part[0].card.path.startswith(prefix):
                kept.append(doc_id)
        ranked = Ranked(ranked.query, tuple(kept))
    limit = max(1, min(limit, MAX_HITS))
    found = hits(files, ranked, max(0, offset), limit)
    more = offset + limit < ranked.total
    return SearchAnswer(
        query=text,
        total=ranked.total,
        hits=[
            SearchHit(
                path=hit.doc.card.path,
                title=hit.doc.card.title,
                type=hit.doc.card.type,
                label=hit.label,
                excerpt=plain_text(list(hit.excerpt)),
            )
            for hit in found
        ],
        next_offset=offset + limit if more else None,
    )
