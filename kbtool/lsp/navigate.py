"""Going where links lead: definition (to the heading, for an anchor), hover, references
(backlinks), the page's headings and the wiki's page titles as symbols."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from kbtool.edits.vault_headings import named_headings
from kbtool.lsp.state import WikiState
from kbtool.lsp.text import Lines, link_at, link_extent
from kbtool.model import Page
from kbtool.obsidian_links import subpath_parts
from kbtool.parse.slugs import slugify
from kbtool.wiki import Status, Target

#: Workspace symbols are cut here (the client asks again as the author types more).
LIMIT = 200


def uri_of(state: WikiState, path: str) -> str:
    return from_fs_path(str(Path(state.config.root) / path)) or ""


def _target_at(state: WikiState, path: str, lines: Lines, line: int, col: int) -> Target | None:
    page = state.pages.get(path)
    if page is None:
        return None
    link = link_at(page, lines, line, col)
    if link is None:
        return None
    return state.wiki.resolve(page, link)


def _heading_line(page: Page, anchor: str | None) -> int:
    """The 0-based line of the heading ``anchor`` names (slug, or a wikilink's text), of a
    vault's ``#A#B`` (B under A) or of its block ``#^id``; the page's first line for none."""
    if not anchor:
        return 0
    parts = subpath_parts(anchor)
    if parts and parts[-1].startswith("^"):
        block = next((b for b in page.blocks if b.id == parts[-1][1:]), None)
        return block.lines[0] - 1 if block else 0
    if len(parts) > 1:
        last = named_headings(parts, page.headings)[-1]
        return last.line - 1 if last else 0
    for heading in page.headings:
        if anchor in (heading.slug, heading.text) or slugify(anchor) == heading.slug:
            return heading.line - 1
    return 0


def definition(
    state: WikiState, path: str, lines: Lines, line: int, col: int
) -> types.Location | None:
    target = _target_at(state, path, lines, line, col)
    if target is None or target.path is None or target.status not in (Status.OK, Status.AMBIGUOUS):
        return None
    at = _heading_line(target.page, target.anchor) if target.page else 0
    where = types.Range(types.Position(at, 0), types.Position(at, 0))
    return types.Location(uri=uri_of(state, target.path), range=where)


def hover(state: WikiState, path: str, lines: Lines, line: int, col: int) -> types.Hover | None:
    target = _target_at(state, path, lines, line, col)
    if target is None or target.page is None:
        return None
    page = target.page
    kind = page.meta.get("type")
    parts = [f"**{_plain(page.title)}**"]
    if isinstance(kind, str):
        parts[0] += f" · {_plain(kind)}"
    summary = page.meta.get("summary")
    if isinstance(summary, str):
        parts.append(_plain(summary))
    parts.append(_plain(page.path) + (f" → #{_plain(target.anchor)}" if target.anchor else ""))
    if target.anchor:  # what the link lands on: the heading's or the block's first line
        at = _heading_line(page, target.anchor)
        landing = Lines.of(state.shown_text(page.path)).get(at + 1).strip() if at else ""
        if landing:
            parts.append("> " + _plain(landing))
    content = types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n".join(parts))
    return types.Hover(contents=content)


def _plain(text: str) -> str:
    """Page text shown as Markdown by the editor: its markup characters escaped, so that a
    page cannot make a hover show links or HTML it did not write as text."""
    return "".join("\\" + c if c in "\\`*_{}[]<>()#+-.!|~" else c for c in text)


def references(
    state: WikiState, path: str, lines: Lines, line: int, col: int
) -> list[types.Location]:
    """The links to the page the cursor's link leads to, else to this page."""
    target = _target_at(state, path, lines, line, col)
    wanted = target.page.path if target is not None and target.page is not None else path
    found = []
    for item in state.wiki.links:
        if item.target.page is None or item.target.page.path != wanted:
            continue
        if item.page.path == wanted and item.link.kind != "wikilink":
            continue  # the page's own `#anchor` links are not references to it
        other = Lines.of(state.text(item.page.path))
        start, end = link_extent(item.page, other, item.link)
        first = other.position(item.link.span.line, start)
        last = other.position(item.link.span.line, end)
        found.append(
            types.Location(
                uri=uri_of(state, item.page.path),
                range=types.Range(types.Position(*first), types.Position(*last)),
            )
        )
    return found


def document_symbols(state: WikiState, path: str, lines: Lines) -> list[types.DocumentSymbol]:
    """The page's headings, each holding the headings below it."""
    page = state.pages.get(path)
    if page is None:
        return []
    top: list[types.DocumentSymbol] = []
    stack: list[tuple[int, types.DocumentSymbol]] = []
    for heading in page.headings:
        text = lines.get(heading.line)
        where = types.Range(
            types.Position(heading.line - 1, 0), types.Position(heading.line - 1, len(text))
        )
        symbol = types.DocumentSymbol(
            name=heading.text or heading.slug,
            detail=f"#{heading.slug}",
            kind=types.SymbolKind.String,
            range=where,
            selection_range=where,
            children=[],
        )
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        (stack[-1][1].children if stack else top).append(symbol)  # type: ignore[union-attr]
        stack.append((heading.level, symbol))
    return top


def workspace_symbols(state: WikiState, query: str) -> list[types.WorkspaceSymbol]:
    wanted = query.lower()
    found = []
    for path, facts in state.facts.items():
        if wanted and wanted not in facts.title.lower() and wanted not in path.lower():
            continue
        found.append(
            types.WorkspaceSymbol(
                name=facts.title,
                kind=types.SymbolKind.File,
                location=types.Location(
                    uri=uri_of(state, path),
                    range=types.Range(types.Position(0, 0), types.Position(0, 0)),
                ),
                container_name=path,
            )
        )
        if len(found) >= LIMIT:
            break
    return found
