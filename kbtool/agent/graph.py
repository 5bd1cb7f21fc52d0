"""The link graph, as the session's check left it in the store's link table: a page's links
and backlinks (with the anchor each names), its neighbourhood, similar pages, orphans, wanted
pages, hubs, and the unlinked mentions of a page."""

from __future__ import annotations

from collections import Counter
from urllib.parse import unquote

from kbtool.agent.errors import Refused
from kbtool.agent.models import LinkOut, LinksAnswer, PagesAnswer, ScoredPage
from kbtool.agent.paths import page_path
from kbtool.agent.search import SearchIndex
from kbtool.agent.state import AgentWiki
from kbtool.link_status import Status

#: The most pages a list answers with.
MAX_LISTED = 200
#: The link codes whose target is a page not written yet.
_MISSING_CODES = ("KB201", "KB203", "KB207", "KB209")


def _title(wiki: AgentWiki, path: str) -> str:
    page = wiki.checked().pages_of([path]).get(path)
    return page.title if page is not None else ""


def links(wiki: AgentWiki, given: str) -> LinksAnswer:
    path = page_path(wiki, given)
    state = wiki.checked()
    resolver = state.wiki
    page = state.pages_of([path])[path]
    outgoing = []
    for link in page.links:
        target = resolver.resolve(page, link)
        outgoing.append(
            LinkOut(
                path=target.path or link.target,
                line=link.span.line,
                kind=link.kind,
                anchor=target.anchor,
                status=target.status.value,
                target=link.target,
            )
        )
    sources = sorted({src for src, dst, _ in state.store.edges_touching([path]) if dst == path})
    backlinks = []
    stem = page.stem
    for other in state.pages_of(sources).values():
        for link in other.links:
            # a path link names the page's file: the others cannot lead to it (resolving
            # every link of a hub's hundreds of backlinking pages was most of the cost)
            if link.kind != "wikilink" and stem not in unquote(link.target):
                continue
            target = resolver.resolve(other, link)
            if target.path == path and target.status is Status.OK:
                backlinks.append(
                    LinkOut(
                        path=other.path,
                        line=link.span.line,
                        kind=link.kind,
                        anchor=target.anchor,
                        target=link.target,
                    )
                )
    return LinksAnswer(
        path=path,
        outgoing=outgoing[:MAX_LISTED],
        backlinks=backlinks[:MAX_LISTED],
        backlinks_total=len(backlinks),
    )


def neighbourhood(wiki: AgentWiki, given: str, depth: int = 1) -> PagesAnswer:
    """The pages within ``depth`` links of a page, either way; score: the distance."""
    path = page_path(wiki, given)
    store = wiki.checked().store
    depth = max(1, min(depth, 3))
    distance = {path: 0}
    frontier = {path}
    for step in range(1, depth + 1):
        reached = set()
        for src, dst, _ in store.edges_touching(sorted(frontier)):
            for other in (src, dst):
                if other not in distance:
                    distance[other] = step
                    reached.add(other)
        frontier = reached
        if len(distance) > MAX_LISTED:
            break
    near = sorted((d, p) for p, d in distance.items() if p != path)[:MAX_LISTED]
    pages = [ScoredPage(path=p, title=_title(wiki, p), score=d) for d, p in near]
    return PagesAnswer(what=f"pages within {depth} links of {path}", total=len(near), pages=pages)


def similar(wiki: AgentWiki, given: str, limit: int = 10) -> PagesAnswer:
    """The pages most like a page that it does not link (``kbtool related``)."""
    path = page_path(wiki, given)
    found = wiki.checked().related(path, max(1, min(limit, 50)))
    pages = [ScoredPage(path=p, title=_title(wiki, p)) for p in found]
    return PagesAnswer(what=f"pages like {path} it does not link", total=len(pages), pages=pages)


def orphans(wiki: AgentWiki) -> PagesAnswer:
    from kbtool.checks.graph import check_orphans

    found = [d.path for d in check_orphans(wiki.checked().store)]
    pages = [ScoredPage(path=p, title=_title(wiki, p)) for p in found[:MAX_LISTED]]
    return PagesAnswer(what="wiki pages no other page links to", total=len(found), pages=pages)


def wanted(wiki: AgentWiki) -> PagesAnswer:
    """Pages linked but not written: the targets of the links that lead nowhere, by how
    many pages link them."""
    state = wiki.checked()
    linking = [
        p for p, ds in wiki.diagnostics().items() if any(d.code in _MISSING_CODES for d in ds)
    ]
    resolver = state.wiki
    counts: Counter[str] = Counter()
    by: dict[str, set[str]] = {}
    for page in state.pages_of(linking).values():
        for link in page.links:
            target = resolver.resolve(page, link)
            if target.status is Status.MISSING:
                name = target.path or link.target
                if page.path not in by.setdefault(name, set()):
                    by[name].add(page.path)
                    counts[name] += 1
    ranked = counts.most_common(MAX_LISTED)
    pages = [
        ScoredPage(path=name, score=n, detail="linked from " + ", ".join(sorted(by[name])[:5]))
        for name, n in ranked
    ]
    return PagesAnswer(what="pages linked but not written", total=len(counts), pages=pages)


def hubs(wiki: AgentWiki, limit: int = 20) -> PagesAnswer:
    """The pages most pages link to; score: how many."""
    backlinks = wiki.checked().store.backlinks()
    ranked = sorted(backlinks.items(), key=lambda item: (-len(set(item[1])), item[0]))
    chosen = ranked[: max(1, min(limit, MAX_LISTED))]
    pages = [ScoredPage(path=p, title=_title(wiki, p), score=len(set(s))) for p, s in chosen]
    return PagesAnswer(what="the pages most linked to", total=len(backlinks), pages=pages)


def unlinked_mentions(wiki: AgentWiki, index: SearchIndex, given: str) -> PagesAnswer:
    """The pages that name a page (its title, or an alias) in plain text without linking
    it: the candidates from the search index, each read and looked at as KB306 looks."""
    from kbtool.checks.mentions import Named, Names, names_of
    from kbtool.checks.upkeep import aliases_of
    from kbtool.search.engine import rank

    path = page_path(wiki, given)
    page = wiki.checked().pages_of([path])[path]
    names = Names([Named(path, page.kind, names_of(page.title, aliases_of(page)))])
    if not names_of(page.title, aliases_of(page)):
        raise Refused(f"{path}: its title '{page.title}' is too short to be looked for")
    files = index.index()
    candidates: set[str] = set()
    for name in names_of(page.title, aliases_of(page)):
        ranked = rank(files, '"' + name.replace('"', " ") + '"')
        for doc_id in ranked.docs[:500]:
            part = files.doc_part(doc_id)
            if part is not None:
                candidates.add(part[0].card.path)
    found = []
    for other in sorted(candidates - {path}):
        try:
            text = wiki.read(other).decode("utf-8-sig", "replace")
        except OSError:
            continue
        for mention in names.find(other, text):
            found.append(ScoredPage(path=other, detail=f"line {mention.line}: {mention.written}"))
    return PagesAnswer(
        what=f"pages that name {path} without linking it", total=len(found), pages=found
    )
