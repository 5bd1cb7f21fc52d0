"""Completion: link targets (pages by title and path, with the relative path from this page),
``#anchors`` (the target's headings, as GitHub slugs them), wikilinks, tags and types."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote

from lsprotocol import types

from kbtool.lsp.state import WikiState
from kbtool.lsp.text import Lines, utf16
from kbtool.lsp.vault_complete import body_link_anchors, complete_wikilink
from kbtool.model import Link, Page, Span, stem_of
from kbtool.render.urls import relative_path
from kbtool.wiki import Status

#: Answers are cut here (the client asks again as the author types more).
LIMIT = 100

_BODY_TARGET = re.compile(r"\]\(\s*<?([^()\s<>]*)$")
_WIKILINK = re.compile(r"\[\[([^\[\]|]*)$")
_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(.*)$")
_ITEM = re.compile(r"^\s*-\s+['\"]?([^'\"]*)$")
_FLOW = re.compile(r"[\[,]\s*['\"]?([^,\[\]'\"]*)$")
_UNSAFE_IN_BODY = re.compile(r"[ ()<>]")


def complete(
    state: WikiState, path: str, lines: Lines, line: int, col: int
) -> types.CompletionList:
    """What may be written at 1-based ``line``, ``col`` of ``path``."""
    before = lines.get(line)[: col - 1]
    page = state.pages.get(path)
    key = _frontmatter_key(lines, line)
    if key is not None:
        return _in_frontmatter(state, path, page, lines, line, col, key, before)
    match = _BODY_TARGET.search(before)
    if match:
        return _targets(state, path, page, lines, line, col, match.group(1), None)
    match = _WIKILINK.search(before)
    if match and state.wiki.obsidian:
        embed = before[: match.start()].endswith("!")
        return complete_wikilink(state, path, lines, line, col, match.group(1), embed)
    if match:
        return _wikilinks(state, lines, line, col, match.group(1))
    return types.CompletionList(is_incomplete=False, items=[])


def _frontmatter_key(lines: Lines, line: int) -> str | None:
    """The key whose value ``line`` is part of, when it is inside the frontmatter."""
    if lines.get(1).rstrip() != "---" or line == 1:
        return None
    for number in range(2, len(lines.lines) + 1):
        if lines.get(number).rstrip() in ("---", "..."):
            if line >= number:
                return None
            break
    for number in range(line, 1, -1):
        match = _KEY.match(lines.get(number))
        if match:
            return match.group(1)
    return ""


def _in_frontmatter(
    state: WikiState,
    path: str,
    page: Page | None,
    lines: Lines,
    line: int,
    col: int,
    key: str,
    before: str,
) -> types.CompletionList:
    own = _KEY.match(before)
    value = own.group(2) if own and own.group(1) == key else before
    match = _ITEM.match(value) or _FLOW.search(value)
    prefix = match.group(1) if match else value.strip().strip("'\"")
    if key in ("related", "sources") and (match or not value.strip()):
        kind = "wiki" if key == "related" else "source"
        # For `related`, the pages most like this one (that it does not link yet) come first.
        first = state.related(path) if key == "related" and path in state.pages else []
        return _targets(state, path, page, lines, line, col, prefix, kind, first)
    if key == "tags":
        tags = {tag for facts in state.facts.values() for tag in facts.tags}
        return _words(lines, line, col, prefix, sorted(tags), types.CompletionItemKind.Keyword)
    if key == "type":
        return _words(
            lines, line, col, prefix, list(state.config.types), types.CompletionItemKind.Enum
        )
    return types.CompletionList(is_incomplete=False, items=[])


def _edit_range(lines: Lines, line: int, col: int, prefix: str) -> types.Range:
    text = lines.get(line)
    end = utf16(text, col - 1)
    start = utf16(text, col - 1 - len(prefix))
    return types.Range(types.Position(line - 1, start), types.Position(line - 1, end))


def _targets(
    state: WikiState,
    path: str,
    page: Page | None,
    lines: Lines,
    line: int,
    col: int,
    prefix: str,
    kind: str | None,
    first: list[str] = [],  # noqa: B006 - read only
) -> types.CompletionList:
    """Pages to link to, the paths in ``first`` before the rest."""
    if "#" in prefix:
        return _anchors(state, path, page, lines, line, col, prefix)
    wanted = prefix.lower()
    items = []
    ahead = [(p, state.facts[p]) for p in first if p in state.facts]
    rest = ((p, facts) for p, facts in state.facts.items() if p not in first)
    for other, facts in (*ahead, *rest):
        if other == path or (kind is not None and facts.kind != kind):
            continue
        relative = relative_path(path, other)
        if wanted and wanted not in relative.lower() and wanted not in facts.title.lower():
            continue
        items.append((relative, other, facts.title))
        if len(items) > LIMIT:
            break
    rank = {p: n for n, p in enumerate(first)}
    where = _edit_range(lines, line, col, prefix)
    # A vault's note names have spaces: encoded, or the body link would end there.
    in_body = kind is None and state.wiki.obsidian
    return types.CompletionList(
        is_incomplete=len(items) > LIMIT,
        items=[
            types.CompletionItem(
                label=title,
                label_details=types.CompletionItemLabelDetails(description=relative),
                kind=types.CompletionItemKind.File,
                detail=relative,
                filter_text=f"{relative} {title}",
                sort_text=f"0 {rank[other]:03d}" if other in rank else f"1 {relative}",
                text_edit=types.TextEdit(
                    range=where, new_text=_encoded(relative) if in_body else relative
                ),
                data={"path": other},  # its summary, when the editor shows it (`resolve`)
            )
            for relative, other, title in items[:LIMIT]
        ],
    )


def resolve(state: WikiState, item: types.CompletionItem) -> types.CompletionItem:
    """A listed page's summary as the item's documentation, read when the editor shows the
    item: listing them all would read every page."""
    path = item.data.get("path") if isinstance(item.data, dict) else None
    page = state.pages_of([path]).get(path) if isinstance(path, str) else None
    if page is not None:
        item.documentation = _summary(page)
    return item


def _encoded(path: str) -> str:
    """A path as a body link's destination can hold it: spaces and parentheses encoded."""
    return _UNSAFE_IN_BODY.sub(lambda m: quote(m.group()), path)


