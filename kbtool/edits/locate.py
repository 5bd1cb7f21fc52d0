"""Where a wikilink is written on its line when the page model could not place it: in a
table, ``[[Note\\|label]]`` (the ``|`` escaped) is not the text the parser looked for, and
such links are placed at the first column of the line."""

from __future__ import annotations

import re

from kbtool.model import Link, Page


def unplaced_wikilink(page: Page, link: Link, line: str, name: str) -> int | None:
    """The 0-based column where the name of ``link`` (a wikilink or embed of ``name``
    that the parser left at its line's first column) is written on ``line``, or None: the
    wikilinks of that name on the line that the parser did place are passed over, and
    those it did not are taken in order."""
    pattern = re.compile(r"\[\[\s*(" + re.escape(name) + r")\s*(?=[#|\]\\])")
    placed = {
        other.span.col
        for other in page.links
        if other.kind == "wikilink" and other.span.line == link.span.line
        if other.span != link.span
    }
    hits = [match.start(1) for match in pattern.finditer(line) if match.start() + 3 not in placed]
    rank = 0
    for other in page.links:
        if other is link:
            break
        if other.span == link.span and _name(other) == name:
            rank += 1
    return hits[rank] if rank < len(hits) else None


def _name(link: Link) -> str:
    return link.target.partition("#")[0].strip()
