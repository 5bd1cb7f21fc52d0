"""A renamed heading in a vault: which parts of a link's ``#A#B`` name it, and their new text.

Obsidian names a heading by its text (``[[Note#Setup first steps]]``,
``[x](Note.md#Setup%20first%20steps)``), a sub-heading by the headings above it (``#A#B``: B
under A), and writes the text without the characters a link cannot hold (``:`` and ``：``,
``#``, ``|``, ``^``, brackets). A part written as a
GitHub slug (``#setup-first-steps``) gets the new slug, as outside a vault.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple
from urllib.parse import quote, unquote

from kbtool.model import Heading
from kbtool.parse.slugs import slugify

_NOT_IN_LINK = re.compile(r"[#|^\[\]:：\\]")
_ENCODED_WIDE = re.compile(r"%[89A-Fa-f][0-9A-Fa-f]")


class PartEdit(NamedTuple):
    """Characters ``start`` up to ``end`` of a link's written ``#`` part, and their new text."""

    start: int
    end: int
    old: str
    new: str


def link_text(heading_text: str) -> str:
    """A heading's text as Obsidian writes it in a link: ``Setup: first`` -> ``Setup first``,
    ``背景：为什么`` -> ``背景为什么``."""
    return " ".join(_NOT_IN_LINK.sub("", heading_text).split())


def _names(part: str, heading: Heading) -> bool:
    return part == heading.slug or slugify(part) == slugify(heading.text)


def named_headings(parts: Sequence[str], headings: Sequence[Heading]) -> list[Heading | None]:
    """The heading each part of ``#A#B`` names (None for a block or a part that names none):
    the first heading of that text, then each next one under the one before it."""
    found: list[Heading | None] = []
    start, above = 0, 0  # where to look from; the level of the heading found before
    for part in parts:
        heading = None
        if not part.startswith("^"):
            for index in range(start, len(headings)):
                candidate = headings[index]
                if found and candidate.level <= above:
                    break  # past the section of the heading above
                if _names(part, candidate):
                    heading, start, above = candidate, index + 1, candidate.level
                    break
        found.append(heading)
        if heading is None:
            break
    return found + [None] * (len(parts) - len(found))


def part_edits(
    raw_anchor: str,
    encoded: bool,
    headings: Sequence[Heading],
    line: int,
    new_text: str,
    new_slugs: dict[str, str],
) -> list[PartEdit]:
    """The edits of ``raw_anchor`` (a link's ``#`` part as written; ``encoded``: in a body
    link, so percent-encoded) for the renaming of the heading at ``line`` to ``new_text``;
    ``new_slugs``: each heading's slug that the rename changes, and its new one."""
    spans, at = [], 0
    for piece in raw_anchor.split("#"):
        spans.append((at, piece))
        at += len(piece) + 1
    written = [
        (start, piece, (unquote(piece) if encoded else piece).strip()) for start, piece in spans
    ]
    kept = [w for w in written if w[2]]
    named = named_headings([text for _, _, text in kept], headings)
    edits = []
    for (start, piece, text), heading in zip(kept, named, strict=True):
        if heading is None:
            continue
        if text == heading.slug and text != heading.text:  # written as a GitHub slug
            if heading.slug not in new_slugs:
                continue
            new = new_slugs[heading.slug]
        elif heading.line != line:
            continue
        else:
            new = link_text(new_text)
            if encoded:
                new = in_body_link(new, wide=bool(_ENCODED_WIDE.search(piece)))
        lead = len(piece) - len(piece.lstrip())
        old = piece.strip()
        edits.append(PartEdit(start + lead, start + lead + len(old), old, new))
    return edits


def in_body_link(text: str, wide: bool = False) -> str:
    """A heading's text in a body link's anchor: spaces as ``%20``, and every other
    character beyond ASCII encoded too when the link was written so."""
    if wide:
        return quote(text, safe="-_.~!*'(),;@&=+$")
    return re.sub(r"[ %<>()]", lambda m: quote(m.group()), text)
