"""Reading a page economically: its frontmatter and outline, one section (by heading, anchor
or block id), or its lines from an offset, never more than :data:`MAX_CHARS` at once."""

from __future__ import annotations

import datetime
import json
import re
from typing import Any

from kbtool.agent.errors import Refused
from kbtool.agent.models import HeadingOut, PageAnswer, PageCardOut
from kbtool.agent.paths import page_path
from kbtool.agent.state import AgentWiki
from kbtool.model import Heading, Page
from kbtool.parse.digest import content_digest
from kbtool.parse.fields import tags_of
from kbtool.parse.slugs import slugify

#: The most characters of page text one answer holds (about 4,000 tokens); the rest is read
#: on from ``next_offset``.
MAX_CHARS = 16_000

#: The most headings an outline lists.
MAX_HEADINGS = 300

#: An Obsidian block id ending a line: ``... text ^block-id``.
_BLOCK_ID = re.compile(r"\s\^([A-Za-z0-9-]+)\s*$")


def json_safe(value: Any) -> Any:
    """A frontmatter value as JSON holds it (dates as ISO text)."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, datetime.date):
        return value.isoformat()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _bounded(frontmatter: dict[str, Any]) -> dict[str, Any]:
    """The frontmatter, unless it is too long for one answer: then a note saying so."""
    size = len(json.dumps(frontmatter, ensure_ascii=False))
    if size <= MAX_CHARS:
        return frontmatter
    return {"_too_long": f"{size:,} characters: read its lines as text, from offset 1"}


def card_of(page: Page) -> PageCardOut:
    meta = page.meta
    kind, summary, updated = meta.get("type"), meta.get("summary"), meta.get("updated")
    return PageCardOut(
        path=page.path,
        title=page.title,
        type=kind if isinstance(kind, str) else None,
        summary=summary if isinstance(summary, str) else None,
        tags=list(tags_of(page)),
        updated=json_safe(updated) if updated is not None else None,
    )


def outline_of(page: Page) -> list[HeadingOut]:
    return [
        HeadingOut(level=h.level, text=h.text, anchor=h.slug, line=h.line) for h in page.headings
    ]


def find_heading(page: Page, section: str) -> Heading | None:
    """The heading ``section`` names: its anchor (with or without ``#``) or its text."""
    wanted = section.strip().removeprefix("#").strip()
    for heading in page.headings:
        if wanted in (heading.slug, heading.text):
            return heading
    slug = slugify(wanted)
    return next((h for h in page.headings if h.slug == slug), None)


def section_lines(page: Page, lines: list[str], section: str) -> tuple[int, int, str]:
    """(first line, last line, anchor) of ``section``: a heading and what is under it, up to
    the next heading of its level or above; or ``^id``: the block that id ends."""
    if section.strip().startswith("^"):
        return _block_lines(page, lines, section.strip()[1:])
    heading = find_heading(page, section)
    if heading is None:
        anchors = ", ".join(f"#{h.slug}" for h in page.headings[:20]) or "none"
        raise Refused(f"{page.path} has no section '{section}'; its headings' anchors: {anchors}")
    last = len(lines)
    for other in page.headings:
        if other.line > heading.line and other.level <= heading.level:
            last = other.line - 1
            break
    return heading.line, last, heading.slug


def _block_lines(page: Page, lines: list[str], block: str) -> tuple[int, int, str]:
    for number, line in enumerate(lines, 1):
        match = _BLOCK_ID.search(line)
        if match and match.group(1) == block:
            first = number
            while first > page.body_line and lines[first - 2].strip():
                first -= 1
            return first, number, f"^{block}"
    raise Refused(f"{page.path} has no block '^{block}' (a line ending in ' ^{block}')")


def page_lines(wiki: AgentWiki, path: str) -> list[str]:
    text = wiki.read(path).decode("utf-8-sig", "replace")
    return text.split("\n")


def read_page(
    wiki: AgentWiki, given: str, section: str | None = None, offset: int = 1
) -> PageAnswer:
    path = page_path(wiki, given)
    page = wiki.page(path)
    if page is None:
        raise Refused(f"{path} could not be read as a page; run check on it")
    data = wiki.read(path)
    lines = data.decode("utf-8-sig", "replace").split("\n")
    if section:
        first, last, anchor = section_lines(page, lines, section)
        first = max(first, offset)
    else:
        first, last, anchor = max(1, offset), len(lines), None
    if first > last and last:
        raise Refused(f"{path}: line {offset} is past the end (line {last})")
    shown: list[str] = []
    size, end = 0, first - 1
    for number in range(first, last + 1):
        line = lines[number - 1]
        if shown and size + len(line) + 1 > MAX_CHARS:
            break
        shown.append(line[:MAX_CHARS])
        size += len(line) + 1
        end = number
    return PageAnswer(
        path=path,
        title=page.title,
        kind=page.kind,
        digest=content_digest(data),
        frontmatter=_bounded(json_safe(page.meta)),
        outline=outline_of(page)[:MAX_HEADINGS],
        section=anchor,
        text="\n".join(shown),
        first_line=first,
        last_line=end,
        next_offset=end + 1 if end < last else None,
    )
