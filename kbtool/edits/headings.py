"""The edits a renamed heading needs: the heading's line, and every anchor that points at it
(or at a later heading of the page whose ``-1``-style slug the rename shifts)."""

from __future__ import annotations

import re
from collections.abc import Callable

from kbtool.edits.locate import unplaced_wikilink
from kbtool.edits.moves import MovePlan
from kbtool.edits.spans import TextEdit, decode, split_lines
from kbtool.edits.vault_headings import PartEdit, part_edits
from kbtool.model import Link, Page
from kbtool.parse.slugs import slugify, unique_slugs
from kbtool.wiki import Status, Wiki

_ATX = re.compile(r"^( {0,3}#{1,6}[ \t]+)(.*?)([ \t]+#+[ \t]*)?[ \t]*$")


def plan_heading_rename(
    wiki: Wiki, path: str, line: int, new_text: str, read: Callable[[str], bytes]
) -> MovePlan:
    """Rename the heading of ``path`` at ``line`` to ``new_text``."""
    plan = MovePlan({})
    page = wiki.pages[path]
    headings = list(page.headings)
    if not any(h.line == line for h in headings):
        plan.problems.append(f"{path}:{line}: no heading on this line")
        return plan
    texts = [new_text if h.line == line else h.text for h in headings]
    renamed = {
        h.slug: slug
        for h, slug in zip(headings, unique_slugs(texts), strict=True)
        if h.slug != slug
    }
    try:
        own = [text for text, _ in split_lines(decode(read(path))[1])]
    except (OSError, UnicodeDecodeError) as error:
        plan.problems.append(f"{path}: cannot read: {error}")
        return plan
    match = _ATX.match(own[line - 1]) if line <= len(own) else None
    if match is None:
        plan.problems.append(f"{path}:{line}: only a '#' heading can be renamed")
        return plan
    old_text = match.group(2)
    start = match.start(2) + 1
    plan.edits[path] = [TextEdit(path, line, start, start + len(old_text), new_text, old_text)]
    old_slug = next(h.slug for h in headings if h.line == line)
    page_lines = {path: own}  # each page's lines, read once
    for item in wiki.links:
        target = item.target
        if target.page is None or target.path != path or not target.anchor:
            continue
        if target.status is not Status.OK:
            continue
        raw_anchor = item.link.target.partition("#")[2]
        if wiki.obsidian and not item.link.in_frontmatter:
            encoded = item.link.kind != "wikilink"
            changes = part_edits(raw_anchor, encoded, headings, line, new_text, renamed)
            if changes:
                lines_of = _page_lines(page_lines, item.page.path, read)
                _vault_edits(plan, item.page, item.link, raw_anchor, lines_of, changes)
            continue
        if item.link.kind == "wikilink":
            # A wikilink names the heading by its text or its slug.
            if slugify(target.anchor) != old_slug and target.anchor != old_slug:
                continue
            new = new_text if slugify(target.anchor) == slugify(old_text) else renamed[old_slug]
        elif target.anchor in renamed:
            new = renamed[target.anchor]
        else:
            continue
        edit = _anchor_edit(item.page.path, item.link.span.line, item.link.span.col, raw_anchor)
        if item.page.path not in page_lines:
            try:
                text = decode(read(item.page.path))[1]
            except (OSError, UnicodeDecodeError):
                text = ""
            page_lines[item.page.path] = [t for t, _ in split_lines(text)]
        located = edit(page_lines[item.page.path], new)
        if located is None:
            plan.problems.append(
                f"{item.page.path}:{item.link.span.line}: anchor '#{raw_anchor}' not found as "
                "written; left as it was"
            )
        else:
            plan.edits.setdefault(item.page.path, []).append(located)
    return plan


def _page_lines(
    page_lines: dict[str, list[str]], path: str, read: Callable[[str], bytes]
) -> list[str]:
    """``path``'s lines, read once (none when it cannot be read)."""
    if path not in page_lines:
        try:
            text = decode(read(path))[1]
        except (OSError, UnicodeDecodeError):
            text = ""
        page_lines[path] = [t for t, _ in split_lines(text)]
    return page_lines[path]


def _vault_edits(
    plan: MovePlan,
    page: Page,
    link: Link,
    raw_anchor: str,
    lines: list[str],
    changes: list[PartEdit],
) -> None:
    """The edits of a vault link's ``#`` parts that name the renamed heading."""
    path, number = page.path, link.span.line
    line = lines[number - 1] if 1 <= number <= len(lines) else ""
    at = line.find("#" + raw_anchor, max(link.span.col - 1, 0))
    name = link.target.partition("#")[0].strip()
    if link.kind == "wikilink" and line.find(name, max(link.span.col - 1, 0)) > link.span.col + 1:
        # not where the parser placed it (in a table, `[[Note#A\|label]]`): by its name
        found = unplaced_wikilink(page, link, line, name)
        at = -1 if found is None else line.find("#" + raw_anchor, found + len(name))
    if at < 0:
        plan.problems.append(
            f"{path}:{number}: anchor '#{raw_anchor}' not found as written; left as it was"
        )
        return
    start = at + 2  # the 1-based column of the anchor's first character
    for change in changes:
        plan.edits.setdefault(path, []).append(
            TextEdit(path, number, start + change.start, start + change.end, change.new, change.old)
        )


def _anchor_edit(
    path: str, number: int, col: int, raw_anchor: str
) -> Callable[[list[str], str], TextEdit | None]:
    def locate(lines: list[str], new: str) -> TextEdit | None:
        if not 1 <= number <= len(lines):
            return None
        line = lines[number - 1]
        at = line.find("#" + raw_anchor, max(col - 1, 0))
        if at < 0:
            return None
        start = at + 2
        return TextEdit(path, number, start, start + len(raw_anchor), new, raw_anchor)

    return locate