def _summary(page: Page) -> str | None:
    summary = page.meta.get("summary")
    return summary if isinstance(summary, str) else None


def _anchors(
    state: WikiState, path: str, page: Page | None, lines: Lines, line: int, col: int, prefix: str
) -> types.CompletionList:
    target_text, _, anchor = prefix.partition("#")
    target = page
    if target_text and page is not None:
        resolved = state.wiki.resolve(page, Link(target_text, "link", Span(path)))
        target = resolved.page if resolved.status is Status.OK else None
    if target is None:
        return types.CompletionList(is_incomplete=False, items=[])
    if state.wiki.obsidian:  # Obsidian names a heading by its text, not a slug
        return body_link_anchors(state, target, lines, line, col, anchor)
    where = _edit_range(lines, line, col, anchor)
    return types.CompletionList(
        is_incomplete=False,
        items=[
            types.CompletionItem(
                label=heading.slug,
                kind=types.CompletionItemKind.Reference,
                detail=f"{'#' * heading.level} {heading.text}",
                filter_text=f"{heading.slug} {heading.text}",
                sort_text=f"{index:05d}",
                text_edit=types.TextEdit(range=where, new_text=heading.slug),
            )
            for index, heading in enumerate(target.headings)
        ],
    )


def _wikilinks(
    state: WikiState, lines: Lines, line: int, col: int, prefix: str
) -> types.CompletionList:
    name, hash_sign, anchor = prefix.partition("#")
    if hash_sign:
        stem = name.strip().lower()
        paths = state.wiki.paths_by_stem.get(stem, ())
        matches = [state.wiki.pages[p] for p in paths] or state.wiki.by_title.get(stem, [])
        headings = matches[0].headings if matches else ()
        return _words(
            lines, line, col, anchor, [h.text for h in headings], types.CompletionItemKind.Reference
        )
    wanted = name.lower()
    found = [
        (stem_of(p), p, facts.title)
        for p, facts in state.facts.items()
        if not wanted or wanted in stem_of(p).lower() or wanted in facts.title.lower()
    ]
    where = _edit_range(lines, line, col, name)
    return types.CompletionList(
        is_incomplete=len(found) > LIMIT,
        items=[
            types.CompletionItem(
                label=title,
                label_details=types.CompletionItemLabelDetails(description=stem),
                kind=types.CompletionItemKind.File,
                detail=p,
                filter_text=f"{stem} {title}",
                text_edit=types.TextEdit(range=where, new_text=stem),
            )
            for stem, p, title in found[:LIMIT]
        ],
    )


def _words(
    lines: Lines,
    line: int,
    col: int,
    prefix: str,
    words: Iterable[str],
    kind: types.CompletionItemKind,
) -> types.CompletionList:
    where = _edit_range(lines, line, col, prefix)
    wanted = prefix.lower()
    return types.CompletionList(
        is_incomplete=False,
        items=[
            types.CompletionItem(
                label=w, kind=kind, text_edit=types.TextEdit(range=where, new_text=w)
            )
            for w in words
            if wanted in w.lower()
        ],
    )
