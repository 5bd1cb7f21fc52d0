"""Completion of a vault's wikilinks and embeds, as Obsidian offers them.

After ``[[`` (or ``![[``): every note by its file name (written as ``newLinkFormat`` asks:
the name alone, or with its path where two files share it), each of its ``aliases``
(``Name|Alias``), and every attachment (first after ``![[``); after ``[[Note#``: the
note's headings, by their text as Obsidian writes it (``[[Note#A#`` offers those under A,
``[[#`` this note's); after ``[[Note#^``: its block ids. After ``Note.md#`` in a body
link: the headings by their text with ``%20`` (Obsidian knows no GitHub slug), the block ids.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from kbtool.edits.vault_headings import in_body_link, link_text, named_headings
from kbtool.edits.vault_moves import VaultAfter, link_path, vault_after
from kbtool.lsp.state import WikiState
from kbtool.lsp.text import Lines, utf16
from kbtool.model import Heading, Link, Page, Span, stem_of
from kbtool.obsidian_links import subpath_parts
from kbtool.wiki import Status

#: Answers are cut here (the client asks again as the author types more).
LIMIT = 100
#: The files Obsidian shows besides notes (its help's "Accepted file formats"): a vault's
#: other files (``kbtool.toml``, a script) are not offered, though a link to one resolves.
SHOWN = frozenset(
    {"avif", "bmp", "gif", "jpeg", "jpg", "png", "svg", "webp"}  # images
    | {"flac", "m4a", "mp3", "ogg", "wav", "3gp"}  # audio
    | {"mkv", "mov", "mp4", "ogv", "webm"}  # video
    | {"pdf", "canvas", "base"}
)


def complete_wikilink(
    state: WikiState, path: str, lines: Lines, line: int, col: int, prefix: str, embed: bool
) -> types.CompletionList:
    """What may follow ``[[`` + ``prefix`` (``![[`` when ``embed``) at ``line``, ``col``."""
    name, hash_sign, anchor = prefix.partition("#")
    if not hash_sign:
        return _names(state, path, lines, line, col, name, embed)
    target = _target(state, path, name)
    if target is None:
        return types.CompletionList(is_incomplete=False, items=[])
    above, _, last = anchor.rpartition("#")
    if last.lstrip().startswith("^"):
        return _blocks(state, target, lines, line, col, last)
    headings = _under(target, subpath_parts(above)) if above else list(target.headings)
    return _headings(headings, _range(lines, line, col, last), encode=False)


def body_link_anchors(
    state: WikiState, target: Page, lines: Lines, line: int, col: int, written: str
) -> types.CompletionList:
    """After ``Note.md#`` in a vault's body link: the headings by their text, as Obsidian
    writes them there (``#Setup%20first%20steps``), and the block ids."""
    if written.startswith("^"):
        return _blocks(state, target, lines, line, col, written)
    return _headings(target.headings, _range(lines, line, col, written), encode=True)


def _headings(
    headings: Sequence[Heading], where: types.Range, encode: bool
) -> types.CompletionList:
    """The headings by their text as Obsidian writes it in a link (``encode``: in a body
    link's anchor, its spaces as ``%20``)."""
    items = []
    for index, heading in enumerate(headings):
        text = link_text(heading.text)
        written = in_body_link(text) if encode else text
        if text:
            items.append(
                types.CompletionItem(
                    label=text,
                    kind=types.CompletionItemKind.Reference,
                    detail=f"{'#' * heading.level} {heading.text}",
                    filter_text=f"{written} {heading.slug}",
                    sort_text=f"{index:05d}",
                    text_edit=types.TextEdit(range=where, new_text=written),
                )
            )
    return types.CompletionList(is_incomplete=False, items=items)


def _target(state: WikiState, path: str, name: str) -> Page | None:
    """The note ``[[name`` opens from ``path`` (this note when ``name`` is empty)."""
    reader = state.pages.get(path)
    if not name.strip():
        return reader
    if reader is None:
        return None
    found = state.wiki.resolve(reader, Link(name.strip(), "wikilink", Span(path)))
    return found.page if found.status in (Status.OK, Status.AMBIGUOUS) else None


def _under(page: Page, parts: list[str]) -> list[Heading]:
    """The headings of the section ``parts`` (``A#B``) names: those after its heading, up to
    the next one of its level or above."""
    found = named_headings(parts, page.headings)
    heading = found[-1] if found else None
    if heading is None:
        return []
    after = page.headings[page.headings.index(heading) + 1 :]
    section = []
    for other in after:
        if other.level <= heading.level:
            break
        section.append(other)
    return section


def _blocks(
    state: WikiState, target: Page, lines: Lines, line: int, col: int, written: str
) -> types.CompletionList:
    text = Lines.of(state.shown_text(target.path))
    where = _range(lines, line, col, written)
    seen: set[str] = set()
    items: list[types.CompletionItem] = []
    for block in target.blocks:
        if block.id in seen:
            continue  # an id given twice: links land on the first (KB231)
        seen.add(block.id)
        shown = text.get(block.lines[0]).strip()
        items.append(
            types.CompletionItem(
                label=f"^{block.id}",
                kind=types.CompletionItemKind.Reference,
                detail=shown[:80],
                sort_text=f"{len(items):05d}",
                text_edit=types.TextEdit(range=where, new_text=f"^{block.id}"),
            )
        )
    return types.CompletionList(is_incomplete=False, items=items)


def _vault(state: WikiState) -> VaultAfter:
    """The vault's notes and files as they are, to write each link as a new one."""
    return vault_after(state.wiki, {}, state.vault_files())


def _names(
    state: WikiState, path: str, lines: Lines, line: int, col: int, name: str, embed: bool
) -> types.CompletionList:
    wanted = name.strip().lower()
    vault = _vault(state)
    notes = _notes(state, vault, path, wanted, "1" if embed else "0")
    files = _files(state, vault, path, wanted, "0" if embed else "1")
    items = [*files, *notes] if embed else [*notes, *files]
    where = _range(lines, line, col, name)
    for item in items:
        item.text_edit = types.TextEdit(range=where, new_text=item.insert_text or "")
        item.insert_text = None
    return types.CompletionList(is_incomplete=len(items) > LIMIT, items=items[:LIMIT])


def _notes(
    state: WikiState, vault: VaultAfter, path: str, wanted: str, rank: str
) -> list[types.CompletionItem]:
    """The notes whose name, path, title or an alias holds ``wanted``, and their aliases."""
    items: list[types.CompletionItem] = []
    for note, facts in state.facts.items():
        aliases, stem = facts.aliases, stem_of(note)
        if wanted and not any(wanted in p.lower() for p in (note, facts.title, *aliases)):
            continue
        written = link_path(vault, note, path)
        if written is None:
            continue
        items.append(_item(stem, note, written, rank, types.CompletionItemKind.File))
        for alias in aliases:
            if wanted in alias.lower():
                shown = f"{stem} ({note})"
                kind = types.CompletionItemKind.Reference
                items.append(_item(alias, shown, f"{written}|{alias}", rank, kind))
        if len(items) > LIMIT:
            break
    return items


def _files(
    state: WikiState, vault: VaultAfter, path: str, wanted: str, rank: str
) -> list[types.CompletionItem]:
    """The attachments whose path holds ``wanted``."""
    items: list[types.CompletionItem] = []
    for group in state.vault_files().values():
        for other in group:
            if other.rpartition(".")[2].lower() not in SHOWN:
                continue
            if wanted and wanted not in other.lower():
                continue
            written = link_path(vault, other, path)
            if written is not None:
                label = other.rsplit("/", 1)[-1]
                items.append(_item(label, other, written, rank, types.CompletionItemKind.File))
            if len(items) > LIMIT:
                return items
    return items


def _item(
    label: str, detail: str, written: str, rank: str, kind: types.CompletionItemKind
) -> types.CompletionItem:
    return types.CompletionItem(
        label=label,
        label_details=types.CompletionItemLabelDetails(description=detail),
        kind=kind,
        detail=detail,
        filter_text=f"{label} {written}",
        sort_text=f"{rank} {label.lower()}",
        insert_text=written,
    )


def _range(lines: Lines, line: int, col: int, prefix: str) -> types.Range:
    text = lines.get(line)
    end = utf16(text, col - 1)
    start = utf16(text, col - 1 - len(prefix))
    return types.Range(types.Position(line - 1, start), types.Position(line - 1, end))
