"""The tools, registered on the server: each a typed function (its parameters the tool's
input schema, its pydantic answer the output schema) that hands its work to the module that
does it, through the :class:`~kbtool.agent.server.Guard`."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import Field

from kbtool.agent import cells, changes, checking, graph, listing, provenance, reading, writes
from kbtool.agent import search as searching
from kbtool.agent.guard import Guard
from kbtool.agent.models import (
    CellsAnswer,
    ChangesAnswer,
    CheckAnswer,
    LinksAnswer,
    MoveAnswer,
    PageAnswer,
    PageList,
    PagesAnswer,
    SearchAnswer,
    SourceAnswer,
    WriteAnswer,
)
from kbtool.agent.search import SearchIndex
from kbtool.agent.state import AgentWiki

Path = Annotated[str, Field(description="a page's path in the repository: wiki/concepts/x.md")]
Digest = Annotated[
    str | None,
    Field(description="the digest read_page gave of the text replaced; needed to replace a page"),
]
_READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


def register_read_tools(
    server: MCPServer, guard: Guard, wiki: AgentWiki, index: SearchIndex
) -> None:
    @server.tool(annotations=_READ)
    def search(
        query: Annotated[
            str, Field(description='words, CJK text (matched as written), "a phrase", -word')
        ],
        type: Annotated[str | None, Field(description="only pages of this type")] = None,
        tag: Annotated[str | None, Field(description="only pages with this tag")] = None,
        folder: Annotated[str | None, Field(description="only pages under this folder")] = None,
        offset: int = 0,
        limit: Annotated[int, Field(description="hits to answer, at most 50")] = 10,
    ) -> SearchAnswer:
        """Search the wiki as its site's search box does: ranked, with excerpts."""
        return guard(
            "search",
            lambda: searching.search(index, query, type, tag, folder, offset, limit),
        )

    @server.tool(annotations=_READ)
    def read_page(
        path: Path,
        section: Annotated[
            str | None,
            Field(description="a heading's text or anchor, or ^block-id: only that section"),
        ] = None,
        offset: Annotated[int, Field(description="the line to start at (next_offset)")] = 1,
    ) -> PageAnswer:
        """A page's frontmatter, outline (headings with anchors), digest and text: one
        section, or the lines from offset, cut at about 4,000 tokens (next_offset reads on)."""
        return guard("read_page", lambda: reading.read_page(wiki, path, section, offset))

    @server.tool(annotations=_READ)
    def list_pages(
        where: Annotated[
            list[str] | None,
            Field(
                description="conditions, all to hold: 'type = method', 'tags contains x', "
                "'updated < 2026-06-01', 'aliases exists'"
            ),
        ] = None,
        folder: Annotated[str | None, Field(description="only pages under this folder")] = None,
        offset: int = 0,
        limit: Annotated[int, Field(description="pages to answer, at most 200")] = 50,
    ) -> PageList:
        """The pages whose frontmatter matches, in path order, with title, type, summary,
        tags and updated."""
        return guard("list_pages", lambda: listing.list_pages(wiki, where, folder, offset, limit))

    @server.tool(annotations=_READ)
    def links(path: Path) -> LinksAnswer:
        """A page's outgoing links (with their status) and its backlinks, each with the line
        it is on and the anchor it names."""
        return guard("links", lambda: graph.links(wiki, path))

    @server.tool(annotations=_READ)
    def neighbourhood(
        path: Path, depth: Annotated[int, Field(description="1 to 3 links away")] = 1
    ) -> PagesAnswer:
        """The pages within depth links of a page, either way (score: the distance)."""
        return guard("neighbourhood", lambda: graph.neighbourhood(wiki, path, depth))

    @server.tool(annotations=_READ)
    def similar_pages(path: Path, limit: int = 10) -> PagesAnswer:
        """The pages most like a page (shared neighbours and tags) that it does not link:
        candidates for its `related`."""
        return guard("similar_pages", lambda: graph.similar(wiki, path, limit))

    @server.tool(annotations=_READ)
    def orphans() -> PagesAnswer:
        """The wiki pages no other page links to."""
        return guard("orphans", lambda: graph.orphans(wiki))

    @server.tool(annotations=_READ)
    def wanted_pages() -> PagesAnswer:
        """The pages linked but not written, by how many pages link them."""
        return guard("wanted_pages", lambda: graph.wanted(wiki))

    @server.tool(annotations=_READ)
    def hubs(limit: int = 20) -> PagesAnswer:
        """The pages most pages link to."""
        return guard("hubs", lambda: graph.hubs(wiki, limit))

    @server.tool(annotations=_READ)
    def unlinked_mentions(path: Path) -> PagesAnswer:
        """The pages that name a page (its title or an alias) in plain text without linking
        it: where a link is missing."""
        return guard("unlinked_mentions", lambda: graph.unlinked_mentions(wiki, index, path))

    _register_provenance(server, guard, wiki)
    _register_checks(server, guard, wiki)


