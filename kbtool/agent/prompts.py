"""The prompts for the three jobs of a wiki that agents write: ingest a source, answer a
question from the wiki with citations, and lint. Each names the tools to use in order."""

from __future__ import annotations

INSTRUCTIONS = """\
This server is a Markdown knowledge base (a wiki of pages with YAML frontmatter, and a sources
archive they are written from), checked by kbtool. Find pages with `search` (CJK text matches
as a substring; type:T, tag:T refine) or `list_pages`; read economically with `read_page`
(outline first, then one `section` by heading or anchor). The graph: `links` (outgoing and
backlinks), `neighbourhood`, `similar_pages`, `orphans`, `wanted_pages`, `hubs`. Provenance:
`source`, `cited_by`, `uncited_sources`, `stale_pages`. Before writing, `check` a draft (path
and text): it answers the diagnostics the wiki would have, each with a fix. `write_page` and
`edit_section` (when the server was started with --write) refuse a text that adds errors and
need `if_match` (the digest read_page gave) to replace a page. Links are relative paths
(../concepts/x.md#anchor); anchors are headings' slugs as the outline gives them."""


def ingest(source: str) -> str:
    return f"""\
Ingest the source page {source} into the wiki.

1. `source` {source}: read what it is and which pages cite it already; `read_page` it
   (outline first, then the sections you need).
2. Find the pages it touches: `search` its key terms (each alone, in the wiki's language and
   in English), `similar_pages`, `neighbourhood` of the pages found.
3. Extend rather than duplicate: when a page on a concept exists, add to it (`edit_section`
   of the section concerned, or a new section), and list {source} in its `sources`. Write a
   new page only for a concept no page covers; link it from the pages it relates to and list
   them in its `related`.
4. Before each write, `check` the draft (path and text) and fix every error it reports.
5. Cite the source in every page you change (its `sources` list, relative path), update
   each page's `updated` to today, and end with `check` on the pages you wrote."""


def answer(question: str) -> str:
    return f"""\
Answer from the wiki, with citations: {question}

1. `search` the question's key terms (several searches: each term alone; Chinese terms as
   written), and `list_pages` by type or tag when the question names one.
2. `read_page` the best pages: outline first, then only the sections that answer.
3. Follow `links` and `neighbourhood` where a page points on; `cited_by` and `source` give
   the sources behind a page.
4. Answer only from what you read. Cite each claim with the page's path and section anchor
   (wiki/concepts/x.md#anchor), and the source pages where they back it. Say what the wiki
   does not cover rather than filling it in."""


def lint(scope: str = "") -> str:
    where = f" under {scope}" if scope else ""
    return f"""\
Lint the wiki{where}: fix what `check` reports, link what is mentioned, merge duplicates.

1. `check`{" with path " + scope if scope else ""}: fix the errors first (each diagnostic has a
   line and a fix), then the warnings. Re-read a page (`read_page`) before editing it and
   pass its digest as `if_match`.
2. `orphans`: link each from the pages it belongs with (`similar_pages` suggests them).
3. `wanted_pages`: write the pages many pages link to, or point the links at existing pages.
4. `unlinked_mentions` of the main pages (`hubs`): turn plain mentions into links.
5. Duplicates: when two pages cover one concept (`similar_pages`, like titles in `search`),
   keep one: add what only the other says to it (`edit_section`), point the other's
   backlinks (`links`) at it, and leave the other for a person to delete.
6. `check` again: no new errors."""
