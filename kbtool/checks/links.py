"""KB2xx: every `related`/`sources` entry and every body link, wikilink and anchor resolves."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator

from kbtool.checks.base import diagnostic, did_you_mean
from kbtool.diagnostics import Diagnostic
from kbtool.obsidian_links import link_anchors, note_name, subpath_parts
from kbtool.parse.slugs import slugify
from kbtool.wiki import ResolvedLink, Status, Target, Wiki


def check_outside_links(wiki: Wiki) -> Iterator[Diagnostic]:
    for item in wiki.links:
        if item.target.status is Status.OUTSIDE:
            absolute = re.match(r"^([a-zA-Z]:)?/", item.target.path or "")
            how = "is absolute" if absolute else "leaves the repository"
            message = f"link '{item.link.target}' {how}; use a path relative to this page"
            yield diagnostic("KB210", item.link.span, message)


def check_related(wiki: Wiki) -> Iterator[Diagnostic]:
    for item in _of_kind(wiki, "related"):
        target, raw = item.target, item.link.target
        if target.status is Status.MISSING:
            hint = _suggest(wiki, item.page.path, target.path, kind="wiki")
            yield diagnostic("KB201", item.link.span, f"related page '{raw}' does not exist{hint}")
        elif target.status is Status.DIRECTORY:
            yield diagnostic(
                "KB202", item.link.span, f"related entry '{raw}' is a folder, not a page"
            )
        elif target.status is Status.EXTERNAL:
            message = f"related entry '{raw}' is a URL; `related` lists wiki pages"
            yield diagnostic("KB202", item.link.span, message)
        elif target.status is Status.OK and (target.page is None or target.page.kind != "wiki"):
            yield diagnostic("KB202", item.link.span, _not_a_wiki_page(wiki, raw, target))


def _not_a_wiki_page(wiki: Wiki, raw: str, target: Target) -> str:
    """Why an existing file is not a wiki page, and what to do about it."""
    if target.page is not None:
        return f"related entry '{raw}' is a source page; list it under `sources`"
    path = target.path or ""
    if not path.lower().endswith(".md"):
        return f"related entry '{raw}' is not a Markdown page; `related` lists wiki pages"
    folders = wiki.config.wiki_folders
    shown = ", ".join(f"'{f}'" for f in folders)
    if wiki.config.wiki == "." or any(
        path.startswith(f + "/") for f in (*folders, wiki.config.sources)
    ):
        return (
            f"related entry '{raw}' is a Markdown file that is not read as a page "
            "(matched by `exclude`, or unreadable: see its own diagnostic)"
        )
    top = path.split("/", 1)[0] if "/" in path else None
    hint = f" (add '{top}' to `wiki` to check it as one)" if top else ""
    where = "wiki folder" if len(folders) == 1 else "wiki folders"
    return f"related entry '{raw}' is a Markdown page outside the {where} {shown}{hint}"


def check_sources(wiki: Wiki) -> Iterator[Diagnostic]:
    prefix = wiki.config.sources.rstrip("/") + "/"
    for item in _of_kind(wiki, "source"):
        target, raw = item.target, item.link.target
        if target.status is Status.MISSING:
            hint = _suggest(wiki, item.page.path, target.path, kind="source")
            yield diagnostic("KB203", item.link.span, f"source '{raw}' does not exist{hint}")
        elif target.status is Status.EXTERNAL:
            message = f"source '{raw}' is a URL; `sources` lists archive pages under '{prefix}'"
            yield diagnostic("KB204", item.link.span, message)
        elif target.status in (Status.OK, Status.DIRECTORY) and not (target.path or "").startswith(
            prefix
        ):
            message = f"source '{raw}' is not under '{prefix}'; `sources` lists archive pages"
            yield diagnostic("KB204", item.link.span, message)


def check_duplicate_entries(wiki: Wiki) -> Iterator[Diagnostic]:
    seen: dict[tuple[str, str, str], int] = {}
    for item in wiki.links:
        if not item.link.in_frontmatter or item.target.path is None:
            continue
        key = (item.page.path, item.link.kind, item.target.path)
        if key in seen:
            field = "related" if item.link.kind == "related" else "sources"
            message = (
                f"'{item.link.target}' is listed twice in `{field}` (first on line {seen[key]})"
            )
            yield diagnostic("KB205", item.link.span, message)
        else:
            seen[key] = item.link.span.line


def check_self_links(wiki: Wiki) -> Iterator[Diagnostic]:
    for item in wiki.links:
        target = item.target
        if target.page is not item.page or target.status is not Status.OK or target.anchor:
            continue
        if item.link.in_frontmatter or item.link.target.strip() not in ("", "#"):
            yield diagnostic(
                "KB206", item.link.span, f"'{item.link.target}' links this page to itself"
            )


def check_body_links(wiki: Wiki) -> Iterator[Diagnostic]:
    for item in wiki.links:
        if item.link.kind not in ("link", "image") or item.target.status is not Status.MISSING:
            continue
        what = "image" if item.link.kind == "image" else "link target"
        hint = _suggest(wiki, item.page.path, item.target.path, kind=None)
        yield diagnostic(
            "KB207", item.link.span, f"{what} '{item.link.target}' does not exist{hint}"
        )


def check_anchors(wiki: Wiki) -> Iterator[Diagnostic]:
    for item in wiki.links:
        target = item.target
        if not target.anchor or target.page is None or target.status is Status.MISSING:
            continue
        slugs = link_anchors(target.page)
        if wiki.obsidian and all(_names(part, slugs) for part in subpath_parts(target.anchor)):
            continue
        # A wikilink may name the heading by its text rather than its slug.
        if target.anchor in slugs or (
            item.link.kind == "wikilink" and slugify(target.anchor) in slugs
        ):
            continue
        where = "this page" if target.page is item.page else f"'{target.page.path}'"
        hint = did_you_mean(slugify(target.anchor), slugs)
        part = "block" if target.anchor.startswith("^") else "heading"
        message = f"anchor '#{target.anchor}' matches no {part} of {where}{hint}"
        yield diagnostic("KB208", item.link.span, message)


def _names(part: str, anchors: frozenset[str]) -> bool:
    """Whether one part of a vault's ``#A#B`` or ``#^id`` names a heading or block: a block
    by its id, a heading by its slug or by its text, as Obsidian writes it."""
    return part in anchors or (not part.startswith("^") and slugify(part) in anchors)


def check_wikilinks(wiki: Wiki) -> Iterator[Diagnostic]:
    what, several = ("note or file", "notes or files") if wiki.obsidian else ("page", "pages")
    for item in _of_kind(wiki, "wikilink"):
        if item.target.status is Status.MISSING:
            name = item.link.target.partition("#")[0]
            # a vault's link names a note by its file name, maybe after folders
            looked_for = note_name(name) if wiki.obsidian else name.lower()
            hint = did_you_mean(looked_for, wiki.every_stem(item.page.path))
            message = f"wikilink '[[{item.link.target}]]' matches no {what}{hint}"
            yield diagnostic("KB209", item.link.span, message)
        elif item.target.status is Status.AMBIGUOUS:
            choices = ", ".join(item.target.candidates)
            message = (
                f"wikilink '[[{item.link.target}]]' matches several {several} ({choices}); "
                "using the first"
            )
            yield diagnostic("KB211", item.link.span, message)


def _of_kind(wiki: Wiki, kind: str) -> Iterator[ResolvedLink]:
    return (item for item in wiki.links if item.link.kind == kind)


def _suggest(wiki: Wiki, reader: str, path: str | None, kind: str | None) -> str:
    """'did you mean' for a link of ``reader``: from pages with the same file name, else a
    close path."""
    if not path:
        return ""
    name = path.rsplit("/", 1)[-1].removesuffix(".md").lower()
    same = [p for p in wiki.pages_with_stem(reader, name) if kind is None or p.kind == kind]
    if same:
        return f" (a page '{same[0].path}' exists)"
    # Otherwise a close file name in the same folder (typos, `_` for `-`). Fuzzy matching is
    # slow, so only names that start alike are compared, and only a few hundred of them.
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    stems, alike = wiki.stems_in(reader, folder, name[:2])
    if len(alike) > 300:
        return ""
    close = difflib.get_close_matches(name, alike, n=1, cutoff=0.8)
    return f" (did you mean '{stems[close[0]]}'?)" if close else ""
