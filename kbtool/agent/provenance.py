"""Provenance: which pages cite a source, the sources no page cites, the pages older than a
source they cite (KB304), a source's own page."""

from __future__ import annotations

from kbtool.agent.errors import Refused
from kbtool.agent.models import PagesAnswer, ScoredPage, SourceAnswer
from kbtool.agent.paths import page_path
from kbtool.agent.reading import json_safe
from kbtool.agent.state import AgentWiki

#: The most pages a list answers with.
MAX_LISTED = 200


def _citing(wiki: AgentWiki, path: str) -> list[str]:
    store = wiki.checked().store
    wiki_pages = set(store.graph_pages("wiki"))
    edges = store.edges_touching([path])
    return sorted({src for src, dst, _ in edges if dst == path and src in wiki_pages})


def source(wiki: AgentWiki, given: str) -> SourceAnswer:
    """A source's own page: its title, frontmatter, date, and the wiki pages that cite it."""
    from kbtool.checks.stale import source_date_of

    path = page_path(wiki, given)
    page = wiki.page(path)
    if page is None or page.kind != "source":
        raise Refused(f"{path} is not a page of the sources folder ({wiki.config.sources}/)")
    found = source_date_of(wiki.config, page, lambda: wiki.read(path))
    date = found.when if found is not None else None
    return SourceAnswer(
        path=path,
        title=page.title,
        frontmatter=json_safe(page.meta),
        cited_by=_citing(wiki, path),
        date=date.isoformat() if date is not None else None,
    )


def cited_by(wiki: AgentWiki, given: str) -> PagesAnswer:
    path = page_path(wiki, given)
    found = _citing(wiki, path)
    pages = [ScoredPage(path=p) for p in found[:MAX_LISTED]]
    return PagesAnswer(what=f"wiki pages that link {path}", total=len(found), pages=pages)


def uncited(wiki: AgentWiki) -> PagesAnswer:
    from kbtool.checks.graph import check_uncited_sources

    found = [d.path for d in check_uncited_sources(wiki.checked().store)]
    pages = [ScoredPage(path=p) for p in found[:MAX_LISTED]]
    return PagesAnswer(what="source pages no wiki page cites", total=len(found), pages=pages)


def stale(wiki: AgentWiki) -> PagesAnswer:
    """The wiki pages whose ``updated`` is older than a source they cite (KB304)."""
    if wiki.config.source_date is None:
        raise Refused(
            "this wiki does not say when a source was ingested, so no page can be older than "
            "its sources: set `source-date` in [tool.kbtool] (docs/configuration.md)"
        )
    found = sorted(
        (d for ds in wiki.diagnostics().values() for d in ds if d.code == "KB304"),
    )
    pages = [ScoredPage(path=d.path, detail=d.message) for d in found[:MAX_LISTED]]
    return PagesAnswer(
        what="wiki pages older than a source they cite (KB304)", total=len(found), pages=pages
    )