def _register_provenance(server: MCPServer, guard: Guard, wiki: AgentWiki) -> None:
    @server.tool(annotations=_READ)
    def source(path: Path) -> SourceAnswer:
        """A source's own page: title, frontmatter, ingestion date, the pages citing it."""
        return guard("source", lambda: provenance.source(wiki, path))

    @server.tool(annotations=_READ)
    def cited_by(path: Path) -> PagesAnswer:
        """The wiki pages that cite (link) a source page."""
        return guard("cited_by", lambda: provenance.cited_by(wiki, path))

    @server.tool(annotations=_READ)
    def uncited_sources() -> PagesAnswer:
        """The source pages no wiki page cites."""
        return guard("uncited_sources", lambda: provenance.uncited(wiki))

    @server.tool(annotations=_READ)
    def stale_pages() -> PagesAnswer:
        """The wiki pages whose `updated` is older than a source they cite (KB304)."""
        return guard("stale_pages", lambda: provenance.stale(wiki))


def _register_checks(server: MCPServer, guard: Guard, wiki: AgentWiki) -> None:
    @server.tool(annotations=_READ)
    def check(
        path: Annotated[
            str | None, Field(description="a page or folder; none: the whole wiki")
        ] = None,
        text: Annotated[
            str | None,
            Field(description="a draft of the page at path: checked as if written, not written"),
        ] = None,
    ) -> CheckAnswer:
        """The diagnostics (code, line, message, fix) of the wiki, a page, or a draft text
        for a path: for a draft, also the errors it would add elsewhere (a heading others
        link to, removed)."""
        return guard("check", lambda: checking.check(wiki, path, text))

    @server.tool(annotations=_READ)
    def changes_since(
        since: Annotated[
            str, Field(description="a git revision (commit, branch, tag) or a date/time")
        ],
    ) -> ChangesAnswer:
        """The pages added, edited and removed since then, and the diagnostics that
        appeared and went."""
        return guard("changes_since", lambda: changes.changes(wiki, since))

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    def run_cells(
        path: Path,
        use_cache: Annotated[bool, Field(description="reuse a stored result if valid")] = True,
    ) -> CellsAnswer:
        """Run a page's python cells as `kbtool test` does (contained, limited, results
        stored): each cell's status, output, value, and failure at its Markdown line."""
        return guard("run_cells", lambda: cells.run_cells(wiki, path, use_cache))


def register_write_tools(server: MCPServer, guard: Guard, wiki: AgentWiki) -> None:
    @server.tool(annotations=_WRITE)
    def write_page(path: Path, text: str, if_match: Digest = None) -> WriteAnswer:
        """Write a page whole (frontmatter and body), checked first: refused, with each
        error and its fix, if it adds an error to the wiki; replacing a page needs
        if_match."""
        return guard("write_page", lambda: writes.write_page(wiki, path, text, if_match))

    @server.tool(annotations=_WRITE)
    def edit_section(
        path: Path,
        section: Annotated[str, Field(description="a heading's text or anchor, or ^block-id")],
        text: Annotated[
            str,
            Field(description="the section's new text; without a heading first, it keeps its own"),
        ],
        if_match: Digest = None,
    ) -> WriteAnswer:
        """Replace one section of a page (its heading and what is under it, up to the next
        heading of its level), checked first as write_page is."""
        return guard(
            "edit_section", lambda: writes.edit_section(wiki, path, section, text, if_match)
        )

    @server.tool(annotations=_WRITE)
    def move_page(
        path: Path, destination: Annotated[str, Field(description="its new path")]
    ) -> MoveAnswer:
        """Move or rename a page as `kbtool mv` does: every link to it and in it rewritten."""
        return guard("move_page", lambda: writes.move_page(wiki, path, destination))
